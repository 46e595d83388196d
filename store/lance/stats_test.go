package lance

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStatsFromManifest holds the statistics the manifest gives (stats.rs) to what the table
// holds: live rows after a delete, the bytes of every data file, and per index one entry with
// its kind (read from the manifest for scalar indexes, asked of lancedb for a vector index) and
// the live rows it covers.
func TestStatsFromManifest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	tbl := smokeTable(t, dir, "stats")
	appendRows := func(from, n int) {
		t.Helper()
		rec := smokeRecord(t, from, n, rng)
		defer rec.Release()
		if err := tbl.Append(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	appendRows(0, 3_000)
	appendRows(3_000, 3_000)
	// Replace, as the store builds its indexes: through pond-native. (A scalar index lancedb-go
	// builds records no fragments it covers until its first fold, as lancedb's statistics
	// reported too.)
	specs := []IndexSpec{
		{Column: "body", Kind: IndexFTS, Name: "body_fts", Replace: true},
		{Column: "id", Kind: IndexBTree, Name: "id_idx", Replace: true},
		{Column: "ts_us", Kind: IndexBitmap, Name: "ts_bitmap", Replace: true},
		{Column: "vector", Kind: IndexIVFPQ, Name: "vector_idx", Replace: true, Distance: "cosine", NumPartitions: 2, NumSubVectors: 8},
	}
	for _, spec := range specs {
		if err := tbl.CreateIndex(ctx, spec); err != nil {
			t.Fatal(err)
		}
	}
	appendRows(6_000, 1_000) // not indexed yet
	if n, err := tbl.Delete(ctx, "id < 'm000010'"); err != nil || n != 10 {
		t.Fatalf("Delete = %d, %v; want 10 rows", n, err)
	}

	st, err := tbl.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var fileBytes int64
	files, _ := filepath.Glob(filepath.Join(dir, "stats.lance", "data", "*"))
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		fileBytes += fi.Size()
	}
	want := Stats{Rows: 6_990, Bytes: fileBytes, Indexes: len(specs), Fragments: 3, SmallFragments: 3}
	if st != want || len(files) != 3 {
		t.Fatalf("Stats = %+v, want %+v (%d data files)", st, want, len(files))
	}

	check := func(when string, indexed, unindexed int64) {
		t.Helper()
		ixs, err := tbl.Indexes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ixs) != len(specs) {
			t.Fatalf("%s: Indexes = %+v, want one entry for each of %d indexes", when, ixs, len(specs))
		}
		for _, spec := range specs {
			i := slices.IndexFunc(ixs, func(ix IndexInfo) bool { return ix.Name == spec.Name })
			if i < 0 {
				t.Fatalf("%s: Indexes = %+v, want %s among them", when, ixs, spec.Name)
			}
			ix := ixs[i]
			var covered, left int64 = -1, -1
			if ix.IndexedRows != nil && ix.UnindexedRows != nil {
				covered, left = *ix.IndexedRows, *ix.UnindexedRows
			}
			switch {
			case !strings.EqualFold(ix.Kind, string(spec.Kind)) || len(ix.Columns) != 1 || ix.Columns[0] != spec.Column:
				t.Errorf("%s: %s is %s on %v, want %s on %s", when, ix.Name, ix.Kind, ix.Columns, spec.Kind, spec.Column)
			case covered != indexed || left != unindexed:
				t.Errorf("%s: %s covers %d rows and leaves %d, want %d and %d", when, ix.Name, covered, left, indexed, unindexed)
			}
		}
	}
	check("before folding", 5_990, 1_000)
	// Folding the new rows in: the manifest's coverage follows.
	if _, err := tbl.Optimize(ctx, OptimizeSpec{Index: true}); err != nil {
		t.Fatal(err)
	}
	check("after folding", 6_990, 0)
}
