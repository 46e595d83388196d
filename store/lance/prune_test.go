package lance

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// idSchema is the schema of the tables appendIDs writes.
var idSchema = arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}}, nil)

// idTable is an empty table of idSchema in a database of its own, both closed with the test.
func idTable(t *testing.T) (*DB, *Table) {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, LocalDir(t.TempDir()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tbl, err := db.CreateTable(ctx, "t", idSchema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tbl.Close() })
	return db, tbl
}

// appendIDs commits one version holding ids.
func appendIDs(t *testing.T, tbl *Table, ids ...string) {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, idSchema)
	defer b.Release()
	for _, id := range ids {
		b.Field(0).(*array.StringBuilder).Append(id)
	}
	rec := b.NewRecord()
	defer rec.Release()
	if err := tbl.Append(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
}

// A prune by replacement time removes the versions replaced before the cut-off, however
// recently they were committed themselves, and keeps the version replaced after it: a read
// that began before the cut-off may be on that one. A prune by commit time (Lance's own) would
// remove it too, since it was committed before the cut-off. The sleeps only keep the commits
// apart by more than a file system's clock tick.
func TestPruneByReplacementTime(t *testing.T) {
	ctx := context.Background()
	_, tbl := idTable(t)
	appendIDs(t, tbl, "a")
	appendIDs(t, tbl, "b")
	appendIDs(t, tbl, "c")
	time.Sleep(100 * time.Millisecond)
	cut := time.Now()
	time.Sleep(100 * time.Millisecond)
	appendIDs(t, tbl, "d")

	ms, err := tbl.manifests()
	if err != nil {
		t.Fatal(err)
	}
	var versions []uint64
	for _, m := range ms {
		versions = append(versions, m.version)
	}
	if len(versions) != 5 || versions[0] != 1 || versions[4] != 5 {
		t.Fatalf("manifests hold versions %v; want 1 to 5 (a create and four appends)", versions)
	}
	v, err := tbl.Versions(ctx, cut)
	if err != nil || v.Kept != 5 || v.Older != 3 {
		t.Fatalf("Versions(cut) = %+v, %v; want 5 kept, 3 replaced before the cut (1 by 2, 2 by 3, 3 by 4)", v, err)
	}

	res, err := tbl.Optimize(ctx, OptimizeSpec{PruneReplacedBefore: cut})
	if err != nil {
		t.Fatal(err)
	}
	if res.Prune == nil || res.Prune.OldVersions != 3 {
		t.Fatalf("prune = %+v; want the 3 versions replaced before the cut removed", res.Prune)
	}
	if ms, err = tbl.manifests(); err != nil || len(ms) != 2 || ms[0].version != 4 {
		t.Fatalf("after the prune: %+v, %v; want versions 4 (replaced after the cut) and 5", ms, err)
	}
	if n, err := tbl.Count(ctx, ""); err != nil || n != 4 {
		t.Fatalf("Count() = %d, %v after the prune; want all 4 rows", n, err)
	}

	// Nothing more replaced before the cut: the prune does nothing and says so.
	res, err = tbl.Optimize(ctx, OptimizeSpec{PruneReplacedBefore: cut})
	if err != nil || res.Prune == nil || res.Prune.OldVersions != 0 {
		t.Fatalf("second prune = %+v, %v; want nothing removed", res.Prune, err)
	}
}

// A query stream is a read from when it starts until it is read to its end or closed; the
// oldest read still running is what a prune in this process must not cut off.
func TestOldestReadFollowsStreams(t *testing.T) {
	ctx := context.Background()
	db, tbl := idTable(t)
	for i := range 3 {
		appendIDs(t, tbl, fmt.Sprint(i))
	}
	if at, ok := db.OldestRead(); ok {
		t.Fatalf("a read began at %v is still running with none started", at)
	}

	before := time.Now()
	first, err := tbl.Query(ctx, Query{BatchRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	second, err := tbl.Query(ctx, Query{BatchRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	at, ok := db.OldestRead()
	if !ok || at.Before(before) || !at.Before(time.Now()) {
		t.Fatalf("OldestRead() = %v, %v with two streams open since %v", at, ok, before)
	}
	first.Close()
	first.Close() // closing twice ends the read once
	if at2, ok := db.OldestRead(); !ok || !at2.After(at) {
		t.Fatalf("OldestRead() = %v, %v once the first stream closed; want the second's start, after %v", at2, ok, at)
	}
	// Read to its end, the second stream reads no more files even before it is closed.
	for {
		rec, err := second.Next()
		if err != nil {
			break
		}
		rec.Release()
	}
	if at, ok := db.OldestRead(); ok {
		t.Fatalf("a read began at %v is still running after both streams ended", at)
	}
	second.Close()
}

// Both of Lance's manifest naming schemes give the version.
func TestManifestVersion(t *testing.T) {
	for name, want := range map[string]uint64{
		"1.manifest":                    1,
		"42.manifest":                   42,
		"18446744073709551614.manifest": 1, // u64::MAX - 1
		"18446744073709551573.manifest": 42,
		"00000000000000000042.manifest": 42, // zero-padded, not counting down
	} {
		if v, ok := manifestVersion(name); !ok || v != want {
			t.Errorf("manifestVersion(%q) = %d, %v; want %d", name, v, ok, want)
		}
	}
	for _, name := range []string{"1.manifest.tmp", "latest.manifest", "_transactions", "x.txn"} {
		if v, ok := manifestVersion(name); ok {
			t.Errorf("manifestVersion(%q) = %d; want no manifest", name, v)
		}
	}
}
