package present

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pondhq/pond/session/view"
)

// Optimize is what `pond optimize` prints: the diagnosis with the command for each due step,
// or, after a run (r not nil), what it did and what is still due.
func Optimize(d *view.Diagnosis, r *view.UpkeepReport) string {
	var b strings.Builder
	if r == nil {
		writeDiagnosis(&b, d)
		return b.String()
	}
	for _, line := range r.Summary() {
		fmt.Fprintf(&b, "%s\n", line)
	}
	fmt.Fprintf(&b, "took %s\n", r.Elapsed.Round(time.Millisecond))
	if a := r.After; a != nil && len(a.Due) > 0 {
		b.WriteString("\n")
		writeDue(&b, a)
	}
	return b.String()
}

// writeDiagnosis renders what needs doing, with the command for each step.
func writeDiagnosis(w io.Writer, d *view.Diagnosis) {
	keep := time.Duration(d.KeepVersionsSecs) * time.Second
	fmt.Fprintf(w, "%-9s %10s %10s %6s %9s %10s %10s\n", "table", "rows", "fragments", "small", "versions", "older", "unindexed")
	for _, t := range d.Tables {
		fmt.Fprintf(w, "%-9s %10d %10d %6d %9d %10d %10d\n", t.Table, t.Rows, t.Fragments, t.SmallFragments, t.Versions, t.OldVersions, t.UnindexedRows)
	}
	older := "versions replaced more than " + shortDuration(keep) + " ago"
	if keep == 0 {
		older = "replaced versions no running read is on"
	}
	fmt.Fprintf(w, "(small: under 100,000 rows; older: %s)\n\n", older)
	index := func(name, rows string, ix view.IndexState) {
		switch {
		case ix.Exists && ix.UnindexedRows > 0:
			fmt.Fprintf(w, "%-16s built; %d rows not in it yet\n", name+":", ix.UnindexedRows)
		case ix.Exists:
			fmt.Fprintf(w, "%-16s built, up to date\n", name+":")
		default:
			fmt.Fprintf(w, "%-16s not built (%d %s; built from %d)\n", name+":", ix.Rows, rows, ix.BuildAt)
		}
	}
	index("text index", "messages", d.TextIndex)
	index("filter indexes", "messages", d.FilterIndexes)
	index("vector index", "embedded messages", d.VectorIndex)
	e := d.Embeddings
	if e.Model == "" {
		fmt.Fprintf(w, "%-16s semantic search is off (`pond model install` turns it on); %d of %d searchable messages embedded\n", "embeddings:", e.Embedded, e.Searchable)
	} else {
		fmt.Fprintf(w, "%-16s %d of %d searchable messages embedded by %s", "embeddings:", e.ThisModel, e.Searchable, e.Model)
		if other := e.Embedded - e.ThisModel; other > 0 {
			fmt.Fprintf(w, "; %d by other models (`pond optimize --force-embed` re-embeds them)", other)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	writeDue(w, d)
}

// writeDue lists the due steps, each with the command that runs it.
func writeDue(w io.Writer, d *view.Diagnosis) {
	if len(d.Due) == 0 {
		fmt.Fprintln(w, "nothing to do")
		return
	}
	keep := ""
	if !d.KeepDefault {
		keep = " --keep-versions " + shortDuration(time.Duration(d.KeepVersionsSecs)*time.Second)
	}
	fmt.Fprintln(w, "to do:")
	for _, x := range d.Due {
		command := "pond optimize --" + string(x.Step)
		if x.Step == view.StepPrune {
			command += keep
		}
		fmt.Fprintf(w, "  %-44s %s\n", command, x.Why)
	}
	fmt.Fprintf(w, "all of it: pond optimize --run%s\n", keep)
}

// shortDuration writes 1h rather than 1h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
