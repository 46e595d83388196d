package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pondhq/pond/store/lance"
)

// Upkeep is what keeps the archive small and fast as it grows: the daemon runs it between
// captures and `pond optimize` on request, both through Diagnose and Upkeep. Live capture
// commits often, and every commit is a table version and a small fragment, so without it the
// tables, their manifests and the disk grow without bound.

// KeepVersions is how long upkeep keeps a table version once a newer one replaced it: a reader
// still on it (a long query, a process that opened the archive earlier) is not cut off, and
// live capture's many commits do not pile up on disk.
const KeepVersions = time.Hour

// compactAtSmallFragments is how many small fragments make compaction due for a table: each
// scan and query pays per fragment, and every sync adds one.
const compactAtSmallFragments = 8

// fragmentRows is the size compaction merges small fragments up to, and Lance's own bound for
// "small" in its statistics. Lance's default target, a million rows, would rewrite a
// gigabyte-sized messages fragment each time a few new rows joined it; a fragment this size is
// left alone once full.
const fragmentRows = 100_000

// Step is one kind of upkeep work.
type Step string

// The steps, in the order Upkeep runs them: embedding first, as it leaves fragments to compact
// and rows to index.
const (
	StepEmbed   Step = "embed"   // embed the messages that have no vector yet
	StepCompact Step = "compact" // merge small fragments
	StepIndex   Step = "index"   // fold new rows into the indexes; build the text and vector indexes once due
	StepPrune   Step = "prune"   // remove table versions older than the keep time
)

// Steps lists every step in the order Upkeep runs them.
var Steps = []Step{StepEmbed, StepCompact, StepIndex, StepPrune}

