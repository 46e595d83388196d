package lance

import (
	"context"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// TestCommitsAreSynced: after each commit, every file under the table's directory is one the
// table has synced (or found settled), and a commit that adds nothing new syncs nothing.
func TestCommitsAreSynced(t *testing.T) {
	ctx := context.Background()
	tbl := smokeTable(t, t.TempDir(), "t")
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3; i++ {
		before := tbl.files.synced
		rec := smokeRecord(t, i*100, 100, rng)
		err := tbl.Append(ctx, rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		// A data file, a manifest, a transaction file and their three directories.
		if n := tbl.files.synced - before; n < 6 {
			t.Errorf("append %d synced %d files and directories, want at least 6", i, n)
		}
		filepath.WalkDir(tbl.Dir(), func(path string, e fs.DirEntry, err error) error {
			rel, _ := filepath.Rel(tbl.Dir(), path)
			if err == nil && !tbl.files.known[rel] {
				t.Errorf("append %d: %s is not synced", i, rel)
			}
			return nil
		})
	}
	before := tbl.files.synced
	if err := tbl.files.sync(); err != nil {
		t.Fatal(err)
	}
	if n := tbl.files.synced - before; n != 0 {
		t.Errorf("a sync with nothing new synced %d entries, want 0", n)
	}
}

// BenchmarkDurableAppend appends 200-row batches (about 300 KB each) and reports what the syncs
// after each commit cost.
func BenchmarkDurableAppend(b *testing.B) {
	ctx := context.Background()
	tbl := smokeTable(b, b.TempDir(), "t")
	rng := rand.New(rand.NewPCG(1, 2))
	took, synced := tbl.files.took, tbl.files.synced
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		rec := smokeRecord(b, i*200, 200, rng)
		b.StartTimer()
		err := tbl.Append(ctx, rec)
		rec.Release()
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((tbl.files.took-took).Microseconds())/1000/float64(b.N), "sync-ms/op")
	b.ReportMetric(float64(tbl.files.synced-synced)/float64(b.N), "fsyncs/op")
}
