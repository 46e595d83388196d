package claudecode

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters/adaptertest"
)

func TestRoots(t *testing.T) {
	for _, tc := range []struct {
		name string
		goos string
		home string
		vars map[string]string
		want []string
	}{
		{"linux", "linux", "/home/ana", nil, []string{"/home/ana/.claude"}},
		{"darwin", "darwin", "/Users/ana/", nil, []string{"/Users/ana/.claude"}},
		{"windows", "windows", `C:\Users\ana`, nil, []string{`C:\Users\ana\.claude`}},
		{"config_dir", "linux", "/home/ana", map[string]string{"CLAUDE_CONFIG_DIR": "/srv/claude-work"}, []string{"/srv/claude-work"}},
		{"blank_config_dir", "darwin", "/Users/ana", map[string]string{"CLAUDE_CONFIG_DIR": "  "}, []string{"/Users/ana/.claude"}},
		{"windows_config_dir", "windows", `C:\Users\ana`, map[string]string{"CLAUDE_CONFIG_DIR": `D:\claude`}, []string{`D:\claude`}},
		{"no_home", "linux", "", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Adapter{}.Roots(adaptertest.FakeEnv(tc.goos, tc.home, tc.vars))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("roots (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScan(t *testing.T) {
	env := adaptertest.FakeEnv("linux", t.TempDir(), nil)
	srcs, err := Adapter{}.Scan(context.Background(), env, "testdata")
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
		if s.Size != info.Size() || s.Stamp == "" || s.ModTime.IsZero() {
			t.Errorf("%s: size %d stamp %q modtime %v; want the file's size, a stamp and a time", s.Key, s.Size, s.Stamp, s.ModTime)
		}
	}
	// Sidecars (meta.json) and the workflow journal are not sources.
	want := []string{
		"projects/-legacy-nocwd/3b2a1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d.jsonl",
		"projects/-srv-demo/7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b.jsonl",
		"projects/-srv-demo/7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b/subagents/agent-a1b2c3d4e5f6a7b8c.jsonl",
		"projects/-srv-demo/7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b/subagents/workflows/wf_0001/agent-w0c1d2e3f4a5b6c7d.jsonl",
		"projects/-srv-demo/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.jsonl",
		"projects/-srv-demo/agent-5e6f7a8b.jsonl",
	}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
}

func TestScanRoots(t *testing.T) {
	ctx := context.Background()
	env := adaptertest.FakeEnv("linux", t.TempDir(), nil)

	_, err := Adapter{}.Scan(ctx, env, filepath.Join(t.TempDir(), "missing"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing root: got %v, want an error wrapping fs.ErrNotExist", err)
	}

	// Claude Code set up but no session written yet: nothing to read, not an error.
	srcs, err := Adapter{}.Scan(ctx, env, t.TempDir())
	if err != nil || len(srcs) != 0 {
		t.Errorf("root without projects/: got %d sources, %v; want none and no error", len(srcs), err)
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want layout
	}{
		{"projects/-w/0a1b.jsonl", layout{kind: kindSession, stem: "0a1b", projectDir: "-w"}},
		{"projects/-w/agent-3be551df.jsonl", layout{kind: kindLegacyAgent, stem: "agent-3be551df", agentID: "3be551df", projectDir: "-w"}},
		{"projects/-w/s1/subagents/agent-a12.jsonl", layout{kind: kindSubagent, stem: "agent-a12", agentID: "a12", parent: "s1", projectDir: "-w"}},
		{"projects/-w/s1/subagents/workflows/wf_9/agent-b3.jsonl", layout{kind: kindSubagent, stem: "agent-b3", agentID: "b3", parent: "s1", workflow: "wf_9", projectDir: "-w"}},
		{"subagents/agent-x.jsonl", layout{kind: kindLegacyAgent, stem: "agent-x", agentID: "x", projectDir: "subagents"}},
		{"agent-.jsonl", layout{kind: kindSession, stem: "agent-"}},
		{"small.jsonl", layout{kind: kindSession, stem: "small"}},
	} {
		if diff := cmp.Diff(tc.want, classify(tc.key), cmp.AllowUnexported(layout{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.key, diff)
		}
	}
}
