package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/lance"
)

// Many small syncs leave a small fragment and a version per commit: the diagnosis says so, and
// the due steps compact, build the text index and prune down to one version per table, with
// every row kept and nothing left due.
func TestUpkeepCompactsIndexesAndPrunes(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	s.textIndex.routeLimit = 20 // the text index is due from 20 messages
	for i := range compactAtSmallFragments + 1 {
		upsert(t, s, everyKind(fmt.Sprintf("s%d", i)))
	}
	counts, err := s.Mirror().Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// Versions are old only past a keep time given; none is old yet.
	d, err := s.Diagnose(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if d.KeepVersionsSecs != 3600 || d.KeepDefault || d.IsDue(view.StepPrune) {
		t.Fatalf("keep time of an hour: %d s (default %v), due %v; want no pruning yet", d.KeepVersionsSecs, d.KeepDefault, d.Due)
	}
	// A local archive's default keeps none that no read is on.
	d, err = s.Diagnose(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.KeepVersionsSecs != 0 || !d.KeepDefault {
		t.Fatalf("default keep time of a local archive: %d s (default %v); want 0", d.KeepVersionsSecs, d.KeepDefault)
	}
	for _, ts := range d.Tables {
		if ts.SmallFragments < compactAtSmallFragments || ts.Versions < compactAtSmallFragments || ts.OldVersions != ts.Versions-1 {
			t.Errorf("%s before upkeep: %+v; want a small fragment and a version per sync, all but the latest old", ts.Table, ts)
		}
	}
	if d.TextIndex.Exists || !d.TextIndex.BuildDue {
		t.Errorf("text index before upkeep: %+v; want due", d.TextIndex)
	}
	var due []view.Step
	for _, x := range d.Due {
		due = append(due, x.Step)
	}
	if fmt.Sprint(due) != "[compact index prune]" {
		t.Fatalf("due %+v, want compact, index and prune (no embedder: no embedding)", d.Due)
	}

	var seen []view.UpkeepProgress
	rep, err := s.Upkeep(ctx, UpkeepOptions{Progress: func(p view.UpkeepProgress) { seen = append(seen, p) }})
	if err != nil {
		t.Fatal(err)
	}
	// The text index's first build comes before the compaction (what search waits for first).
	if fmt.Sprint(rep.Ran) != "[index compact prune]" || len(seen) == 0 {
		t.Errorf("ran %v with %d progress calls; want index, compact, prune, with progress", rep.Ran, len(seen))
	}
	if len(rep.StepTimes) != 2 || rep.StepTimes[0].Step != view.StepIndex || rep.StepTimes[1].Step != view.StepCompact ||
		rep.StepTimes[0].Elapsed <= 0 || rep.StepTimes[1].Elapsed <= 0 {
		t.Errorf("step times %+v; want the index step's, then the compaction's", rep.StepTimes)
	}
	if len(rep.After.Due) != 0 {
		t.Errorf("still due after upkeep: %+v", rep.After.Due)
	}
	if !rep.After.TextIndex.Exists || rep.SearchIndexes == "" {
		t.Errorf("text index after upkeep: %+v (%q); want built", rep.After.TextIndex, rep.SearchIndexes)
	}
	for i, ts := range rep.After.Tables {
		was := d.Tables[i]
		if ts.Fragments >= was.Fragments || ts.Rows != was.Rows || ts.Versions != 1 || ts.OldVersions != 0 {
			t.Errorf("%s: %d rows, %d fragments, %d versions -> %+v; want the rows in fewer fragments and one version",
				ts.Table, was.Rows, was.Fragments, was.Versions, ts)
		}
	}
	if len(rep.Tables) != 3 || rep.Tables[1].Compaction == nil || rep.Tables[1].Prune == nil || rep.Tables[1].FragmentsAfter >= rep.Tables[1].FragmentsBefore {
		t.Errorf("report tables %+v; want each compacted and pruned", rep.Tables)
	}
	t.Logf("summary: %q", rep.Summary())

	// The archive reads the same: counts, a search through the new text index, no mirror drift.
	after, err := s.Mirror().Counts(ctx)
	if err != nil || after != counts {
		t.Errorf("counts %+v -> %+v, %v", counts, after, err)
	}
	noDrift(t, s, "drift after upkeep")
	// The compaction moved every row the text index had just indexed: the index it carried over
	// finds them where they are now (the Lance route, taken with the threshold lowered).
	s.textIndex.routeLimit = 1
	res, err := s.Search(ctx, view.SearchRequest{Query: "flaky test", Limit: 50})
	s.textIndex.routeLimit = 20
	if err != nil || !res.MatchedTotalIsLowerBound || len(res.Sessions) != compactAtSmallFragments+1 {
		t.Errorf("search through the text index after the compaction: %d sessions (Lance route %v), %v; want every session",
			len(res.Sessions), res.MatchedTotalIsLowerBound, err)
	}

	// Nothing due: a default run does nothing and commits nothing.
	rep, err = s.Upkeep(ctx, UpkeepOptions{})
	if err != nil || len(rep.Ran) != 0 || len(rep.Tables) != 0 || rep.Summary()[0] != "nothing needed doing" {
		t.Fatalf("idle upkeep: %+v, %v", rep, err)
	}
	for _, ts := range rep.After.Tables {
		if ts.Versions != 1 {
			t.Errorf("%s: %d versions after an idle upkeep, want 1", ts.Table, ts.Versions)
		}
	}

	// With the text index built, compaction comes first again, so that the fold that follows
	// covers the merged fragments.
	for i := range compactAtSmallFragments + 1 {
		upsert(t, s, everyKind(fmt.Sprintf("t%d", i)))
	}
	if rep, err = s.Upkeep(ctx, UpkeepOptions{}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(rep.Ran) != "[compact index prune]" || len(rep.After.Due) != 0 {
		t.Errorf("upkeep with the text index built: ran %v, still due %+v; want compact, index, prune and nothing left", rep.Ran, rep.After.Due)
	}
}

// BenchmarkDiagnose: what the daemon pays each time upkeep looks, on the search benchmark's
// archives (POND_BENCH_1M=1 adds the million-message one). It reads only statistics,
// manifests and small columns, so it must stay far below a scan of texts or vectors.
func BenchmarkDiagnose(b *testing.B) {
	sizes := []int{100_000}
	if os.Getenv("POND_BENCH_1M") == "1" {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			s, _ := benchArchive(b, n)
			s.UseEmbedder(&syntheticEmbedder{})
			ctx := context.Background()
			var d *view.Diagnosis
			for b.Loop() {
				var err error
				if d, err = s.Diagnose(ctx, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.Logf("due: %+v", d.Due)
			// Why the counts filter on embedding_model: the same answers from other columns.
			for _, f := range []string{"embedding_model IS NULL", "vector IS NULL", searchable + " AND vector IS NULL"} {
				began := time.Now()
				n, err := s.Table(TableMessages).Count(ctx, f)
				if err != nil {
					b.Fatal(err)
				}
				b.Logf("count %q: %d in %v", f, n, time.Since(began).Round(time.Millisecond))
			}
		})
	}
}

// A read still running through the store's tables holds the prune's cut-off back: the version
// it reads was replaced after it began, so that version is not old, even with no keep time.
func TestRunningReadHoldsPruneBack(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	upsert(t, s, everyKind("s0"))
	upsert(t, s, everyKind("s1"))
	// The sleeps keep the commits and the read apart by more than a file system's clock tick.
	time.Sleep(100 * time.Millisecond)
	stream, err := s.tables[TableMessages].Query(ctx, lance.Query{BatchRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	time.Sleep(100 * time.Millisecond)
	upsert(t, s, everyKind("s2"))

	messages := func() view.TableState { return messagesState(t, s, -1) }
	if ts := messages(); ts.Versions < 3 || ts.OldVersions != ts.Versions-2 {
		t.Fatalf("messages with a read open: %+v; want every replaced version old but the one the read is on", ts)
	}
	if _, err := s.Upkeep(ctx, UpkeepOptions{Steps: []view.Step{view.StepPrune}, KeepVersions: -1}); err != nil {
		t.Fatal(err)
	}
	if ts := messages(); ts.Versions < 2 || ts.OldVersions != 0 {
		t.Fatalf("messages after a prune with a read open: %+v; want the versions replaced before the read gone, the read's kept", ts)
	}
	for {
		rec, err := stream.Next()
		if err != nil {
			break
		}
		rec.Release()
	}
	if ts := messages(); ts.OldVersions == 0 || ts.OldVersions != ts.Versions-1 {
		t.Fatalf("messages once the read ended: %+v; want the read's version old", ts)
	}
}

// messagesState is the messages table's state in a diagnosis taken with keep.
func messagesState(t *testing.T, s *Store, keep time.Duration) view.TableState {
	t.Helper()
	d, err := s.Diagnose(context.Background(), keep)
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range d.Tables {
		if ts.Table == TableMessages {
			return ts
		}
	}
	t.Fatal("no messages table in the diagnosis")
	return view.TableState{}
}

// A read-only store on a local archive (pond copy's source while the archive's daemon runs)
// keeps the versions it may read from the writer's prune, for as long as it is open; with it
// closed the default keeps no replaced version at all.
func TestReadOnlyStoreHoldsPruneBack(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openTestStore(t, dir)
	upsert(t, s, everyKind("s0"))
	upsert(t, s, everyKind("s1"))
	if ts := messagesState(t, s, 0); ts.OldVersions != ts.Versions-1 {
		t.Fatalf("messages with no read running: %+v; want every replaced version old under the local default", ts)
	}
	// The sleeps keep the commits and the reader's start apart by more than a clock tick.
	time.Sleep(100 * time.Millisecond)
	before := messagesState(t, s, 0).Versions
	ro, err := Open(ctx, Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state"), Command: "test", ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	time.Sleep(100 * time.Millisecond)
	upsert(t, s, everyKind("s2"))
	upsert(t, s, everyKind("s3"))
	if _, err := s.Upkeep(ctx, UpkeepOptions{Steps: []view.Step{view.StepPrune}}); err != nil {
		t.Fatal(err)
	}
	ts := messagesState(t, s, 0)
	if ts.OldVersions != 0 || ts.Versions < 3 {
		t.Fatalf("messages after a prune with a read-only store open since version %d: %+v; want the versions from %d on kept", before, ts, before)
	}
	if n, err := ro.Table(TableMessages).Count(ctx, ""); err != nil || n == 0 {
		t.Fatalf("the read-only store's messages: %d rows, %v", n, err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if ts := messagesState(t, s, 0); ts.OldVersions != ts.Versions-1 {
		t.Fatalf("messages once the read-only store closed: %+v; want every replaced version old", ts)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "data", "lance", readersFolder))
	if err != nil || len(entries) != 0 {
		t.Fatalf("reader files left after close: %v, %v", entries, err)
	}
}

// A reader that died leaves its file unlocked: a prune does not wait for it, and removes it.
func TestDeadReaderIsIgnored(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	upsert(t, s, everyKind("s0"))
	upsert(t, s, everyKind("s1"))
	readers := filepath.Join(dir, "data", "lance", readersFolder)
	if err := os.MkdirAll(readers, 0o700); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(readers, "4242-dead.reader")
	if err := os.WriteFile(dead, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(dead, old, old); err != nil {
		t.Fatal(err)
	}
	if ts := messagesState(t, s, 0); ts.OldVersions != ts.Versions-1 {
		t.Fatalf("messages beside a dead reader's file: %+v; want every replaced version old", ts)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatalf("the dead reader's file: %v; want it removed", err)
	}
}

// A local table is compacted in rounds, what each round replaced removed before the next
// writes: every fragment merged, every row kept, and nothing replaced left behind.
func TestCompactionInRounds(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	s.fragmentRows, s.roundRows = 6, 6 // 27 messages in 9 fragments: about five rounds
	for i := range compactAtSmallFragments + 1 {
		upsert(t, s, everyKind(fmt.Sprintf("s%d", i)))
	}
	before := messagesState(t, s, 0)
	rep, err := s.Upkeep(ctx, UpkeepOptions{Steps: []view.Step{view.StepCompact}})
	if err != nil {
		t.Fatal(err)
	}
	var tu *view.TableUpkeep
	for i := range rep.Tables {
		if rep.Tables[i].Table == TableMessages {
			tu = &rep.Tables[i]
		}
	}
	if tu == nil || tu.Compaction == nil || tu.Compaction.FragmentsRemoved != before.Fragments || tu.Prune == nil || tu.Prune.OldVersions == 0 {
		t.Fatalf("messages' upkeep: %+v; want all %d fragments merged, with prunes between the rounds", tu, before.Fragments)
	}
	after := messagesState(t, s, 0)
	// Every round's replaced versions are gone, the last's too, though the prune step did not
	// run; compacted at once, the table would keep the sync's ten beside the compaction's.
	if after.Rows != before.Rows || after.Fragments < 2 || after.Versions != 1 {
		t.Fatalf("messages %+v -> %+v; want the rows kept in fragments of about 6, and no replaced version", before, after)
	}
	noDrift(t, s, "drift after compaction in rounds")
}

// The compaction after the text index's first build commits once, whatever the round bound:
// each commit rewrites every index for the rows it moved (see Upkeep).
func TestFirstIndexBuildCompactsInOneRound(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	s.fragmentRows, s.roundRows = 6, 6 // in rounds, about five (TestCompactionInRounds)
	s.textIndex.routeLimit = 20        // the text index is due from 20 messages
	for i := range compactAtSmallFragments + 1 {
		upsert(t, s, everyKind(fmt.Sprintf("s%d", i)))
	}
	before := messagesState(t, s, 0)
	calls := 0
	rep, err := s.Upkeep(ctx, UpkeepOptions{Progress: func(p view.UpkeepProgress) {
		if p.Step == view.StepCompact && p.Table == TableMessages {
			calls++
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	// One compaction and the prune after it.
	if fmt.Sprint(rep.Ran) != "[index compact prune]" || calls != 2 {
		t.Fatalf("ran %v with %d compaction calls on messages; want the index step first, then one round and its prune", rep.Ran, calls)
	}
	after := messagesState(t, s, 0)
	if after.Rows != before.Rows || after.Fragments >= before.Fragments || after.Versions != 1 || !rep.After.TextIndex.Exists {
		t.Fatalf("messages %+v -> %+v, text index %+v; want the rows merged, one version, the index built", before, after, rep.After.TextIndex)
	}
	noDrift(t, s, "drift after the first build's compaction")
}
