package codex

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

func TestAdapter(t *testing.T) {
	a := New()
	if a.Name() != "codex-cli" {
		t.Errorf("Name() = %q", a.Name())
	}
	want := adapters.Capabilities{Restore: true, ToolCalls: true, Subagents: true, Incremental: true}
	if got := a.Capabilities(); got != want {
		t.Errorf("Capabilities() = %+v, want %+v", got, want)
	}
}

func TestRoots(t *testing.T) {
	tests := []struct {
		name string
		env  adapters.Env
		want []string
	}{
		{"codex_home", adaptertest.FakeEnv("linux", "/home/u", map[string]string{"CODEX_HOME": "/data/codex/"}), []string{"/data/codex"}},
		{"default_linux", adaptertest.FakeEnv("linux", "/home/u", nil), []string{filepath.Join("/home/u", ".codex")}},
		{"default_darwin", adaptertest.FakeEnv("darwin", "/Users/u", nil), []string{filepath.Join("/Users/u", ".codex")}},
		{"default_windows", adaptertest.FakeEnv("windows", `C:\Users\u`, nil), []string{filepath.Join(`C:\Users\u`, ".codex")}},
		{"empty_codex_home", adaptertest.FakeEnv("linux", "/home/u", map[string]string{"CODEX_HOME": ""}), []string{filepath.Join("/home/u", ".codex")}},
		{"no_home", adapters.Env{GOOS: "linux"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, New().Roots(tt.env)); diff != "" {
				t.Errorf("Roots (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScan(t *testing.T) {
	srcs, err := New().Scan(context.Background(), adapters.Env{}, testRoot)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, s := range srcs {
		keys = append(keys, s.Key)
		if s.Stamp == "" || s.Size == 0 || s.ModTime.IsZero() || s.Path != filepath.Join(testRoot, filepath.FromSlash(s.Key)) {
			t.Errorf("source %+v: want path, stamp, size and time", s)
		}
	}
	want := []string{zstKey, legacyKey, mainKey, subKey, forkKey, mismKey}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
}

func TestScanLayout(t *testing.T) {
	root := t.TempDir()
	const (
		both  = "0195c000-0000-7000-8000-000000000001"
		onlyZ = "0195c000-0000-7000-8000-000000000002"
		flat  = "0195c000-0000-7000-8000-000000000003"
	)
	for _, name := range []string{
		"sessions/2026/05/01/rollout-2026-05-01T10-00-00-" + both + ".jsonl",
		"sessions/2026/05/01/rollout-2026-05-01T10-00-00-" + both + ".jsonl.zst",
		"archived_sessions/rollout-2026-04-01T10-00-00-" + onlyZ + ".jsonl.zst",
		"sessions/rollout-2025-05-07T17-24-21-" + flat + ".jsonl", // the earliest flat layout
		"sessions/2026/05/01/notes.jsonl",
		"sessions/2026/05/01/rollout-x.json",
		"history.jsonl",
		"session_index.jsonl",
	} {
		writeFile(t, filepath.Join(root, filepath.FromSlash(name)), []byte("{}\n"))
	}
	srcs, err := New().Scan(context.Background(), adapters.Env{}, root)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, s := range srcs {
		keys = append(keys, s.Key)
	}
	want := []string{
		"archived_sessions/rollout-2026-04-01T10-00-00-" + onlyZ + ".jsonl.zst",
		"sessions/2026/05/01/rollout-2026-05-01T10-00-00-" + both + ".jsonl",
		"sessions/rollout-2025-05-07T17-24-21-" + flat + ".jsonl",
	}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}

	// A root without sessions/ is empty, not an error; a missing root is.
	if srcs, err := New().Scan(context.Background(), adapters.Env{}, t.TempDir()); err != nil || len(srcs) != 0 {
		t.Errorf("empty root: %v, %v; want no sources, no error", srcs, err)
	}
	if _, err := New().Scan(context.Background(), adapters.Env{}, filepath.Join(root, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing root: err %v, want fs.ErrNotExist", err)
	}
}

// TestScanSymlinkedSessions: sessions/ as a symbolic link to another folder (a bigger disk, a
// dotfile tree) is scanned where it leads, its sources named by the path through the link.
func TestScanSymlinkedSessions(t *testing.T) {
	root, elsewhere := t.TempDir(), t.TempDir()
	const id = "0195c000-0000-7000-8000-000000000004"
	name := "2026/05/01/rollout-2026-05-01T10-00-00-" + id + ".jsonl"
	writeFile(t, filepath.Join(elsewhere, filepath.FromSlash(name)), []byte("{}\n"))
	if err := os.Symlink(elsewhere, filepath.Join(root, "sessions")); err != nil {
		t.Fatal(err)
	}
	srcs, err := New().Scan(context.Background(), adapters.Env{}, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 1 || srcs[0].Key != "sessions/"+name || srcs[0].Path != filepath.Join(root, "sessions", filepath.FromSlash(name)) {
		t.Errorf("sources %+v; want the rollout behind the link, keyed sessions/%s", srcs, name)
	}
}