// ParseStep reads a step's name.
func ParseStep(s string) (Step, error) {
	for _, st := range Steps {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("unknown upkeep step %q (want embed, compact, index or prune)", s)
}

// Diagnosis is what upkeep finds to do, from measurements cheap enough to take often.
type Diagnosis struct {
	Tables      []TableState `json:"tables"`
	TextIndex   IndexState   `json:"text_index"`
	VectorIndex IndexState   `json:"vector_index"`
	// FilterIndexes are the scalar indexes of the columns search filters name (filterIndexes):
	// Exists when all are built, built together with the text index.
	FilterIndexes IndexState `json:"filter_indexes"`
	Embeddings    Coverage   `json:"embeddings"`
	// KeepVersionsSecs is the age past which a replaced version counts as old.
	KeepVersionsSecs int64 `json:"keep_versions_secs"`
	// Due is the work the measurements call for, in the order Upkeep runs it.
	Due []Due `json:"due"`
}

// TableState is one Lance table's layout.
type TableState struct {
	Table          string `json:"table"`
	Rows           int64  `json:"rows"`
	Bytes          int64  `json:"bytes"`
	Fragments      int    `json:"fragments"`
	SmallFragments int    `json:"small_fragments"` // under 100,000 rows
	Versions       int    `json:"versions"`        // kept on disk
	OldVersions    int    `json:"old_versions"`    // of them, replaced longer ago than the keep time
	UnindexedRows  int64  `json:"unindexed_rows"`  // rows an index of the table does not cover yet (the most of any index)
}

// IndexState is the text or the vector index of the messages table.
type IndexState struct {
	Exists        bool  `json:"exists"`
	UnindexedRows int64 `json:"unindexed_rows,omitempty"`
	// Rows is what decides when the index is built: messages for the text index, embedded
	// messages for the vector index. BuildDue says Rows reached the threshold BuildAt and the
	// index does not exist yet.
	Rows     int64 `json:"rows"`
	BuildAt  int64 `json:"build_at"`
	BuildDue bool  `json:"build_due,omitempty"`
}

// Coverage is how much of the archive has vectors.
type Coverage struct {
	// Model is the embedder's (empty: semantic search is off, and embedding is never due).
	Model string `json:"model,omitempty"`
	EmbedCounts
}

// Due is one step upkeep should run, and why.
type Due struct {
	Step Step   `json:"step"`
	Why  string `json:"why"`
}

// IsDue reports whether step is due.
func (d *Diagnosis) IsDue(step Step) bool {
	return slices.ContainsFunc(d.Due, func(x Due) bool { return x.Step == step })
}

// keepCutoff is the commit time before which a replaced version is old. A negative keep counts
// every replaced version as old.
func keepCutoff(keep time.Duration) (time.Time, int64) {
	if keep < 0 {
		keep = 0
	}
	return time.Now().Add(-keep), int64(keep / time.Second)
}

// Diagnose measures what upkeep has to do: table and index statistics, the version manifests
// on disk and counts over small columns, never a scan of texts or vectors (about a second at a
// million messages), so the daemon can ask after every round of captures. keep is the age past
// which a replaced version is old (0: KeepVersions; negative: any).
func (s *Store) Diagnose(ctx context.Context, keep time.Duration) (*Diagnosis, error) {
	cutoff, keepSecs := keepCutoff(cmp.Or(keep, KeepVersions))
	d := &Diagnosis{KeepVersionsSecs: keepSecs, Due: []Due{}}
	filters := 0
	for _, name := range tableNames {
		t := s.tables[name]
		st, err := t.Stats(ctx)
		if err != nil {
			return nil, err
		}
		v, err := t.Versions(ctx, cutoff)
		if err != nil {
			return nil, err
		}
		ixs, err := t.Indexes(ctx)
		if err != nil {
			return nil, err
		}
		ts := TableState{Table: name, Rows: st.Rows, Bytes: st.Bytes, Fragments: st.Fragments, SmallFragments: st.SmallFragments,
			Versions: v.Kept, OldVersions: v.Older}
		for _, ix := range ixs {
			var un int64
			if ix.UnindexedRows != nil {
				un = *ix.UnindexedRows
			}
			ts.UnindexedRows = max(ts.UnindexedRows, un)
			switch {
			case name != TableMessages:
			case ix.Name == textIndexName:
				d.TextIndex.Exists, d.TextIndex.UnindexedRows = true, un
			case isCurrentVectorIndex(ix):
				d.VectorIndex.Exists, d.VectorIndex.UnindexedRows = true, un
			case slices.ContainsFunc(filterIndexes, func(f lance.IndexSpec) bool { return f.Name == ix.Name }):
				filters++
				d.FilterIndexes.UnindexedRows = max(d.FilterIndexes.UnindexedRows, un)
			}
		}
		if name == TableMessages {
			d.TextIndex.Rows, d.FilterIndexes.Rows = st.Rows, st.Rows
		}
		d.Tables = append(d.Tables, ts)
	}
	var err error
	if e := s.Embedder(); e != nil {
		d.Embeddings.Model = e.Model()
	}
	if d.Embeddings.EmbedCounts, err = s.EmbedCounts(ctx, d.Embeddings.Model); err != nil {
		return nil, err
	}
	d.TextIndex.BuildAt = int64(s.textIndex.limit())
	d.TextIndex.BuildDue = !d.TextIndex.Exists && d.TextIndex.Rows >= d.TextIndex.BuildAt
	d.FilterIndexes.Exists, d.FilterIndexes.BuildAt = filters == len(filterIndexes), d.TextIndex.BuildAt
	d.FilterIndexes.BuildDue = !d.FilterIndexes.Exists && d.FilterIndexes.Rows >= d.FilterIndexes.BuildAt
	d.VectorIndex.Rows, d.VectorIndex.BuildAt = d.Embeddings.Embedded, s.vectorIndexMinRows()
	d.VectorIndex.BuildDue = !d.VectorIndex.Exists && d.VectorIndex.Rows >= d.VectorIndex.BuildAt
	d.Due = d.due()
	return d, nil
}

// due decides the work from the measurements.
func (d *Diagnosis) due() []Due {
	out := []Due{}
	add := func(step Step, parts []string) {
		if len(parts) > 0 {
			out = append(out, Due{Step: step, Why: strings.Join(parts, "; ")})
		}
	}
	if c := d.Embeddings; c.Model != "" && c.Pending > 0 {
		add(StepEmbed, []string{fmt.Sprintf("%d of %d searchable messages without a vector", c.Pending, c.Searchable)})
	}
	var compact, index, prune []string
	for _, t := range d.Tables {
		if t.SmallFragments >= compactAtSmallFragments {
			compact = append(compact, fmt.Sprintf("%s: %d small fragments", t.Table, t.SmallFragments))
		}
		if t.UnindexedRows > 0 {
			index = append(index, fmt.Sprintf("%s: %d rows not in its indexes", t.Table, t.UnindexedRows))
		}
		if t.OldVersions > 0 {
			prune = append(prune, fmt.Sprintf("%s: %d old versions", t.Table, t.OldVersions))
		}
	}
	if d.TextIndex.BuildDue {
		index = append(index, fmt.Sprintf("text index due (%d messages)", d.TextIndex.Rows))
	}
	if d.FilterIndexes.BuildDue {
		index = append(index, fmt.Sprintf("filter indexes due (%d messages)", d.FilterIndexes.Rows))
	}
	if d.VectorIndex.BuildDue {
		index = append(index, fmt.Sprintf("vector index due (%d embedded messages)", d.VectorIndex.Rows))
	}
	add(StepCompact, compact)
	add(StepIndex, index)
	add(StepPrune, prune)
	return out
}

// UpkeepOptions choose what Upkeep does.
type UpkeepOptions struct {
	// Steps are run whatever the measurements say; none runs the steps that are due, measured
	// again after embedding (which adds fragments and unindexed rows).
	Steps []Step
	// KeepVersions is the age past which prune removes a replaced version (0: KeepVersions;
	// negative: every replaced version).
	KeepVersions time.Duration
	// Embedding: re-embed messages of other models too (ForceEmbed), stop after about
	// EmbedLimit messages (0: all; the rest stays due), BatchRows per commit (0: 256).
	ForceEmbed bool
	EmbedLimit int
	BatchRows  int
	// Hold, when set, is held around every commit (see BackfillOptions.Hold).
	Hold Hold
	// Progress, when set, is told as each step starts and after every embedded batch.
	Progress func(UpkeepProgress)
	// Diagnosis, when set, is a diagnosis just taken to act on, instead of measuring again.
	Diagnosis *Diagnosis
}

// UpkeepProgress is where an upkeep run is.
type UpkeepProgress struct {
	Step  Step   `json:"step"`
	Table string `json:"table,omitempty"`
	Done  int    `json:"done,omitempty"` // embedding: messages embedded so far, of Total
	Total int    `json:"total,omitempty"`
}

// UpkeepReport is what an upkeep run did.
type UpkeepReport struct {
	// Before is the diagnosis the run acted on.
	Before        *Diagnosis      `json:"-"`
	Ran           []Step          `json:"ran"`
	Embed         *BackfillReport `json:"embed,omitempty"`
	Tables        []TableUpkeep   `json:"tables,omitempty"`
	SearchIndexes string          `json:"search_indexes,omitempty"`
	VectorIndex   string          `json:"vector_index,omitempty"`
	// After is the diagnosis once the run finished: what is still to do.
	After   *Diagnosis    `json:"after,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// TableUpkeep is what a run did to one table.
type TableUpkeep struct {
	Table           string `json:"table"`
	FragmentsBefore int    `json:"fragments_before"`
	FragmentsAfter  int    `json:"fragments_after"`
	lance.OptimizeResult
}

// Upkeep runs the steps opts asks for (by default the due ones) and reports what it did and
// what is still due. Each commit takes the store lock (and opts.Hold); embedding, the slow
// part, holds neither, so the daemon's syncs go on meanwhile. An error stops the run: what was
// committed stays, and the report says how far it came.
func (s *Store) Upkeep(ctx context.Context, opts UpkeepOptions) (*UpkeepReport, error) {
	start := time.Now()
	rep := &UpkeepReport{Ran: []Step{}}
	tables := map[string]*TableUpkeep{}
	finish := func(err error) (*UpkeepReport, error) {
		if err == nil {
			rep.After, err = s.Diagnose(ctx, opts.KeepVersions)
		}
		for _, name := range tableNames {
			if tu := tables[name]; tu != nil {
				rep.Tables = append(rep.Tables, *tu)
			}
		}
		rep.Elapsed = time.Since(start)
		return rep, err
	}
	progress := func(p UpkeepProgress) {
		if opts.Progress != nil {
			opts.Progress(p)
		}
	}
	d := opts.Diagnosis
	if d == nil {
		var err error
		if d, err = s.Diagnose(ctx, opts.KeepVersions); err != nil {
			return finish(err)
		}
	}
	rep.Before = d
	asked := func(step Step) bool {
		if len(opts.Steps) > 0 {
			return slices.Contains(opts.Steps, step)
		}
		return d.IsDue(step)
	}
	forced := len(opts.Steps) > 0

	if asked(StepEmbed) {
		e := s.Embedder()
		if e == nil {
			return finish(ErrEmbeddingsOff)
		}
		rep.Ran = append(rep.Ran, StepEmbed)
		progress(UpkeepProgress{Step: StepEmbed, Total: int(d.Embeddings.Pending)})
		br, err := s.Backfill(ctx, e, BackfillOptions{Force: opts.ForceEmbed, BatchRows: opts.BatchRows, Limit: opts.EmbedLimit, Hold: opts.Hold,
			Progress: func(p BackfillProgress) { progress(UpkeepProgress{Step: StepEmbed, Done: p.Done, Total: p.Total}) }})
		rep.Embed = &br
		if err != nil {
			return finish(err)
		}
		if br.Embedded > 0 {
			if d, err = s.Diagnose(ctx, opts.KeepVersions); err != nil {
				return finish(err)
			}
		}
	}
	table := func(ts TableState) *TableUpkeep {
		if tables[ts.Table] == nil {
			tables[ts.Table] = &TableUpkeep{Table: ts.Table, FragmentsBefore: ts.Fragments, FragmentsAfter: ts.Fragments}
		}
		return tables[ts.Table]
	}
	optimize := func(step Step, ts TableState, spec lance.OptimizeSpec) error {
		progress(UpkeepProgress{Step: step, Table: ts.Table})
		res, err := s.optimizeTable(ctx, opts.Hold, ts.Table, spec)
		if err != nil {
			return err
		}
		tu := table(ts)
		if c := res.Compaction; c != nil {
			tu.Compaction = c
			tu.FragmentsAfter = tu.FragmentsBefore - c.FragmentsRemoved + c.FragmentsAdded
		}
		tu.IndexesFolded = tu.IndexesFolded || res.IndexesFolded
		if res.Prune != nil {
			tu.Prune = res.Prune
		}
		return nil
	}
	if asked(StepCompact) {
		rep.Ran = append(rep.Ran, StepCompact)
		for _, ts := range d.Tables {
			if forced && ts.Fragments > 1 || ts.SmallFragments >= compactAtSmallFragments {
				if err := optimize(StepCompact, ts, lance.OptimizeSpec{Compact: true, TargetRowsPerFragment: fragmentRows}); err != nil {
					return finish(err)
				}
			}
		}
	}
	if asked(StepIndex) {
		rep.Ran = append(rep.Ran, StepIndex)
		for _, ts := range d.Tables {
			switch {
			case ts.Table == TableMessages && (ts.UnindexedRows > 0 || d.TextIndex.BuildDue || d.FilterIndexes.BuildDue):
				// The search indexes, folded one by one and built when due (see
				// MaintainSearchIndexes); it takes the store lock itself.
				progress(UpkeepProgress{Step: StepIndex, Table: ts.Table})
				if err := held(ctx, opts.Hold, func() (err error) { rep.SearchIndexes, err = s.MaintainSearchIndexes(ctx, true); return err }); err != nil {
					return finish(err)
				}
				table(ts).IndexesFolded = ts.UnindexedRows > 0
			case ts.UnindexedRows > 0:
				if err := optimize(StepIndex, ts, lance.OptimizeSpec{Index: true}); err != nil {
					return finish(err)
				}
			}
		}
		if !d.VectorIndex.Exists && (forced || d.VectorIndex.BuildDue) {
			var built bool
			if err := held(ctx, opts.Hold, func() (err error) { built, err = s.EnsureVectorIndex(ctx); return err }); err != nil {
				return finish(err)
			}
			if built {
				rep.VectorIndex = fmt.Sprintf("vector index: built over %d embedded messages", d.VectorIndex.Rows)
			}
		}
	}
	if asked(StepPrune) {
		rep.Ran = append(rep.Ran, StepPrune)
		_, keepSecs := keepCutoff(cmp.Or(opts.KeepVersions, KeepVersions))
		for _, ts := range d.Tables {
			if ts.OldVersions > 0 || forced {
				if err := optimize(StepPrune, ts, lance.OptimizeSpec{PruneOlderThanSecs: &keepSecs}); err != nil {
					return finish(err)
				}
			}
		}
	}
	return finish(nil)
}

// optimizeTable runs one part of Lance's optimize on a table, in hold and under the store lock.
func (s *Store) optimizeTable(ctx context.Context, hold Hold, name string, spec lance.OptimizeSpec) (res lance.OptimizeResult, err error) {
	err = held(ctx, hold, func() error {
		lock, err := AcquireLock(ctx, s.opts.StateDir, s.opts.Command, func(h Holder) {
			s.log.Info("store: upkeep waiting for the store lock", "holder", h.String())
		})
		if err != nil {
			return err
		}
		defer lock.Release()
		if res, err = s.tables[name].Optimize(ctx, spec); err != nil {
			return fmt.Errorf("store: upkeep of %s: %w", name, err)
		}
		if spec.Index && name == TableMessages {
			s.textIndex.checkedAt.Store(0) // the text index may serve queries again
		}
		return nil
	})
	return res, err
}

// Summary says in a line per step what the run did, for logs, status and the CLI.
func (r *UpkeepReport) Summary() []string {
	var out []string
	if e := r.Embed; e != nil {
		line := fmt.Sprintf("embedded %d messages with %s", e.Embedded, e.Model)
		if e.Embedded > 0 && e.Elapsed > 0 {
			line += fmt.Sprintf(" (%.1f/s)", float64(e.Embedded)/e.Elapsed.Seconds())
		}
		if e.Truncated > 0 {
			line += fmt.Sprintf(", %d long ones from their first tokens only", e.Truncated)
		}
		if e.Remaining > 0 {
			line += fmt.Sprintf("; %d still to embed", e.Remaining)
		}
		out = append(out, line)
	}
	var folded []string
	var versions uint64
	var freed uint64
	for _, t := range r.Tables {
		if c := t.Compaction; c != nil && c.FragmentsRemoved > 0 {
			out = append(out, fmt.Sprintf("compacted %s: %d fragments -> %d", t.Table, t.FragmentsBefore, t.FragmentsAfter))
		}
		if t.IndexesFolded {
			folded = append(folded, t.Table)
		}
		if p := t.Prune; p != nil {
			versions += p.OldVersions
			freed += p.BytesRemoved
		}
	}
	if len(folded) > 0 {
		out = append(out, "folded new rows into the indexes of "+strings.Join(folded, ", "))
	}
	for _, s := range []string{r.SearchIndexes, r.VectorIndex} {
		if s != "" {
			out = append(out, s)
		}
	}
	if versions > 0 {
		out = append(out, fmt.Sprintf("pruned %d old table versions (%.1f MB)", versions, float64(freed)/(1<<20)))
	}
	if len(out) == 0 {
		out = append(out, "nothing needed doing")
	}
	return out
}
