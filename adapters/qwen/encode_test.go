package qwen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// TestForeignRecords: a foreign restore is what Qwen loads (prepareTranscriptRecords, then
// sessionBelongsToCurrentProject): one sessionId in every record, the project as the first
// record's cwd, a parentUuid chain, a call and its result paired by id; and every text of the
// conversation, a result whose call was not captured included.
func TestForeignRecords(t *testing.T) {
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	tr := &restore.Transcript{
		Session: session.Session{ID: "ses_other", SourceAgent: "opencode", Project: "/srv/app", CreatedAt: at},
		Messages: []session.Message{
			{SessionID: "ses_other", ID: "m1", Role: session.RoleUser, Timestamp: at},
			{SessionID: "ses_other", ID: "m2", Role: session.RoleAssistant, Timestamp: at.Add(time.Second)},
			{SessionID: "ses_other", ID: "m3", Role: session.RoleTool, Timestamp: at.Add(2 * time.Second)},
		},
		Parts: map[string][]session.Part{
			"m1": {{Type: session.PartText, Provenance: session.Conversational, Text: "list the files"}},
			"m2": {{Type: session.PartToolCall, Provenance: session.Conversational, CallID: "call.1", Name: "bash", Params: json.RawMessage(`{"cmd":"ls"}`)}},
			"m3": {
				{Type: session.PartToolResult, Provenance: session.Conversational, CallID: "call.1", Name: "bash", Result: json.RawMessage(`"a.go"`)},
				{Type: session.PartToolResult, Provenance: session.Conversational, CallID: "lost", Name: "bash", Result: json.RawMessage(`"from a call not captured"`)},
			},
		},
	}
	plan, err := Adapter{}.Encode(&restore.Job{Batch: []*restore.Transcript{tr}, Root: "/r"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "/r/projects/-srv-app/chats/" + plan.ID + ".jsonl"; plan.Files[0].Path != want {
		t.Errorf("path %s, want %s", plan.Files[0].Path, want)
	}
	type rec struct {
		UUID, SessionID, Type, Cwd string
		ParentUUID                 *string
		Message                    struct {
			Parts []struct {
				Text             *string
				FunctionCall     *struct{ ID, Name string }
				FunctionResponse *struct{ ID, Name string }
			}
		}
		Mark json.RawMessage `json:"pond_restored_from"`
	}
	var texts, calls, results []string
	prev := ""
	sc := bufio.NewScanner(bytes.NewReader(plan.Files[0].Data))
	for i := 0; sc.Scan(); i++ {
		var r rec
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.SessionID != plan.ID || r.Cwd != "/srv/app" {
			t.Errorf("record %d: sessionId %q cwd %q, want %q, /srv/app", i, r.SessionID, r.Cwd, plan.ID)
		}
		if (i == 0) != (r.ParentUUID == nil) || (i > 0 && *r.ParentUUID != prev) {
			t.Errorf("record %d: parentUuid %v, want the record before's (%q)", i, r.ParentUUID, prev)
		}
		if (i == 0) != (len(r.Mark) > 0) {
			t.Errorf("record %d: restore mark %s", i, r.Mark)
		}
		prev = r.UUID
		for _, p := range r.Message.Parts {
			switch {
			case p.Text != nil && i > 0:
				texts = append(texts, r.Type+": "+*p.Text)
			case p.FunctionCall != nil:
				calls = append(calls, p.FunctionCall.ID+" "+p.FunctionCall.Name)
			case p.FunctionResponse != nil:
				results = append(results, p.FunctionResponse.ID+" "+p.FunctionResponse.Name)
			}
		}
	}
	want := []string{"user: list the files", "user: [tool result] from a call not captured"}
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("texts (-want +got):\n%s", diff)
	}
	id := restore.AnthropicCallID("call.1")
	if diff := cmp.Diff([]string{id + " bash"}, calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{id + " bash"}, results); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

// TestNativeRefusesUnsafePaths: a stored path or id that would take a native restore outside
// Qwen's folder (an archive may hold someone else's export) refuses the restore; a session id
// that is no Qwen file name never becomes one: the file gets a name of Qwen's pattern, and the
// restore says so.
func TestNativeRefusesUnsafePaths(t *testing.T) {
	for _, tc := range []struct {
		name, id, source string
	}{
		{"path_up", "0f0e0d0c-0b0a-4909-8807-060504030201", `{"path":"projects/../../etc/0f0e0d0c-0b0a-4909-8807-060504030201.jsonl"}`},
		{"agent_up", "0f0e0d0c-0b0a-4909-8807-060504030201/agent-x", `{"kind":"subagent","agent_id":"../../x"}`},
		{"parent_up", "../x/agent-a", `{"kind":"subagent","agent_id":"a"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &restore.Transcript{Session: session.Session{ID: tc.id, SourceAgent: Name, Project: "/srv/app",
				Options: session.Options{"source": json.RawMessage(tc.source)}}}
			if plan, err := (Adapter{}).Encode(&restore.Job{Batch: []*restore.Transcript{tr}, Native: true, Root: "/r"}); err == nil {
				t.Errorf("planned %s", plan.Files[0].Path)
			}
		})
	}
}

func TestNativeNamesForeignIDs(t *testing.T) {
	// An id of another agent's shape (OpenCode's); a hostile one is refused (TestHostileIDsRefused in resume).
	tr := &restore.Transcript{Session: session.Session{ID: "ses_3c6b1a2f0ffeTz8Yq2WbL0nJxu", SourceAgent: Name, Project: "/srv/app",
		Options: session.Options{"source": json.RawMessage(`{}`)}}}
	plan, err := Adapter{}.Encode(&restore.Job{Batch: []*restore.Transcript{tr}, Native: true, Root: "/r"})
	if err != nil {
		t.Fatal(err)
	}
	f := plan.Files[0]
	if want := "/r/projects/-srv-app/chats/" + plan.ID + ".jsonl"; f.Path != want || !sessionFile.MatchString(plan.ID+".jsonl") {
		t.Errorf("planned %s as %s, want %s", f.Path, plan.ID, want)
	}
	if f.Fidelity != restore.Downgraded || f.Reason != restore.IDFromFileName {
		t.Errorf("fidelity %s (%s), want downgraded: %s", f.Fidelity, f.Reason, restore.IDFromFileName)
	}
}
