package copilot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// uuidRE is the envelope id Copilot requires ("invalid session event envelope: `id` must be a
// UUID string").
var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func foreignTranscript(id string, at time.Time) *restore.Transcript {
	return &restore.Transcript{
		Session: session.Session{ID: id, SourceAgent: "opencode", Project: "/srv/app", CreatedAt: at},
		Messages: []session.Message{
			{SessionID: id, ID: "m1", Role: session.RoleUser, Timestamp: at},
			{SessionID: id, ID: "m2", Role: session.RoleAssistant, Timestamp: at.Add(time.Second)},
			{SessionID: id, ID: "m3", Role: session.RoleTool, Timestamp: at.Add(2 * time.Second)},
			{SessionID: id, ID: "m4", Role: session.RoleAssistant, Timestamp: at.Add(3 * time.Second)},
		},
		Parts: map[string][]session.Part{
			"m1": {{Type: session.PartText, Provenance: session.Conversational, Text: "list the files"}},
			"m2": {
				{Type: session.PartText, Provenance: session.Conversational, Text: "Listing."},
				{Type: session.PartToolCall, Provenance: session.Conversational, CallID: "call.1", Name: "bash", Params: json.RawMessage(`{"cmd":"ls"}`)},
				{Type: session.PartToolCall, Provenance: session.Conversational, CallID: "call2", Name: "read", Params: json.RawMessage(`"a.go"`)},
			},
			"m3": {
				{Type: session.PartToolResult, Provenance: session.Conversational, CallID: "call.1", Name: "bash", Result: json.RawMessage(`"a.go"`)},
				{Type: session.PartToolResult, Provenance: session.Conversational, CallID: "call2", Name: "read", IsFailure: true, Result: json.RawMessage(`"no such file"`)},
				{Type: session.PartToolResult, Provenance: session.Conversational, CallID: "lost", Name: "bash", Result: json.RawMessage(`"from a call not captured"`)},
			},
			"m4": {{Type: session.PartText, Provenance: session.Conversational, Text: "One file."}},
		},
	}
}

