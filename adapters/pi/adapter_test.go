package pi

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

func TestRoots(t *testing.T) {
	home := filepath.FromSlash("/home/u")
	tests := []struct {
		name string
		goos string
		vars map[string]string
		want []string
	}{
		{"default", "linux", nil, []string{filepath.Join(home, ".pi", "agent")}},
		{"default-windows", "windows", nil, []string{filepath.Join(home, ".pi", "agent")}},
		{"default-darwin", "darwin", nil, []string{filepath.Join(home, ".pi", "agent")}},
		{"override", "linux", map[string]string{dirEnv: "/srv/pi"}, []string{"/srv/pi"}},
		{"override-tilde", "linux", map[string]string{dirEnv: "~/agents/pi"}, []string{filepath.Join(home, "agents", "pi")}},
		{"override-bare-tilde", "darwin", map[string]string{dirEnv: "~"}, []string{home}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := New().Roots(adaptertest.FakeEnv(tt.goos, home, tt.vars))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Roots (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScan(t *testing.T) {
	ctx := context.Background()
	env := adaptertest.FakeEnv("linux", t.TempDir(), nil)
	srcs, err := New().Scan(ctx, env, testRoot)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, s := range srcs {
		keys = append(keys, s.Key)
		info, err := os.Stat(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		if s.Stamp != adapters.FileStamp(info) || s.Size != info.Size() {
			t.Errorf("%s: stamp %q size %d, want the file's %q and %d", s.Key, s.Stamp, s.Size, adapters.FileStamp(info), info.Size())
		}
	}
	want := []string{v1Key, v2Key, mainKey, forkKey}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}

	t.Run("missing-root", func(t *testing.T) {
		_, err := New().Scan(ctx, env, filepath.Join(t.TempDir(), "nope"))
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("got %v, want an error wrapping fs.ErrNotExist", err)
		}
	})
	t.Run("no-sessions-folder", func(t *testing.T) {
		srcs, err := New().Scan(ctx, env, t.TempDir())
		if err != nil || len(srcs) != 0 {
			t.Errorf("got %v, %v; want no sources and no error", srcs, err)
		}
	})
	t.Run("strays-ignored", func(t *testing.T) {
		root := t.TempDir()
		write(t, filepath.Join(root, "sessions", "stray.jsonl"), "{}\n")
		write(t, filepath.Join(root, "sessions", "--p--", "notes.txt"), "x")
		write(t, filepath.Join(root, "sessions", "--p--", "subagent-artifacts", "w.jsonl"), "{}\n")
		write(t, filepath.Join(root, "sessions", "--p--", "a_b.jsonl"), "{}\n")
		srcs, err := New().Scan(ctx, env, root)
		if err != nil {
			t.Fatal(err)
		}
		if len(srcs) != 1 || srcs[0].Key != "sessions/--p--/a_b.jsonl" {
			t.Errorf("got %+v, want only sessions/--p--/a_b.jsonl", srcs)
		}
	})
}

func TestCapabilities(t *testing.T) {
	got := New().Capabilities()
	want := adapters.Capabilities{Restore: true, ToolCalls: true, Subagents: false, Incremental: true}
	if got != want || New().Name() != "pi-coding-agent" {
		t.Errorf("got %+v %q, want %+v pi-coding-agent", got, New().Name(), want)
	}
}

func write(t testing.TB, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
