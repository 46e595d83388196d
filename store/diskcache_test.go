package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/internal/s3test"
	"github.com/pondhq/pond/store/lance"
)

// An archive on moto's S3 server read through the disk cache: the first machine to open it
// reads its files over the network and keeps them; the next (a new machine, whose mirror is
// made from Lance) answers every read of those files from the folder and ends with the same
// mirror; a small bound holds; files cut short in the folder are read from the store instead.
func TestDiskCacheServesAnArchiveOnS3(t *testing.T) {
	ctx := context.Background()
	srv := s3test.Shared(t)
	url := srv.Bucket(t, "pond-cache", "archive")
	w := openShared(t, t.TempDir(), url)
	for i := range 4 {
		if _, err := w.Upsert(ctx, clone(t, everyKind(fmt.Sprintf("s%d", i))), Stamp{Adapter: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	want, err := w.Mirror().Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()

	dir := filepath.Join(t.TempDir(), "cache")
	// machine opens the archive as a new machine with the cache bounded by limit, makes its
	// mirror from Lance, checks it, and reports what the cache did.
	machine := func(limit int64) lance.DiskCacheStats {
		t.Helper()
		m := t.TempDir()
		s, err := Open(ctx, Options{DataDir: filepath.Join(m, "data"), StateDir: filepath.Join(m, "state"), Storage: url, Command: "test",
			Lance: lance.Options{DiskCache: lance.DiskCache{Dir: dir, Bytes: limit}}})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.CatchUp(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := s.Mirror().Counts(ctx)
		if err != nil || got != want {
			t.Fatalf("mirror through the cache: %+v, %v; want %+v", got, err, want)
		}
		st, ok, err := s.db.DiskCacheStats()
		if err != nil || !ok {
			t.Fatalf("disk cache stats: %v, %v", ok, err)
		}
		dc, err := s.DiskCache()
		if err != nil || dc == nil || dc.Dir != dir || dc.Files != st.Files {
			t.Fatalf("Store.DiskCache: %+v, %v", dc, err)
		}
		return st
	}

	first := machine(64 << 20)
	if first.Misses == 0 || first.Stored == 0 || first.Files == 0 || first.Bytes > 64<<20 {
		t.Fatalf("first machine: %+v", first)
	}
	second := machine(64 << 20)
	if second.Hits == 0 || second.Misses != 0 || second.Stored != 0 || second.Errors != 0 {
		t.Errorf("second machine, every immutable file already cached: %+v", second)
	}

	small := machine(16 << 10)
	if small.Bytes > 16<<10 || small.Evicted == 0 {
		t.Errorf("bounded to 16 KiB: %+v", small)
	}

	// Every file cut short (a crash, a full disk): the folder drops them when opened.
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		t.Fatalf("cache folder: %d entries, %v", len(entries), err)
	}
	for _, e := range entries {
		if err := os.Truncate(filepath.Join(dir, e.Name()), 1); err != nil {
			t.Fatal(err)
		}
	}
	// Read from the store again, every one of them, as by the first machine.
	if cut := machine(64 << 20); cut.Misses == 0 || cut.Files != first.Files || cut.Errors != 0 {
		t.Errorf("after every cached file was cut short: %+v; the first machine: %+v", cut, first)
	}
}

// A local archive has no disk cache, whatever the options say.
func TestLocalArchiveHasNoDiskCache(t *testing.T) {
	m := t.TempDir()
	s, err := Open(context.Background(), Options{DataDir: filepath.Join(m, "data"), StateDir: filepath.Join(m, "state"), Command: "test",
		Lance: lance.Options{DiskCache: lance.DiskCache{Dir: filepath.Join(m, "cache"), Bytes: 1 << 20}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if dc, err := s.DiskCache(); err != nil || dc != nil {
		t.Errorf("local archive's disk cache: %+v, %v", dc, err)
	}
	if _, err := os.Stat(filepath.Join(m, "cache")); !os.IsNotExist(err) {
		t.Errorf("cache folder made for a local archive: %v", err)
	}
}
