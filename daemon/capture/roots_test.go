package capture

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/opencode"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/sqlite"
)

// scanCounter is the OpenCode adapter counting its scans, optionally failing the reads of one
// source.
type scanCounter struct {
	opencode.Adapter
	scans    int
	failRead string // a source key whose reads fail
}

func (a *scanCounter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	a.scans++
	return a.Adapter.Scan(ctx, env, root)
}

func (a *scanCounter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	if src.Key == a.failRead {
		return adapters.Cursor{}, errors.New("read failed")
	}
	return a.Adapter.Read(ctx, env, src, cur, out)
}

// noRootStamp hides an adapter's RootStamp: every sync scans.
type noRootStamp struct{ adapters.Adapter }

func (noRootStamp) RootStamp(context.Context, adapters.Env, string) (string, error) { return "", nil }

// opencodeRoot is OpenCode's data directory from the adapter's fixture (a database and a legacy
// tree), its files last written an hour ago: a file written within the last moments is never
// trusted to stamp a root.
func opencodeRoot(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "opencode")
	adaptertest.CopyFixture(t, opencode.New(), root, sqlite.CreateFromScript)
	at := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, at, at)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// writeOpenCode commits statements to root's database as OpenCode would have, ago before now.
func writeOpenCode(t *testing.T, root string, ago time.Duration, stmts ...string) {
	t.Helper()
	path := filepath.Join(root, "opencode.db")
	err := sqlite.WriteAgentDB(path, func(tx *sql.Tx) error {
		for _, s := range stmts {
			if _, err := tx.Exec(s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-ago)
	for _, p := range []string{path, path + "-wal"} {
		if err := os.Chtimes(p, at, at); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
}

func (r *rig) syncWith(opts Options) *view.AdapterReport {
	r.t.Helper()
	rep, err := r.eng.Sync(context.Background(), []Target{{Adapter: r.a, Roots: []string{r.root}, Named: true}}, opts)
	if err != nil {
		r.t.Fatal(err)
	}
	return &rep.Adapters[0]
}

// TestRootStampSkipsScan: an OpenCode database untouched since a sync that settled it is not
// scanned again, and the sync reports what a scan would have.
func TestRootStampSkipsScan(t *testing.T) {
	root := opencodeRoot(t)
	a := &scanCounter{}
	r := newRig(t, a, root)
	scans := func(want int) {
		t.Helper()
		if a.scans != want {
			t.Fatalf("%d scans, want %d", a.scans, want)
		}
	}
	first := r.sync()
	scans(1)
	if first.New == 0 {
		t.Fatalf("first sync read nothing: %+v", first)
	}
	again := r.sync()
	scans(1)
	r.a = noRootStamp{a}
	full := r.sync()
	scans(2)
	if diff := cmp.Diff(full, again); diff != "" {
		t.Errorf("unscanned root's report differs from a scan's (-scan +unscanned):\n%s", diff)
	}
	if again.Skipped[SkipFresh] == 0 || again.Skipped[adapters.SkipSuperseded] == 0 {
		t.Errorf("unscanned root's report: %+v; want fresh and superseded sources", again)
	}

	r.a = a
	r.sync() // the scan without a stamp forgot the root; this one settles it again
	scans(3)
	r.sync()
	scans(3)
	if rep := r.syncWith(Options{Verify: true}); rep.New != first.New {
		t.Errorf("--verify: %+v; want every source read again", rep)
	}
	scans(4)
	r.syncWith(Options{DryRun: true})
	scans(4)

	// The same files at another path (the adapter's path changed in the config) are scanned.
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(root, moved); err != nil {
		t.Fatal(err)
	}
	r.root = moved
	r.sync()
	scans(5)

	// Cursors that are not the ones the root settled with mean a scan.
	if err := os.Remove(filepath.Join(r.dir, "state", "cursors", "opencode.json")); err != nil {
		t.Fatal(err)
	}
	if rep := r.sync(); rep.New != first.New {
		t.Errorf("after the cursors were lost: %+v; want every source read as new", rep)
	}
	scans(6)
}

// TestRootStampWriteIsRead: a message OpenCode writes into a settled database is read at the
// next sync.
func TestRootStampWriteIsRead(t *testing.T) {
	root := opencodeRoot(t)
	a := &scanCounter{}
	r := newRig(t, a, root)
	r.sync()
	r.sync()
	writeOpenCode(t, root, 30*time.Minute,
		`INSERT INTO message VALUES('msg_p08','ses_parent',1790000050000,1790000050000,'{"role":"user","time":{"created":1790000050000}}')`,
		`INSERT INTO part VALUES('prt_p08a','msg_p08','ses_parent',1790000050010,1790000050010,'{"type":"text","text":"Ship it"}')`,
		`UPDATE session SET time_updated = 1790000050020 WHERE id = 'ses_parent'`)
	rep := r.sync()
	if a.scans != 2 || rep.Updated != 1 || rep.Inserted.Messages != 1 {
		t.Fatalf("after a write, %d scans and %+v; want a second scan reading one message", a.scans, rep)
	}
	r.sync()
	if a.scans != 2 {
		t.Errorf("%d scans, want the root settled again after the write was read", a.scans)
	}
}

// TestRootStampOutstanding: a root whose last sync left a source to read again is scanned until
// it has none.
func TestRootStampOutstanding(t *testing.T) {
	tests := []struct {
		name   string
		leave  func(t *testing.T, root string, a *scanCounter) // leaves a source outstanding
		settle func(t *testing.T, root string, a *scanCounter)
	}{
		{
			name: "turn-in-progress", // held back with a pending/ cursor
			leave: func(t *testing.T, root string, _ *scanCounter) {
				ms := time.Now().UnixMilli()
				writeOpenCode(t, root, time.Minute, // within the turn's grace, not too fresh to stamp
					fmt.Sprintf(`INSERT INTO message VALUES('msg_live','ses_parent',%d,%d,'{"role":"assistant","time":{"created":%d}}')`, ms, ms, ms),
					fmt.Sprintf(`UPDATE session SET time_updated = %d WHERE id = 'ses_parent'`, ms))
			},
			settle: func(t *testing.T, root string, _ *scanCounter) {
				ms := time.Now().UnixMilli()
				writeOpenCode(t, root, 30*time.Second, fmt.Sprintf(`UPDATE message SET data = '{"role":"assistant","time":{"created":%d,"completed":%d}}', time_updated = %d WHERE id = 'msg_live'`, ms, ms, ms))
			},
		},
		{
			name:   "read-failed",
			leave:  func(_ *testing.T, _ string, a *scanCounter) { a.failRead = "opencode.db#ses_child" },
			settle: func(_ *testing.T, _ string, a *scanCounter) { a.failRead = "" },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := opencodeRoot(t)
			a := &scanCounter{}
			tt.leave(t, root, a)
			r := newRig(t, a, root)
			r.sync()
			r.sync()
			r.sync()
			if a.scans != 3 {
				t.Fatalf("%d scans in 3 syncs, want every sync to scan while a source is outstanding", a.scans)
			}
			tt.settle(t, root, a)
			r.sync()
			r.sync()
			if a.scans != 4 {
				t.Errorf("%d scans, want the root settled once nothing is outstanding", a.scans)
			}
		})
	}
}
