package capture

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/daemon/capture/benchgen"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
	"github.com/pondhq/pond/store/sqlite"
)

// fiveFormats writes a small benchgen corpus and opens an engine over it with a real store.
func fiveFormats(t *testing.T, sessions int) (*Engine, []Target, *benchgen.Manifest, *store.Store) {
	t.Helper()
	dir := t.TempDir()
	cfg := benchgen.Default()
	cfg.Sessions, cfg.MessagesPerSession = sessions, 30
	m, err := benchgen.Write(filepath.Join(dir, "home"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(context.Background(), store.Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	env := adapters.Env{GOOS: "linux", Home: m.Home, Getenv: func(string) string { return "" }, OpenSQLite: sqlite.OpenAgentDB}
	var targets []Target
	for _, a := range all.Adapters() {
		targets = append(targets, Target{Adapter: a, Roots: []string{m.Roots[a.Name()]}})
	}
	return &Engine{Store: s, Env: env, Cursors: &Cursors{Dir: filepath.Join(dir, "state")}}, targets, m, s
}

// TestSyncManyBatches: with tiny batches the reader runs ahead of the writer through many
// flushes; everything lands once, the mirror agrees with Lance, and a second sync reads nothing.
func TestSyncManyBatches(t *testing.T) {
	eng, targets, m, s := fiveFormats(t, 25)
	ctx := context.Background()
	opts := Options{FlushSessions: 2, FlushBytes: 16 << 10}
	rep, err := eng.Sync(ctx, targets, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := m.Total()
	if rep.Inserted.Sessions != want.Sessions || rep.Inserted.Messages != want.Messages {
		t.Fatalf("inserted %+v, want %d sessions and %d messages", rep.Inserted, want.Sessions, want.Messages)
	}
	drift, err := s.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range drift {
		if !d.OK() {
			t.Errorf("drift in %s: %+v", d.Table, d)
		}
	}
	again, err := eng.Sync(ctx, targets, opts)
	if err != nil {
		t.Fatal(err)
	}
	fresh := 0
	for _, ar := range again.Adapters {
		fresh += ar.Skipped[SkipFresh]
	}
	sources := 0 // one a session, but one for all of Cursor's IDE chats
	for _, tg := range targets {
		for _, r := range tg.Roots {
			srcs, err := tg.Adapter.Scan(ctx, eng.Env, r)
			if err != nil {
				t.Fatal(err)
			}
			sources += len(srcs)
		}
	}
	if again.Inserted != (view.Tally{}) || fresh != sources {
		t.Errorf("second sync inserted %+v with %d fresh sources, want nothing and %d fresh", again.Inserted, fresh, sources)
	}
}

// TestSyncCancelled: a sync cancelled half way returns the cancellation, keeps what it had
// committed, and the next sync completes the archive exactly.
func TestSyncCancelled(t *testing.T) {
	eng, targets, m, s := fiveFormats(t, 15)
	ctx, cancel := context.WithCancel(context.Background())
	opts := Options{FlushSessions: 1, Progress: func(p view.SyncProgress) {
		if p.Adapter == "gemini-cli" {
			cancel()
		}
	}}
	if _, err := eng.Sync(ctx, targets, opts); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled sync returned %v, want context.Canceled", err)
	}
	c, err := s.Mirror().Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := m.Total()
	if c.Sessions == 0 || c.Sessions >= int64(want.Sessions) {
		t.Fatalf("after the cancelled sync %d sessions stored, want some of %d", c.Sessions, want.Sessions)
	}
	opts.Progress = nil
	if _, err := eng.Sync(context.Background(), targets, opts); err != nil {
		t.Fatal(err)
	}
	if c, err = s.Mirror().Counts(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c.Sessions != int64(want.Sessions) || c.Messages != int64(want.Messages) {
		t.Errorf("after resuming: %+v, want %d sessions and %d messages", c, want.Sessions, want.Messages)
	}
}
