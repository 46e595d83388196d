package resume_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/resume"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store"
	"github.com/pondhq/pond/store/sqlite"
)

// claudeDemo is the Claude Code testdata session with a sub-agent and a workflow sub-agent.
const claudeDemo = "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b"

func claudeStore(t *testing.T) *store.Store {
	t.Helper()
	var c adaptertest.Collector
	a, _ := all.ByName("claude-code")
	fixtureSource(a).read(t, &c)
	s := openStore(t)
	upsert(t, s, c.Events)
	return s
}

// tree lists the files and folders under dir, with "-> target" for links.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if d.Type()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			rel += " -> " + target
		} else if d.IsDir() {
			rel += "/"
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(out)
	return out
}

func restore(t *testing.T, s *store.Store, req resume.Request) *resume.Outcome {
	t.Helper()
	if req.Now == nil {
		req.Now = fixedNow
	}
	if req.Env.WriteRows == nil {
		req.Env.WriteRows = sqlite.WriteAgentRows
	}
	o, err := resume.Restore(context.Background(), archive{s}, req)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestCollisionWritesNothing(t *testing.T) {
	s := claudeStore(t)
	out := t.TempDir()
	// One file of the batch (the sub-agent, planned after the session) is taken already.
	taken := filepath.Join(out, "projects/-srv-demo", claudeDemo, "subagents/agent-a1b2c3d4e5f6a7b8c.jsonl")
	if err := os.MkdirAll(filepath.Dir(taken), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(taken, []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := tree(t, out)
	o := restore(t, s, resume.Request{Session: claudeDemo, To: "claude-code", OutDir: out})
	if o.Status != resume.TargetExists || o.Code != 3 {
		t.Fatalf("status %s code %d (%s), want target_exists 3", o.Status, o.Code, o.Message)
	}
	if !strings.Contains(o.Message, taken) {
		t.Errorf("message %q does not name %s", o.Message, taken)
	}
	if diff := cmp.Diff(before, tree(t, out)); diff != "" {
		t.Errorf("the folder changed (-before +after):\n%s", diff)
	}
	if b, _ := os.ReadFile(taken); string(b) != "mine\n" {
		t.Errorf("the existing file was changed: %q", b)
	}
}

func TestFailureUnwinds(t *testing.T) {
	s := claudeStore(t)
	out := t.TempDir()
	// The sub-agents' folder is a dangling link: the session file is written first, then
	// creating the sub-agent file fails, and the batch must remove what it made.
	session := filepath.Join(out, "projects/-srv-demo", claudeDemo)
	if err := os.MkdirAll(session, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, "nowhere", "at-all"), filepath.Join(session, "subagents")); err != nil {
		t.Fatal(err)
	}
	before := tree(t, out)
	o := restore(t, s, resume.Request{Session: claudeDemo, To: "claude-code", OutDir: out})
	if o.Status != resume.WriteFailed || o.Code != 4 {
		t.Fatalf("status %s code %d (%s), want write_failed 4", o.Status, o.Code, o.Message)
	}
	if !strings.Contains(o.Message, "subagents") || len(o.Files) < 2 || strings.Contains(o.Files[0].Path, "subagents") {
		t.Errorf("the failure was not in the middle of the batch: %s (files %+v)", o.Message, o.Files)
	}
	if diff := cmp.Diff(before, tree(t, out)); diff != "" {
		t.Errorf("the failed batch left files behind (-before +after):\n%s", diff)
	}
}

// synthetic stores Claude Code sessions made up for the test: id → parent, a session with a
// parent being its sub-agent.
func synthetic(t *testing.T, s *store.Store, project string, parents map[string]string) {
	t.Helper()
	var events []session.Event
	ids := make([]string, 0, len(parents))
	for id := range parents {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	for _, id := range ids {
		agent := "claude-code"
		if parents[id] != "" {
			agent = "claude-code/subagent"
		}
		rec := `{"type":"user","uuid":"u-` + id + `","sessionId":"` + id + `","cwd":` + quote(project) + `,"timestamp":"2026-05-01T10:00:00.000Z","message":{"role":"user","content":"hello"}}`
		events = append(events,
			session.Event{Session: &session.Session{ID: id, ParentSessionID: parents[id], SourceAgent: agent, Project: project, CreatedAt: at}},
			session.Event{Message: &session.Message{SessionID: id, ID: "u-" + id, Role: session.RoleUser, Timestamp: at,
				Options: session.Options{"source": json.RawMessage(`{"line":1,"record":` + rec + `}`)}}},
			session.Event{Part: &session.Part{SessionID: id, MessageID: "u-" + id, ID: "u-" + id + ":0", Type: session.PartText, Provenance: session.Conversational, Text: "hello"}},
		)
	}
	upsert(t, s, events)
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestRefusals(t *testing.T) {
	s := openStore(t)
	cwd := t.TempDir()
	synthetic(t, s, cwd, map[string]string{"a": "", "b": "a", "c": "b", "lonely": ""})
	synthetic(t, s, "/no/such/folder/anywhere", map[string]string{"gone": ""})
	home := t.TempDir()
	cases := []struct {
		name string
		req  resume.Request
		want resume.Status
		code int
	}{
		{"not-stored", resume.Request{Session: "nope", To: "claude-code", OutDir: t.TempDir()}, resume.NotStored, 1},
		{"unknown-agent", resume.Request{Session: "lonely", To: "windsurf", OutDir: t.TempDir()}, resume.UnknownAgent, 2},
		{"capture-only", resume.Request{Session: "lonely", To: "cursor", OutDir: t.TempDir()}, resume.UnknownAgent, 2},
		{"too-deep", resume.Request{Session: "a", To: "claude-code", OutDir: t.TempDir()}, resume.TooDeep, 2},
		{"native-cwd-gone", resume.Request{Session: "gone", To: "claude-code", Env: testEnv(home)}, resume.CwdMissing, 2},
		{"no-home", resume.Request{Session: "lonely", To: "claude-code", Env: testEnv("")}, resume.NoNativeDir, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := restore(t, s, tc.req)
			if o.Status != tc.want || o.Code != tc.code {
				t.Errorf("got %s (code %d): %s; want %s (code %d)", o.Status, o.Code, o.Message, tc.want, tc.code)
			}
			if o.Message == "" {
				t.Error("no message says why")
			}
			if tc.name == "capture-only" && !strings.Contains(o.Message, "unsupported") {
				t.Errorf("a capture-only agent's refusal %q does not say restoring into it is unsupported", o.Message)
			}
		})
	}
	if got := tree(t, home); len(got) > 0 {
		t.Errorf("refused restores wrote into the home: %v", got)
	}
}

// TestNativeDestination restores into the agent's real layout under a fake home: the file is
// where Claude Code looks for it, its mtime is the restore's, and the command cds to the cwd.
func TestNativeDestination(t *testing.T) {
	s := openStore(t)
	cwd := t.TempDir()
	synthetic(t, s, cwd, map[string]string{"3b2a1c0d-0000-4000-8000-000000000001": ""})
	home := t.TempDir()
	o := restore(t, s, resume.Request{Session: "3b2a1c0d-0000-4000-8000-000000000001", To: "claude-code", OutDir: "native", Env: testEnv(home)})
	if o.Status != resume.OK {
		t.Fatalf("%s: %s", o.Status, o.Message)
	}
	want := filepath.Join(home, ".claude", "projects", strings.NewReplacer("/", "-", ".", "-", "_", "-").Replace(cwd), "3b2a1c0d-0000-4000-8000-000000000001.jsonl")
	if len(o.Files) != 1 || o.Files[0].Path != want || o.Files[0].Fidelity != resume.Native {
		t.Fatalf("files %+v, want one native file at %s", o.Files, want)
	}
	info, err := os.Stat(want)
	if err != nil {
		t.Fatal(err)
	}
	if !info.ModTime().Equal(fixedNow()) || info.Mode().Perm() != 0o600 {
		t.Errorf("mtime %v mode %v, want %v and 0600", info.ModTime(), info.Mode().Perm(), fixedNow())
	}
	if want := "cd " + cwd + " && claude --resume 3b2a1c0d-0000-4000-8000-000000000001"; o.Command != want {
		t.Errorf("command %q, want %q", o.Command, want)
	}
	if got := tree(t, filepath.Dir(want)); len(got) != 1 {
		t.Errorf("temporary files left beside the restore: %v", got)
	}
}

// TestNativeRootFromCaller: a native restore writes under the Root the caller resolved in its
// own environment (the CLI, for the daemon), not the one the restoring process's Env names.
func TestNativeRootFromCaller(t *testing.T) {
	s := openStore(t)
	cwd := t.TempDir()
	synthetic(t, s, cwd, map[string]string{"3b2a1c0d-0000-4000-8000-000000000001": ""})
	callerHome, ownHome := t.TempDir(), t.TempDir()
	root := resume.NativeRoot("claude-code", testEnv(callerHome))
	if want := filepath.Join(callerHome, ".claude"); root != want {
		t.Fatalf("NativeRoot %q, want %q", root, want)
	}
	if got := resume.NativeRoot("windsurf", testEnv(callerHome)); got != "" {
		t.Errorf("NativeRoot of an agent Pond does not restore into: %q, want none", got)
	}
	o := restore(t, s, resume.Request{Session: "3b2a1c0d-0000-4000-8000-000000000001", To: "claude-code", OutDir: "native", Root: root, Env: testEnv(ownHome)})
	if o.Status != resume.OK || o.Root != root || len(o.Files) != 1 || !strings.HasPrefix(o.Files[0].Path, root+"/projects/") {
		t.Fatalf("outcome %+v, want one file under %s", o, root)
	}
	if got := tree(t, ownHome); len(got) != 0 {
		t.Errorf("the restoring process's own home got %v", got)
	}
}
