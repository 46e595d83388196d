package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

// testHome is the fixture home: testdata/home/.gemini in the CLI's own layout.
const testHome = "testdata/home"

func TestRoots(t *testing.T) {
	tests := []struct {
		name string
		goos string
		home string
		vars map[string]string
		want []string
	}{
		{"home", "linux", "/home/dev", nil, []string{"/home/dev/.gemini"}},
		{"gemini_cli_home_replaces_home", "linux", "/home/dev", map[string]string{"GEMINI_CLI_HOME": "/srv/profile"}, []string{"/srv/profile/.gemini"}},
		{"empty_override_is_unset", "darwin", "/Users/dev", map[string]string{"GEMINI_CLI_HOME": ""}, []string{"/Users/dev/.gemini"}},
		{"windows_userprofile", "windows", "", map[string]string{"USERPROFILE": "C:/Users/dev"}, []string{filepath.Join("C:/Users/dev", ".gemini")}},
		{"no_home", "linux", "", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := New().Roots(adaptertest.FakeEnv(tc.goos, tc.home, tc.vars))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Roots (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScan(t *testing.T) {
	ctx := context.Background()
	env := adaptertest.FakeEnv("linux", testHome, nil)
	root := New().Roots(env)[0]
	srcs, err := New().Scan(ctx, env, root)
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
			t.Errorf("%s: got stamp %q size %d, want the file's %q %d", s.Key, s.Stamp, s.Size, adapters.FileStamp(info), info.Size())
		}
	}
	want := []string{
		"tmp/0bf6933e8ef34a3bd42687dda8a365e4f876a36717528baf2e25a671d78459ae/chats/session-2025-11-03T09-15-2b9d4e01.json",
		"tmp/9c1f4e2b7a6d8e03/chats/session-2025-08-20T14-02-5e6f7a8b.json",
		"tmp/notes/chats/session-2026-04-30T08-12-1a2b3c4d.jsonl",
		"tmp/webapp/chats/7f3c2a11-5b6e-4c1d-9a2f-0e8d4b3c2a10/c0d1e2f3-aaaa-4bbb-8ccc-0123456789ab.jsonl",
		"tmp/webapp/chats/session-2026-05-02T10-00-7f3c2a11.jsonl",
	}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("source keys (-want +got):\n%s", diff)
	}

	if _, err := New().Scan(ctx, env, filepath.Join(t.TempDir(), "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("scan of a missing root: got %v, want an error wrapping fs.ErrNotExist", err)
	}
	if srcs, err := New().Scan(ctx, env, t.TempDir()); err != nil || len(srcs) != 0 {
		t.Errorf("scan of a root without tmp/: got %d sources, %v; want none, no error", len(srcs), err)
	}
}

func TestCapabilities(t *testing.T) {
	a := New()
	want := adapters.Capabilities{Restore: true, ToolCalls: true, Subagents: true, Incremental: true}
	if got := a.Capabilities(); got != want || a.Name() != "gemini-cli" {
		t.Errorf("got %q %+v, want gemini-cli %+v", a.Name(), got, want)
	}
}

// readHome reads every source under home/.gemini from the given cursors.
func readHome(t *testing.T, home string, cursors map[string]adapters.Cursor) (*adaptertest.Collector, map[string]adapters.Cursor) {
	t.Helper()
	env := adaptertest.FakeEnv("linux", home, nil)
	var c adaptertest.Collector
	next := adaptertest.ReadRoot(t, New(), env, New().Roots(env)[0], cursors, &c)
	return &c, next
}

// sourceOf decodes an object's options.source.
func sourceOf(t *testing.T, o session.Options) map[string]json.RawMessage {
	t.Helper()
	if o["source"] == nil {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(o["source"], &m); err != nil {
		t.Fatalf("options.source: %v", err)
	}
	return m
}

// records are the raw records the events keep, in emission order.
func records(t *testing.T, c *adaptertest.Collector) []string {
	t.Helper()
	var out []string
	add := func(o session.Options) {
		if r := sourceOf(t, o)["record"]; r != nil {
			out = append(out, string(r))
		}
	}
	for _, s := range c.Sessions() {
		add(s.Options)
	}
	for _, m := range c.Messages() {
		add(m.Options)
	}
	for _, p := range c.Parts() {
		add(p.Options)
	}
	return out
}

// copyTree copies the fixture home into a temporary directory.
func copyTree(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
	return to
}
