package resume_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/all"
	adrestore "github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/resume"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store"
)

// The tests below write as an attacker would: stored sessions carrying values that name where a
// native restore writes. Through the ingest route or `pond import` such values no longer reach
// options.source (the store keeps them apart, under options.untrusted), so the encoders' own
// checks are tested with sessions stored under a local adapter's stamp: what a crafted agent
// file, or an archive written before that rule, holds.

// planted is a session of agent with the given options.source and one user message whose raw
// record is a harmless line (what an attacker wants written: a login script).
func planted(id, parent, agent, project, source string) []session.Event {
	at := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	return []session.Event{
		{Session: &session.Session{ID: id, ParentSessionID: parent, SourceAgent: agent, Project: project, CreatedAt: at,
			Options: session.Options{"source": json.RawMessage(source)}}},
		{Message: &session.Message{SessionID: id, ID: "m1", Role: session.RoleUser, Timestamp: at,
			Options: session.Options{"source": json.RawMessage(`{"line":1,"record":{"type":"user","text":"touch PWNED"}}`)}}},
		{Part: &session.Part{SessionID: id, MessageID: "m1", ID: "m1:0", Type: session.PartText, Provenance: session.Conversational, Text: "touch PWNED"}},
	}
}

// TestHostileStoredPaths: a stored path part that leaves the agent's folder is refused with
// unsafe_path, for each encoder that joins one, and nothing is written, neither outside the
// agent's folder nor in it.
func TestHostileStoredPaths(t *testing.T) {
	cases := []struct {
		name, agent, source, parent, field string
	}{
		{"claude-code/source-path", "claude-code", `{"path":"projects/../../.bash_profile"}`, "", "options.source.path"},
		{"claude-code/source-path-not-a-transcript", "claude-code", `{"path":"projects/x/settings.json"}`, "", "options.source.path"},
		{"claude-code/agent-id", "claude-code/subagent", `{"kind":"subagent","agent_id":"x/../../../../../../.bash_profile"}`, "p1", "options.source.agent_id"},
		{"claude-code/workflow", "claude-code/subagent", `{"kind":"subagent","workflow":"../../../../../..","agent_id":"a1"}`, "p1", "options.source.workflow"},
		{"claude-code/legacy-agent-id", "claude-code", `{"kind":"legacy-subagent","agent_id":"/../../../.bash_profile"}`, "", "options.source.agent_id"},
		{"pi-coding-agent/file", "pi-coding-agent", `{"file":"../../../.bash_profile"}`, "", "options.source.file"},
		{"gemini-cli/project-dir", "gemini-cli", `{"project_dir":"../..","file":"session-2026-05-01T10-00-s1.jsonl"}`, "", "project folder"},
		{"gemini-cli/file", "gemini-cli", `{"project_dir":"p","file":"session-/../../../../../.bash_profile"}`, "", "options.source.file"},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t)
			home, cwd := t.TempDir(), t.TempDir()
			to, _, _ := strings.Cut(tc.agent, "/")
			upsertAs(t, s, planted("s1", tc.parent, tc.agent, cwd, tc.source), to)
			o, err := resume.Restore(ctx, archive{s}, resume.Request{Session: "s1", To: to, OutDir: "native", Env: testEnv(home), Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			if o.Status != resume.UnsafePath || o.Code != 2 {
				t.Fatalf("got %s (code %d): %s; want unsafe_path (code 2)", o.Status, o.Code, o.Message)
			}
			if !strings.Contains(o.Message, tc.field) || !strings.Contains(o.Message, "nothing was written") {
				t.Errorf("message %q does not name %s and say that nothing was written", o.Message, tc.field)
			}
			if got := tree(t, home); len(got) > 0 {
				t.Errorf("the refused restore wrote %v", got)
			}
		})
	}
}

