package store

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/pondhq/pond/internal/atomicfile"
	"github.com/pondhq/pond/internal/codepages"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/lance"
)

// Upkeep is what keeps the archive small and fast as it grows: the daemon runs it between
// captures and `pond optimize` on request, both through Diagnose and Upkeep. Live capture
// commits often, and every commit is a table version and a small fragment, so without it the
// tables, their manifests and the disk grow without bound.

// compactAtSmallFragments is how many small fragments make compaction due for a table: each
// scan and query pays per fragment, and every sync adds one.
const compactAtSmallFragments = 8

// fragmentRows is the size compaction merges small fragments up to, and Lance's own bound for
// "small" in its statistics. Lance's default target, a million rows, would rewrite a
// gigabyte-sized messages fragment each time a few new rows joined it; a fragment this size is
// left alone once full.
const fragmentRows = 100_000

// mtimeSlack is how far a file's modification time may trail the moment it was written: a
// file system may stamp files from a clock that ticks every few milliseconds.
const mtimeSlack = 50 * time.Millisecond

// pruneCutoff is the time before which a replaced version is old: a local table's versions
// replaced before it, an object store's committed before it (see Diagnose). It is keep ago
// (see view.KeepFor), or earlier when a read that may be on a version replaced since is still
// running: one through this process's tables, or a read-only store's on this local archive
// (readers.go).
func (s *Store) pruneCutoff(keep time.Duration) (cutoff time.Time, keepSecs int64) {
	loc := s.db.Location()
	keep = view.KeepFor(keep, loc.Remote())
	cutoff = time.Now().Add(-keep)
	// A manifest's modification time may trail its commit by a tick of the file system's
	// clock: a version replaced just after the read began must not look replaced before it.
	if r, ok := s.db.OldestRead(); ok && r.Add(-mtimeSlack).Before(cutoff) {
		cutoff = r.Add(-mtimeSlack)
	}
	if !loc.Remote() {
		if r, ok := oldestReader(loc.Dir()); ok && r.Add(-mtimeSlack).Before(cutoff) {
			cutoff = r.Add(-mtimeSlack)
		}
	}
	return cutoff, int64(keep / time.Second)
}

