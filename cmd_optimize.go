package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/store"
)

// OptimizeReport is what `pond optimize` prints with --format json: the diagnosis it started
// from and, when it ran steps, what they did (ending with the diagnosis after them).
type OptimizeReport struct {
	Diagnosis *store.Diagnosis    `json:"diagnosis"`
	Report    *store.UpkeepReport `json:"report,omitempty"`
}

func optimizeReportOf(resp *apitype.OptimizeResponse) (*OptimizeReport, error) {
	out := &OptimizeReport{}
	if err := json.Unmarshal(resp.Diagnosis, &out.Diagnosis); err != nil {
		return nil, fmt.Errorf("optimize diagnosis: %w", err)
	}
	if len(resp.Report) > 0 {
		if err := json.Unmarshal(resp.Report, &out.Report); err != nil {
			return nil, fmt.Errorf("optimize report: %w", err)
		}
	}
	return out, nil
}

func (r *OptimizeReport) text() string {
	var b strings.Builder
	if r.Report == nil {
		writeDiagnosis(&b, r.Diagnosis)
		return b.String()
	}
	for _, line := range r.Report.Summary() {
		fmt.Fprintf(&b, "%s\n", line)
	}
	fmt.Fprintf(&b, "took %s\n", r.Report.Elapsed.Round(time.Millisecond))
	if a := r.Report.After; a != nil && len(a.Due) > 0 {
		b.WriteString("\n")
		writeDue(&b, a)
	}
	return b.String()
}

// writeDiagnosis renders what needs doing, with the command for each step.
func writeDiagnosis(w io.Writer, d *store.Diagnosis) {
	keep := time.Duration(d.KeepVersionsSecs) * time.Second
	fmt.Fprintf(w, "%-9s %10s %10s %6s %9s %10s %10s\n", "table", "rows", "fragments", "small", "versions", "older", "unindexed")
	for _, t := range d.Tables {
		fmt.Fprintf(w, "%-9s %10d %10d %6d %9d %10d %10d\n", t.Table, t.Rows, t.Fragments, t.SmallFragments, t.Versions, t.OldVersions, t.UnindexedRows)
	}
	fmt.Fprintf(w, "(small: under 100,000 rows; older: versions replaced more than %s ago)\n\n", shortDuration(keep))
	index := func(name, rows string, ix store.IndexState) {
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
func writeDue(w io.Writer, d *store.Diagnosis) {
	if len(d.Due) == 0 {
		fmt.Fprintln(w, "nothing to do")
		return
	}
	keep := ""
	if k := time.Duration(d.KeepVersionsSecs) * time.Second; k != store.KeepVersions {
		keep = " --keep-versions " + shortDuration(k)
	}
	fmt.Fprintln(w, "to do:")
	for _, x := range d.Due {
		command := "pond optimize --" + string(x.Step)
		if x.Step == store.StepPrune {
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

// upkeepProgress draws the daemon's (or this process's) upkeep events on stderr.
func upkeepProgress(w io.Writer) func(apitype.Event) {
	start := time.Now()
	inLine := false
	return func(ev apitype.Event) {
		if ev.Type != apitype.EventUpkeepProgress {
			return
		}
		var p store.UpkeepProgress
		if json.Unmarshal(ev.Data, &p) != nil {
			return
		}
		if p.Step == store.StepEmbed && p.Total > 0 {
			rate := float64(p.Done) / max(time.Since(start).Seconds(), 0.001)
			eta := time.Duration(float64(p.Total-p.Done)/max(rate, 0.001)) * time.Second
			fmt.Fprintf(w, "\rembedding %d/%d messages, %.1f/s, about %s left   ", p.Done, p.Total, rate, eta.Round(time.Second))
			inLine = true
			return
		}
		if inLine {
			fmt.Fprintln(w)
			inLine = false
		}
		if p.Table != "" {
			fmt.Fprintf(w, "%s: %s\n", p.Step, p.Table)
		}
	}
}

func newOptimizeCmd() *cobra.Command {
	var runDue, embedRows, force, compact, index, prune bool
	var keep time.Duration
	var batch int
	var format string
	cmd := &cobra.Command{
		Use:   "optimize",
		Short: "Show what upkeep the archive needs; --run (or a step's flag) does it",
		Long: `Live capture commits often: every commit leaves a table version and a small fragment, and new
messages wait to be embedded and indexed. A running daemon does this upkeep by itself; optimize
shows it and does it on request, through the daemon when one runs.

With no flags, optimize measures (cheaply: no scan of texts or vectors) and prints what needs
doing, each with the command that does it. --run does every step that is due; a step's flag
runs that step whatever the measurements say:

  --embed     embed the messages that have no vector yet with the installed model (see
              ` + "`pond model install`" + `), in batches, each committed as it is done: Ctrl-C stops
              after the current batch and the next run goes on from there. Full-text search
              keeps working meanwhile. --force-embed also re-embeds messages another model
              embedded, after you change models.
  --compact   merge small fragments (up to 100,000 rows each)
  --index     fold new rows into the full-text and vector indexes; build the text index past
              20,000 messages and the vector index from 100,000 embedded ones
  --prune     remove table versions older than --keep-versions (default 1h)

Examples:
  pond optimize
  pond optimize --run
  pond optimize --embed
  pond optimize --compact --prune --keep-versions 10m
  pond optimize --force-embed --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			req := &apitype.OptimizeRequest{ForceEmbed: force, BatchRows: batch}
			for i, on := range []bool{embedRows, compact, index, prune} {
				if on {
					req.Steps = append(req.Steps, string(store.Steps[i]))
				}
			}
			req.DryRun = len(req.Steps) == 0 && !force && !runDue
			if keep < 0 {
				return &exitError{code: 2, err: errors.New("--keep-versions must be 0 or more")}
			}
			secs := int64(keep / time.Second)
			req.KeepVersionsSecs = &secs
			var progress func(apitype.Event)
			if isTerminal(os.Stderr) && format != "json" && !req.DryRun {
				progress = upkeepProgress(os.Stderr)
			}
			notify := func(s string) { fmt.Fprintln(cmd.ErrOrStderr(), s) }
			resp, err := writerFor(ctx).Optimize(ctx, req, progress, notify)
			if err != nil {
				if ctx.Err() != nil {
					return &exitError{code: 130, err: errors.New("interrupted: what was done is kept; run the same command again to go on")}
				}
				return err
			}
			rep, err := optimizeReportOf(resp)
			if err != nil {
				return err
			}
			return render(cmd.OutOrStdout(), format, rep, rep.text)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&runDue, "run", false, "run every step that is due")
	f.BoolVar(&embedRows, "embed", false, "embed messages that have no vector yet (needs an installed model: pond model install)")
	f.BoolVar(&force, "force-embed", false, "also re-embed messages another model embedded (implies --embed)")
	f.BoolVar(&compact, "compact", false, "merge small fragments")
	f.BoolVar(&index, "index", false, "fold new rows into the indexes; build them once the archive is large enough")
	f.BoolVar(&prune, "prune", false, "remove table versions older than --keep-versions")
	f.DurationVar(&keep, "keep-versions", store.KeepVersions, "versions replaced longer ago than this count as old (0: every replaced version)")
	f.IntVar(&batch, "batch", 256, "messages embedded and committed at once")
	addFormatFlag(cmd, &format)
	return cmd
}