// TestForeignEvents: a foreign restore is events Copilot loads: session.start first with the
// restored id and the project as cwd, every envelope id a UUID and every time with its zone,
// chained by parentId; the mark in a session.info; each call answered once, a failure as an
// error; and reading it back gives the conversation and the mark.
func TestForeignEvents(t *testing.T) {
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	root := t.TempDir()
	plan, err := Adapter{}.Encode(&restore.Job{Batch: []*restore.Transcript{foreignTranscript("ses_other", at)}, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	f := plan.Files[0]
	if want := filepath.Join(root, "session-state", plan.ID, "events.jsonl"); f.Path != want || !uuidRE.MatchString(plan.ID) {
		t.Errorf("path %s (id %s), want %s", f.Path, plan.ID, want)
	}
	if diff := cmp.Diff([][]string{{"copilot", "--resume", plan.ID}}, plan.Argv); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
	type ev struct {
		Type      string
		ID        string
		Timestamp string
		ParentID  *string
		Data      struct {
			SessionID    string
			Context      struct{ Cwd string }
			InfoType     string
			Message      string
			Content      string
			ToolRequests []struct{ ToolCallID, Name string }
			ToolCallID   string
			Success      *bool
			Result       *struct{ Content string }
			Error        *struct{ Message string }
		}
	}
	var types, texts, calls, results []string
	prev := ""
	sc := bufio.NewScanner(bytes.NewReader(f.Data))
	for i := 0; sc.Scan(); i++ {
		var e ev
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		if !uuidRE.MatchString(e.ID) {
			t.Errorf("event %d: id %q is no UUID", i, e.ID)
		}
		if _, err := time.Parse(time.RFC3339, e.Timestamp); err != nil {
			t.Errorf("event %d: timestamp %q", i, e.Timestamp)
		}
		if (i == 0) != (e.ParentID == nil) || (i > 0 && *e.ParentID != prev) {
			t.Errorf("event %d: parentId %v, want the event before's (%q)", i, e.ParentID, prev)
		}
		prev = e.ID
		types = append(types, e.Type)
		switch e.Type {
		case "session.start":
			if e.Data.SessionID != plan.ID || e.Data.Context.Cwd != "/srv/app" {
				t.Errorf("session.start: sessionId %q cwd %q", e.Data.SessionID, e.Data.Context.Cwd)
			}
		case "session.info":
			if e.Data.InfoType != markInfo || !json.Valid([]byte(e.Data.Message)) {
				t.Errorf("session.info %+v is no restore mark", e.Data)
			}
		case "user.message", "assistant.message":
			if i > 2 && e.Data.Content != "" {
				texts = append(texts, e.Type+": "+e.Data.Content)
			}
			for _, r := range e.Data.ToolRequests {
				calls = append(calls, r.ToolCallID+" "+r.Name)
			}
		case "tool.execution_complete":
			switch {
			case e.Data.Success != nil && *e.Data.Success && e.Data.Result != nil:
				results = append(results, e.Data.ToolCallID+" ok "+e.Data.Result.Content)
			case e.Data.Success != nil && !*e.Data.Success && e.Data.Error != nil:
				results = append(results, e.Data.ToolCallID+" failed "+e.Data.Error.Message)
			default:
				t.Errorf("tool.execution_complete %+v is neither a result nor an error", e.Data)
			}
		}
	}
	if types[0] != "session.start" || types[1] != "session.info" || types[2] != "user.message" {
		t.Errorf("event types %v: want session.start, the mark, the note first", types)
	}
	id := restore.AnthropicCallID("call.1")
	for _, tc := range []struct {
		what      string
		got, want []string
	}{
		{"texts", texts, []string{"user.message: list the files", "assistant.message: Listing.", "user.message: [tool result] from a call not captured", "assistant.message: One file."}},
		{"calls", calls, []string{id + " bash", "call2 read"}},
		{"results", results, []string{id + " ok a.go", "call2 failed no such file"}},
	} {
		if diff := cmp.Diff(tc.want, tc.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.what, diff)
		}
	}

	writeFiles(t, plan)
	var back adaptertest.Collector
	adaptertest.ReadRoot(t, Adapter{}, testEnv, root, nil, &back)
	s := back.Sessions()[plan.ID]
	var mark restore.Mark
	if err := json.Unmarshal(s.Options["pond"], &struct {
		RestoredFrom *restore.Mark `json:"restored_from"`
	}{&mark}); err != nil || mark.Session != "ses_other" {
		t.Errorf("read back: options.pond %s, want restored_from ses_other", s.Options["pond"])
	}
	if s.ParentSessionID != "ses_other" || s.Project != "/srv/app" {
		t.Errorf("read back: parent %q project %q", s.ParentSessionID, s.Project)
	}
}

// TestForeignChildren: a session's sub-agents of another agent become sessions of their own,
// linked to the restored session by the mark (Copilot has no field for a sub-agent it did not
// run), each resumable.
func TestForeignChildren(t *testing.T) {
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	parent, child := foreignTranscript("ses_parent", at), foreignTranscript("ses_child", at)
	child.Session.SourceAgent, child.Session.ParentSessionID = "opencode/subagent", "ses_parent"
	root := t.TempDir()
	plan, err := Adapter{}.Encode(&restore.Job{Batch: []*restore.Transcript{parent, child}, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 2 || plan.Files[1].Session != "ses_child" || plan.Files[1].ID == plan.ID {
		t.Fatalf("files %+v, want one for the parent and one for the child", plan.Files)
	}
	writeFiles(t, plan)
	var back adaptertest.Collector
	adaptertest.ReadRoot(t, Adapter{}, testEnv, root, nil, &back)
	if got := back.Sessions()[plan.Files[1].ID]; got.ParentSessionID != plan.ID {
		t.Errorf("the child's parent %q, want the restored session %s", got.ParentSessionID, plan.ID)
	}
}

// TestNativeWithSubagents: a native restore of a session with its sub-agents is one file, the
// original's lines in place (a torn line left blank), naming the sub-agents it holds.
func TestNativeWithSubagents(t *testing.T) {
	c := readTestdata(t)
	ts := c.Transcripts()
	batch := []*restore.Transcript{ts[demoID], ts[demoID+"/agent-"+agentA], ts[demoID+"/agent-"+agentB]}
	plan, err := Adapter{}.Encode(&restore.Job{Batch: batch, Native: true, Root: "/r"})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 1 || plan.ID != demoID {
		t.Fatalf("plan %s with %d files, want %s in one", plan.ID, len(plan.Files), demoID)
	}
	f := plan.Files[0]
	if f.Path != "/r/session-state/"+demoID+"/events.jsonl" || f.Fidelity != restore.Native {
		t.Errorf("%s: %s (%s)", f.Path, f.Fidelity, f.Reason)
	}
	if diff := cmp.Diff([]string{demoID + "/agent-" + agentA, demoID + "/agent-" + agentB}, f.Includes); diff != "" {
		t.Errorf("includes (-want +got):\n%s", diff)
	}
	orig, err := os.ReadFile(filepath.Join("testdata", demoKey))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(orig, []byte("\n"))
	lines[9] = nil // the torn line
	if want := bytes.Join(lines, []byte("\n")); !bytes.Equal(f.Data, want) {
		t.Errorf("the restored file is not the original:\n%s", f.Data)
	}
}

// TestNativeLoneSubagent: a sub-agent restored without its session cannot be its parent's
// file: it is rebuilt as a session of its own, and says so.
func TestNativeLoneSubagent(t *testing.T) {
	c := readTestdata(t)
	sub := c.Transcripts()[demoID+"/agent-"+agentA]
	plan, err := Adapter{}.Encode(&restore.Job{Batch: []*restore.Transcript{sub}, Native: true, Root: "/r"})
	if err != nil {
		t.Fatal(err)
	}
	f := plan.Files[0]
	if f.Fidelity != restore.Downgraded || !uuidRE.MatchString(plan.ID) || !bytes.HasPrefix(f.Data, []byte(`{"type":"session.start"`)) {
		t.Errorf("%s: %s (%s), want a downgraded session of its own", plan.ID, f.Fidelity, f.Reason)
	}
}

// TestNativeRefusesUnsafeIDs: a stored id that cannot be a folder name refuses the restore (the
// archive may hold someone else's export).
func TestNativeRefusesUnsafeIDs(t *testing.T) {
	for _, id := range []string{"../x", "a/b", ".."} {
		tr := &restore.Transcript{Session: session.Session{ID: id, SourceAgent: Name, Project: "/srv/app"}}
		if plan, err := (Adapter{}).Encode(&restore.Job{Batch: []*restore.Transcript{tr}, Native: true, Root: "/r"}); err == nil {
			t.Errorf("%q: planned %s", id, plan.Files[0].Path)
		}
	}
}

// writeFiles writes a plan's files as resume would (never over one).
func writeFiles(t *testing.T, plan *restore.Plan) {
	t.Helper()
	for _, f := range plan.Files {
		if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
			t.Fatal(err)
		}
		w, err := os.OpenFile(f.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(f.Data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