// Diagnose measures what upkeep has to do: table and index statistics, the version manifests
// on disk and counts over small columns, never a scan of texts or vectors (about a second at a
// million messages), so the daemon can ask after every round of captures. keep is the age past
// which a replaced version is old (0: view.KeepFor's default; negative: any).
func (s *Store) Diagnose(ctx context.Context, keep time.Duration) (*view.Diagnosis, error) {
	cutoff, keepSecs := s.pruneCutoff(keep)
	d := &view.Diagnosis{KeepVersionsSecs: keepSecs, KeepDefault: keep == 0, Due: []view.Due{}}
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
		if t.Location().Remote() {
			// An object store's manifests are not listed here (a request per thousand, and the
			// server's clock): the commits since this machine last pruned stand in for them.
			if v.Older, err = s.commitsSincePrune(ctx, name); err != nil {
				return nil, err
			}
		}
		ixs, err := t.Indexes(ctx)
		if err != nil {
			return nil, err
		}
		ts := view.TableState{Table: name, Rows: st.Rows, Bytes: st.Bytes, Fragments: st.Fragments, SmallFragments: st.SmallFragments,
			Versions: v.Kept, OldVersions: v.Older}
		for _, ix := range ixs {
			var un int64
			if ix.UnindexedRows != nil {
				un = *ix.UnindexedRows
			}
			ts.UnindexedRows = max(ts.UnindexedRows, un)
			switch {
			case name == TableParts && ix.Name == partsSessionIndex.Name:
				filters++
				d.FilterIndexes.UnindexedRows = max(d.FilterIndexes.UnindexedRows, un)
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
	d.FilterIndexes.Exists, d.FilterIndexes.BuildAt = filters == len(filterIndexes)+1, d.TextIndex.BuildAt // and partsSessionIndex
	d.FilterIndexes.BuildDue = !d.FilterIndexes.Exists && d.FilterIndexes.Rows >= d.FilterIndexes.BuildAt
	d.VectorIndex.Rows, d.VectorIndex.BuildAt = d.Embeddings.Embedded, s.vectorIndexMinRows()
	d.VectorIndex.BuildDue = !d.VectorIndex.Exists && d.VectorIndex.Rows >= d.VectorIndex.BuildAt
	d.Due = due(d)
	return d, nil
}

// due decides the work from the measurements.
func due(d *view.Diagnosis) []view.Due {
	out := []view.Due{}
	add := func(step view.Step, parts []string) {
		if len(parts) > 0 {
			out = append(out, view.Due{Step: step, Why: strings.Join(parts, "; ")})
		}
	}
	if c := d.Embeddings; c.Model != "" && c.Pending > 0 {
		add(view.StepEmbed, []string{fmt.Sprintf("%d of %d searchable messages without a vector", c.Pending, c.Searchable)})
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
	add(view.StepCompact, compact)
	add(view.StepIndex, index)
	add(view.StepPrune, prune)
	return out
}

// UpkeepOptions choose what Upkeep does.
type UpkeepOptions struct {
	// Steps are run whatever the measurements say; none runs the steps that are due, measured
	// again after embedding (which adds fragments and unindexed rows).
	Steps []view.Step
	// KeepVersions is the age past which prune removes a replaced version (0: the default for
	// where the tables are, see view.KeepFor; negative: every replaced version).
	KeepVersions time.Duration
	// Embedding: re-embed messages of other models too (ForceEmbed), stop after about
	// EmbedLimit messages (0: all; the rest stays due), BatchRows per commit (0: 256).
	ForceEmbed bool
	EmbedLimit int
	BatchRows  int
	// Hold, when set, is held around every commit (see BackfillOptions.Hold).
	Hold Hold
	// Progress, when set, is told as each step starts and after every embedded batch.
	Progress func(view.UpkeepProgress)
	// Diagnosis, when set, is a diagnosis just taken to act on, instead of measuring again.
	Diagnosis *view.Diagnosis
}

// upkeepLeaseTTL bounds how long a machine that died in an upkeep or erase keeps the others
// from theirs.
const upkeepLeaseTTL = time.Hour

// Upkeep runs the steps opts asks for (by default the due ones) and reports what it did and
// what is still due. Each commit takes the store lock (and opts.Hold); embedding, the slow
// part, holds neither, so the daemon's syncs go on meanwhile. An error stops the run: what was
// committed stays, and the report says how far it came.
func (s *Store) Upkeep(ctx context.Context, opts UpkeepOptions) (*view.UpkeepReport, error) {
	start := time.Now()
	rep := &view.UpkeepReport{Ran: []view.Step{}}
	tables := map[string]*view.TableUpkeep{}
	finish := func(err error) (*view.UpkeepReport, error) {
		if err == nil {
			rep.After, err = s.Diagnose(ctx, opts.KeepVersions)
		}
		for _, name := range tableNames {
			if tu := tables[name]; tu != nil {
				rep.Tables = append(rep.Tables, *tu)
			}
		}
		rep.Elapsed = time.Since(start)
		ReleaseMemory()
		return rep, err
	}
	progress := func(p view.UpkeepProgress) {
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
	asked := func(step view.Step) bool {
		if len(opts.Steps) > 0 {
			return slices.Contains(opts.Steps, step)
		}
		return d.IsDue(step)
	}
	forced := len(opts.Steps) > 0

	if asked(view.StepEmbed) {
		e := s.Embedder()
		if e == nil {
			return finish(ErrEmbeddingsOff)
		}
		rep.Ran = append(rep.Ran, view.StepEmbed)
		progress(view.UpkeepProgress{Step: view.StepEmbed, Total: int(d.Embeddings.Pending)})
		br, err := s.Backfill(ctx, e, BackfillOptions{Force: opts.ForceEmbed, BatchRows: opts.BatchRows, Limit: opts.EmbedLimit, Hold: opts.Hold,
			Progress: func(p BackfillProgress) {
				progress(view.UpkeepProgress{Step: view.StepEmbed, Done: p.Done, Total: p.Total})
			}})
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
	table := func(ts view.TableState) *view.TableUpkeep {
		if tables[ts.Table] == nil {
			tables[ts.Table] = &view.TableUpkeep{Table: ts.Table, FragmentsBefore: ts.Fragments, FragmentsAfter: ts.Fragments}
		}
		return tables[ts.Table]
	}
	// optimize runs spec on a table and adds what it did to the table's report (a compaction
	// in rounds, with prunes between them, calls it several times).
	optimize := func(step view.Step, ts view.TableState, spec lance.OptimizeSpec) (lance.OptimizeResult, error) {
		progress(view.UpkeepProgress{Step: step, Table: ts.Table})
		res, err := s.optimizeTable(ctx, opts.Hold, ts.Table, spec)
		if err != nil {
			return res, err
		}
		tu := table(ts)
		if c := res.Compaction; c != nil {
			if tu.Compaction == nil {
				tu.Compaction = &view.Compaction{}
			}
			tu.Compaction.FragmentsRemoved += c.FragmentsRemoved
			tu.Compaction.FragmentsAdded += c.FragmentsAdded
			tu.Compaction.FilesRemoved += c.FilesRemoved
			tu.Compaction.FilesAdded += c.FilesAdded
			tu.FragmentsAfter = tu.FragmentsBefore - tu.Compaction.FragmentsRemoved + tu.Compaction.FragmentsAdded
		}
		tu.IndexesFolded = tu.IndexesFolded || res.IndexesFolded
		if p := res.Prune; p != nil {
			if tu.Prune == nil {
				tu.Prune = &view.Prune{}
			}
			tu.Prune.BytesRemoved += p.BytesRemoved
			tu.Prune.OldVersions += p.OldVersions
		}
		return res, nil
	}
	// In an archive other machines share, compaction, index builds and version cleanup run on
	// one machine at a time (lease.go); another's turn leaves them to the next run.
	if asked(view.StepCompact) || asked(view.StepIndex) || asked(view.StepPrune) {
		lease, err := s.acquireLease(ctx, LeaseUpkeep, upkeepLeaseTTL)
		var busy *LeaseBusyError
		if errors.As(err, &busy) {
			rep.Deferred = busy.Error()
			return finish(nil)
		}
		if err != nil {
			return finish(err)
		}
		defer lease.Release(context.WithoutCancel(ctx))
	}
	// timed notes how long a step took that began at began (the report's StepTimes).
	timed := func(step view.Step, began time.Time) {
		rep.StepTimes = append(rep.StepTimes, view.StepTime{Step: step, Elapsed: time.Since(began)})
	}
	compactStep := func(roundRows int) error {
		began := time.Now()
		rep.Ran = append(rep.Ran, view.StepCompact)
		for _, ts := range d.Tables {
			if forced && ts.Fragments > 1 || ts.SmallFragments >= compactAtSmallFragments {
				if err := s.compact(ts, opts.KeepVersions, roundRows, optimize); err != nil {
					return err
				}
			}
		}
		timed(view.StepCompact, began)
		return nil
	}
	indexStep := func() error {
		began := time.Now()
		rep.Ran = append(rep.Ran, view.StepIndex)
		for _, ts := range d.Tables {
			switch {
			case ts.Table == TableMessages && (ts.UnindexedRows > 0 || d.TextIndex.BuildDue || d.FilterIndexes.BuildDue):
				// The search indexes, folded one by one and built when due (see
				// MaintainSearchIndexes); it takes the store lock itself.
				progress(view.UpkeepProgress{Step: view.StepIndex, Table: ts.Table})
				if err := held(ctx, opts.Hold, func() (err error) { rep.SearchIndexes, err = s.MaintainSearchIndexes(ctx, true); return err }); err != nil {
					return err
				}
				table(ts).IndexesFolded = ts.UnindexedRows > 0
			case ts.UnindexedRows > 0:
				if _, err := optimize(view.StepIndex, ts, lance.OptimizeSpec{Index: true}); err != nil {
					return err
				}
			}
		}
		if !d.VectorIndex.Exists && (forced || d.VectorIndex.BuildDue) {
			var built bool
			if err := held(ctx, opts.Hold, func() (err error) { built, err = s.EnsureVectorIndex(ctx); return err }); err != nil {
				return err
			}
			if built {
				rep.VectorIndex = fmt.Sprintf("vector index: built over %d embedded messages", d.VectorIndex.Rows)
			}
		}
		timed(view.StepIndex, began)
		return nil
	}
	// Compaction usually comes first, so that index folds cover the merged fragments. The text
	// index's first build (after a first sync or an import) comes before it instead, since it
	// is what search waits for: at 500,000 messages search was at its speed 62-66 s into the
	// upkeep instead of 105-113 s (docs/benchmarks.md, 2026-12-07, second session). The
	// compaction that follows carries every index over to the merged fragments, a rewrite of
	// each index per commit, so it commits once rather than in rounds (three rounds' rewrites
	// cost 18 s there; the one commit, its rewrite included, took 27-32 s against the rounds'
	// 38-40 s with no index to rewrite).
	// The archive then holds both copies of the tables until that prune: at its largest 1.87
	// times its sources there, against 1.50 in rounds.
	switch {
	case asked(view.StepIndex) && asked(view.StepCompact) && d.TextIndex.BuildDue:
		if err := indexStep(); err != nil {
			return finish(err)
		}
		if err := compactStep(oneRound); err != nil {
			return finish(err)
		}
	default:
		if asked(view.StepCompact) {
			if err := compactStep(0); err != nil {
				return finish(err)
			}
		}
		if asked(view.StepIndex) {
			if err := indexStep(); err != nil {
				return finish(err)
			}
		}
	}
	if asked(view.StepPrune) {
		rep.Ran = append(rep.Ran, view.StepPrune)
		cutoff, _ := s.pruneCutoff(opts.KeepVersions)
		// An object store's versions are pruned by commit time (their replacing commits are
		// not listed: see Diagnose).
		remoteSecs := int64(time.Since(cutoff) / time.Second)
		for _, ts := range d.Tables {
			if ts.OldVersions > 0 || forced {
				if _, err := optimize(view.StepPrune, ts, lance.OptimizeSpec{PruneReplacedBefore: cutoff, PruneOlderThanSecs: &remoteSecs}); err != nil {
					return finish(err)
				}
				if err := s.notePrune(ctx, ts.Table); err != nil {
					return finish(err)
				}
			}
		}
	}
	return finish(nil)
}

// compactRoundRows bounds the rows one round of compaction rewrites (one output fragment):
// the archive grows by what a round writes, until the prune after it.
const compactRoundRows = fragmentRows

// oneRound, as compact's roundRows, takes every group of the compaction's plan in one round.
const oneRound = math.MaxInt32

// compact merges a table's small fragments. A local table whose replaced versions are kept for
// no set time is compacted in rounds of roundRows (0: compactRoundRows), each round's replaced
// files removed before the next writes more, and the last round's before the index folds that
// follow: a compaction rewrites a table whole after a first sync or an import, and done at once
// it holds the old files beside the new until the prune after it. Upkeep asks for one round
// when the indexes were just built (see Upkeep).
func (s *Store) compact(ts view.TableState, keep time.Duration, roundRows int,
	optimize func(view.Step, view.TableState, lance.OptimizeSpec) (lance.OptimizeResult, error)) error {
	spec := lance.OptimizeSpec{Compact: true, TargetRowsPerFragment: cmp.Or(s.fragmentRows, fragmentRows)}
	remote := s.db.Location().Remote()
	if remote || view.KeepFor(keep, remote) != 0 {
		_, err := optimize(view.StepCompact, ts, spec)
		return err
	}
	spec.RoundRows = cmp.Or(roundRows, s.roundRows, compactRoundRows)
	for {
		res, err := optimize(view.StepCompact, ts, spec)
		if err != nil {
			return err
		}
		cutoff, _ := s.pruneCutoff(keep)
		if _, err := optimize(view.StepCompact, ts, lance.OptimizeSpec{PruneReplacedBefore: cutoff}); err != nil || res.CompactionGroupsLeft == 0 {
			return err
		}
	}
}

// ReleaseMemory returns what this process has freed, Go's and the native code's, to the system:
// both runtimes keep freed memory for reuse, and the daemon idles for hours after an upkeep or a
// burst of requests. The program's own code goes too: compaction and index builds run code that
// nothing else does (after the first upkeep of a 500k-message archive, 104–164 MiB of the
// daemon's resident memory was the binary's pages), and what a search needs is read back on its
// next use. Upkeep ends with it; the daemon also calls it once it goes quiet after work.
func ReleaseMemory() {
	debug.FreeOSMemory()
	lance.ReleaseMemory()
	_, _ = codepages.Release() // only an old kernel refuses, and then nothing is lost
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

// remotePruneAfter is how many commits to a table of an archive on an object store make its
// version cleanup due: a sync commits a few times per batch, so a busy day's worth. A variable
// for tests.
var remotePruneAfter uint64 = 200

// prunedFile, in the state directory, records per archive and table the version this machine
// last pruned at (remote archives only: see Diagnose).
const prunedFile = "pruned.json"

// commitsSincePrune is, for an archive on an object store, the commits to table since this
// machine last pruned it, when there are remotePruneAfter of them or more (else 0: not due).
func (s *Store) commitsSincePrune(ctx context.Context, table string) (int, error) {
	v, err := s.tables[table].Version(ctx)
	if err != nil {
		return 0, err
	}
	marks, err := s.readPruned()
	if err != nil {
		return 0, err
	}
	since := v - min(v, marks[s.db.Location().String()+" "+table])
	if since < remotePruneAfter {
		return 0, nil
	}
	return int(since), nil
}

// notePrune records the table's version as pruned at, for an archive on an object store.
func (s *Store) notePrune(ctx context.Context, table string) error {
	if !s.tables[table].Location().Remote() {
		return nil
	}
	v, err := s.tables[table].Version(ctx)
	if err != nil {
		return err
	}
	marks, err := s.readPruned()
	if err != nil {
		return err
	}
	marks[s.db.Location().String()+" "+table] = v
	b, _ := json.MarshalIndent(marks, "", "  ")
	return atomicfile.Write(filepath.Join(s.opts.StateDir, prunedFile), append(b, '\n'), paths.FileMode)
}

func (s *Store) readPruned() (map[string]uint64, error) {
	marks := map[string]uint64{}
	b, err := os.ReadFile(filepath.Join(s.opts.StateDir, prunedFile))
	if errors.Is(err, fs.ErrNotExist) {
		return marks, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &marks)
	}
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", prunedFile, err)
	}
	return marks, nil
}