// TestHostileIDsRefused: a session id that would name a file outside the agent's folder (Codex
// rollouts and OpenCode import documents are named after it) or run in a shell is refused by
// the store, whichever way it comes in; and an archive that holds one from before is refused
// by every encoder.
func TestHostileIDsRefused(t *testing.T) {
	ctx := context.Background()
	hostile := []string{"../../../.bash_profile", "x;touch${IFS}PWNED", "-c"}
	s := openStore(t)
	for _, id := range hostile {
		for _, stamp := range []string{"codex-cli", "api", "import"} {
			out, err := s.Upsert(ctx, planted(id, "", "codex-cli", "/p", `{}`), store.Stamp{Adapter: stamp})
			if err != nil {
				t.Fatal(err)
			}
			if out.Rejected.Sessions != 1 || !strings.Contains(out.Rows[0].Error, "id") {
				t.Errorf("%s stored through %s: %+v, want the session rejected for its id", id, stamp, out.Rows[0])
			}
		}
		o, err := resume.Restore(ctx, archive{s}, resume.Request{Env: rowsEnv, Session: id, To: "codex-cli", OutDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if o.Status != resume.NotStored {
			t.Errorf("restore of %s: %s, want not_stored", id, o.Status)
		}
	}
	// An archive written before ids were checked: the encoders refuse to name files after one.
	for _, to := range resume.Targets() {
		a, _ := all.ByName(to)
		enc := a.(adrestore.Encoder)
		for _, id := range hostile[:2] {
			root := t.TempDir()
			tr := &adrestore.Transcript{Session: session.Session{ID: id, SourceAgent: to, Project: "/p", CreatedAt: time.Unix(1e9, 0), Options: session.Options{"source": json.RawMessage(`{}`)}}}
			_, err := enc.Encode(&adrestore.Job{Batch: []*adrestore.Transcript{tr}, Native: true, Root: root, ImportDir: root})
			var unsafe *adrestore.UnsafeError
			if !errors.As(err, &unsafe) {
				t.Errorf("%s: encoding a session with id %q gives %v, want a refusal", to, id, err)
			}
		}
	}
}

// TestPlantedChildNeverJoins: a session that names a real, locally captured session as its
// parent, but came through the ingest route or an import, is not restored with it, even when
// it claims to be its sub-agent; what it names is never written.
func TestPlantedChildNeverJoins(t *testing.T) {
	for _, via := range []string{"api", "import"} {
		t.Run(via, func(t *testing.T) {
			s := claudeStore(t)
			// The store refuses rows from the API or an import that graft onto a local session;
			// whatever it keeps of them, the restore must not pick up.
			if _, err := s.Upsert(context.Background(), planted("b0a7e1d2-0000-4000-8000-00000000beef", claudeDemo, "claude-code/subagent", "/srv/demo", `{"kind":"subagent","agent_id":"evil","path":"projects/-srv-demo/`+claudeDemo+`/subagents/agent-evil.jsonl"}`), store.Stamp{Adapter: via}); err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			out := filepath.Join(home, ".claude")
			o := restore(t, s, resume.Request{Session: claudeDemo, To: "claude-code", OutDir: out})
			if o.Status != resume.OK {
				t.Fatalf("%s: %s", o.Status, o.Message)
			}
			for _, f := range o.Files {
				if f.Session == "b0a7e1d2-0000-4000-8000-00000000beef" || strings.Contains(f.Path, "evil") {
					t.Errorf("the planted session was restored: %+v", f)
				}
			}
			if len(o.Files) < 2 {
				t.Errorf("files %+v: the real sub-agents are missing", o.Files)
			}
		})
	}
}

// TestLineageIsSubagentsOnly: a captured copy of a foreign restore names its original as its
// parent (for search), and has children of its own; it is no sub-agent of the original, so a
// later restore of the original neither takes it along nor answers too_deep. A fork (a session
// of the same agent naming the original as parent) stays out too.
func TestLineageIsSubagentsOnly(t *testing.T) {
	ctx := context.Background()
	s := claudeStore(t)
	first := restore(t, s, resume.Request{Session: claudeDemo, To: "codex-cli", OutDir: t.TempDir()})
	if first.Status != resume.OK {
		t.Fatalf("%s: %s", first.Status, first.Message)
	}
	// The daemon captures the restored rollouts, as it would in ~/.codex.
	var c adaptertest.Collector
	codex, _ := all.ByName("codex-cli")
	adaptertest.ReadRoot(t, codex, testEnv(first.Root), first.Root, nil, &c)
	upsert(t, s, c.Events)
	copyOf, err := s.ReadTranscript(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	kids, _ := s.ChildSessionIDs(ctx, first.ID)
	if copyOf.Session.ParentSessionID != claudeDemo || len(kids) == 0 {
		t.Fatalf("the captured copy has parent %q and %d children; the test needs the original as parent and children", copyOf.Session.ParentSessionID, len(kids))
	}
	fork := planted("f0f0f0f0-0000-4000-8000-000000000001", claudeDemo, "claude-code", "/srv/demo", `{}`)
	upsert(t, s, fork)

	sessions := func(o *resume.Outcome) []string {
		var out []string
		for _, f := range o.Files {
			if !f.Sidecar {
				out = append(out, f.Session)
			}
		}
		sort.Strings(out)
		return out
	}
	want := sessions(first)
	for _, to := range []string{"claude-code", "pi-coding-agent"} {
		o := restore(t, s, resume.Request{Session: claudeDemo, To: to, OutDir: t.TempDir()})
		if o.Status != resume.OK {
			t.Fatalf("restore into %s after capturing a copy: %s: %s", to, o.Status, o.Message)
		}
		if diff := cmp.Diff(want, sessions(o)); diff != "" {
			t.Errorf("into %s: the sessions restored are not the session and its sub-agents (-want +got):\n%s", to, diff)
		}
	}
}

// TestOutDirRefusesLinksAndOthersFolders: --out-dir under a folder others can write follows
// nobody's link and enters no folder of another user.
func TestOutDirRefusesLinksAndOthersFolders(t *testing.T) {
	s := claudeStore(t)
	shared := t.TempDir() // stands for /tmp
	if err := os.Chmod(shared, 0o1777); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir() // where the other user wants the files
	if err := os.Symlink(elsewhere, filepath.Join(shared, "link")); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"link":       filepath.Join(shared, "link"),
		"below-link": filepath.Join(shared, "link", "restore"),
	}
	if os.Getuid() == 0 {
		theirs := filepath.Join(shared, "theirs")
		if err := os.Mkdir(theirs, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases["others-folder"] = theirs
		cases["below-others-folder"] = filepath.Join(theirs, "restore")
	} else {
		t.Log("not root: the case of a folder of another user (chown to 65534) is not run")
	}
	for name, dir := range cases {
		t.Run(name, func(t *testing.T) {
			o := restore(t, s, resume.Request{Session: claudeDemo, To: "claude-code", OutDir: dir})
			if o.Status != resume.UnsafePath || o.Code != 2 {
				t.Fatalf("got %s (code %d): %s; want unsafe_path", o.Status, o.Code, o.Message)
			}
			if got := tree(t, elsewhere); len(got) > 0 {
				t.Errorf("written through the link: %v", got)
			}
			if got := tree(t, filepath.Join(shared, "theirs")); len(got) > 0 {
				t.Errorf("written into the other user's folder: %v", got)
			}
		})
	}
	// A folder of one's own under the shared one is fine.
	mine := filepath.Join(shared, "mine")
	if o := restore(t, s, resume.Request{Session: claudeDemo, To: "claude-code", OutDir: mine}); o.Status != resume.OK {
		t.Errorf("own folder: %s: %s", o.Status, o.Message)
	}
}

// TestLinkOutOfTheAgentsFolder: a link inside the agent's folder that leads out of it is never
// followed; a restore through it is refused and writes nothing on either side.
func TestLinkOutOfTheAgentsFolder(t *testing.T) {
	s := claudeStore(t)
	home, elsewhere := t.TempDir(), t.TempDir()
	root := filepath.Join(home, ".claude")
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(root, "projects")); err != nil {
		t.Fatal(err)
	}
	before := tree(t, home)
	o := restore(t, s, resume.Request{Session: claudeDemo, To: "claude-code", OutDir: root})
	if o.Status != resume.UnsafePath {
		t.Fatalf("got %s: %s; want unsafe_path", o.Status, o.Message)
	}
	if !strings.Contains(o.Message, "outside the agent's folder") {
		t.Errorf("message %q does not say why", o.Message)
	}
	if got := tree(t, elsewhere); len(got) > 0 {
		t.Errorf("written through the link: %v", got)
	}
	if got := tree(t, home); len(got) != len(before) {
		t.Errorf("the agent's folder changed: %v", got)
	}
}

// TestCommandQuotesArchiveValues: the command a restore prints runs the agent with the stored
// working directory as one word, for every target: a folder named like shell code runs none.
func TestCommandQuotesArchiveValues(t *testing.T) {
	base := t.TempDir()
	cwd := filepath.Join(base, "p;touch PWNED1;$(touch PWNED2)`touch PWNED3`")
	if err := os.Mkdir(cwd, 0o700); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir() // a stand-in for each agent's command, written as the outcomes name them
	s := openStore(t)
	synthetic(t, s, cwd, map[string]string{"3b2a1c0d-0000-4000-8000-000000000001": ""})
	for _, to := range resume.Targets() {
		t.Run(to, func(t *testing.T) {
			o := restore(t, s, resume.Request{Session: "3b2a1c0d-0000-4000-8000-000000000001", To: to, OutDir: t.TempDir()})
			if o.Status != resume.OK {
				t.Fatalf("%s: %s", o.Status, o.Message)
			}
			for _, step := range o.Argv {
				if err := os.WriteFile(filepath.Join(bin, filepath.Base(step[0])), []byte("#!/bin/sh\nexit 0\n"), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("sh", "-c", o.Command)
			cmd.Dir, cmd.Env = base, []string{"PATH=" + bin + ":/usr/bin:/bin"}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", o.Command, err, out)
			}
			for _, dir := range []string{base, cwd} {
				for _, n := range []string{"PWNED1", "PWNED2", "PWNED3"} {
					if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
						t.Fatalf("%s ran stored text as code (%s)", o.Command, n)
					}
				}
			}
		})
	}
}

// TestHugeStoredLineNumber: a stored options.source.line of 10^12 does not make the replay pad
// the file without limit: the gap is closed, and the file says so.
func TestHugeStoredLineNumber(t *testing.T) {
	s := openStore(t)
	events := planted("s1", "", "claude-code", t.TempDir(), `{}`)
	events[1].Message.Options["source"] = json.RawMessage(`{"line":1000000000000,"record":{"type":"user","text":"far away"}}`)
	upsertAs(t, s, events, "claude-code")
	o := restore(t, s, resume.Request{Session: "s1", To: "claude-code", OutDir: t.TempDir()})
	if o.Status != resume.OK || len(o.Files) != 1 {
		t.Fatalf("%s: %s (files %+v)", o.Status, o.Message, o.Files)
	}
	if f := o.Files[0]; f.Bytes > adrestore.MaxBlankLines+1024 || f.Fidelity != resume.Downgraded || !strings.Contains(f.Reason, "left out") {
		t.Errorf("file %+v: want at most %d bytes, downgraded for the closed gap", f, adrestore.MaxBlankLines+1024)
	}
}
