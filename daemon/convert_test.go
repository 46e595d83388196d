package daemon

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/embed"
	"github.com/pondhq/pond/embed/model"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/resume"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store"
)

// TestWireTypesMirrorTheStore: the API's wire types carry every field of the store's types
// (apitype may not import the store). A field added on one side and not the other fails here.
func TestWireTypesMirrorTheStore(t *testing.T) {
	yes, three := true, 3
	info := store.SessionInfo{ID: "s", SourceAgent: "a", Project: "/p", CreatedAt: "t", ParentSessionID: "ps", Messages: 2}
	view := store.MessageView{ID: "m", SessionID: "s", Role: "user", Timestamp: "t", Text: "x", Content: "c",
		PartsSummary: []store.PartSummary{{Kind: "tool_call", Label: "l", CallID: "c", Failed: &yes}}}
	tests := []struct {
		name        string
		store, wire any
	}{
		{"search_request", &store.SearchRequest{Query: "q", Mode: "fts", SortBy: "recency", Limit: 3,
			Filters: store.SearchFilters{Project: "re:^/p", SessionID: "s", SourceAgent: "a", FromDate: "d1", ToDate: "d2", Role: "user"}},
			&apitype.SearchRequest{}},
		{"search_result", &store.SearchResult{Query: "q", Mode: "fts", SortBy: "relevance", MatchedTotal: 1, MatchedTotalIsLowerBound: true,
			SearchableInScope: 2, HasMore: true, Reason: "r", Hint: "h", Notes: []string{"n"}, ElapsedMS: 1.5,
			Sessions: []store.SessionHits{{SessionID: "s", Project: "/p", SourceAgent: "a", CreatedAt: "t", SessionMessagesCount: 4,
				MatchedMessageCount: 1, BestScore: 1, Matches: []store.Hit{{SessionID: "s", MessageID: "m", Role: "user", Timestamp: "t",
					Score: 0.5, Text: "x", Highlights: [][2]int{{0, 1}}}}}}},
			&apitype.SearchResult{}},
		{"get_session_request", &store.GetSessionRequest{ID: "s", Limit: 5, From: "end", AfterMessageID: "a", BeforeMessageID: "b"},
			&apitype.GetSessionRequest{}},
		{"session_page", &store.SessionPage{Session: info, Scope: "session", Messages: []store.MessageView{view}, FirstIndex: 1,
			BeforeRemaining: 2, AfterRemaining: 3, ResolvedFromMessageID: "m", Subagents: []store.SessionInfo{info}},
			&apitype.SessionPage{}},
		{"get_message_request", &store.GetMessageRequest{ID: "m", SessionID: "s", ContextBefore: &three, ContextAfter: &three},
			&apitype.GetMessageRequest{}},
		{"message_detail", &store.MessageDetail{Session: info, Scope: "message", Target: view, TargetPartsRemaining: 1,
			TargetParts: []session.Part{{SessionID: "s", MessageID: "m", ID: "p", Type: session.PartText, Provenance: session.Conversational, Text: "x"}},
			Before:      []store.MessageView{view}, After: []store.MessageView{view}, AlsoInSessions: []string{"s2"}},
			&apitype.MessageDetail{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkMirror(t, tt.store, tt.wire) })
	}
}

// TestWireTypesMirrorResumeAndModels does the same for the restore outcome and the model
// manager's records.
func TestWireTypesMirrorResumeAndModels(t *testing.T) {
	file := resume.File{Path: "/r/p/f.jsonl", Session: "s", ID: "id", Fidelity: resume.Downgraded, Reason: "r", Bytes: 9, Sidecar: true}
	tests := []struct {
		name string
		ours any
		wire any
	}{
		{"resume_outcome", &resume.Outcome{Status: resume.TargetExists, Code: 3, Message: "m", Session: "s", From: "claude-code", To: "codex-cli",
			Native: true, Root: "/r", ID: "id", Cwd: "/c", Command: "cd /c && codex resume id", Files: []resume.File{file}},
			&apitype.ResumeOutcome{}},
		{"installed_model", &model.Installed{ID: "n@r", Source: "hf", InstalledAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
			Files: []model.InstalledFile{{Name: "model.onnx", SHA256: "ab", Size: 3, Trust: model.Pinned}},
			Config: embed.ModelConfig{Name: "n", Variant: "int8", Source: "s", Dimensions: 384, MaxTokens: 512, Pooling: "mean", Normalize: true,
				QueryPrefix: "query: ", PassagePrefix: "passage: ", BatchSize: 1}, Dir: "/m/n@r"},
			&apitype.InstalledModel{}},
		{"model_problem", &model.Problem{File: "f", Detail: "d"}, &apitype.ModelProblem{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkMirror(t, tt.ours, tt.wire) })
	}
}

// checkMirror converts ours to its wire type and back, and wants every field kept.
func checkMirror(t *testing.T, ours, wire any) {
	t.Helper()
	if err := Convert(ours, wire); err != nil {
		t.Fatal(err)
	}
	back := reflect.New(reflect.TypeOf(ours).Elem()).Interface()
	if err := Convert(wire, back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ours, back); diff != "" {
		t.Errorf("ours -> wire -> ours lost fields (-want +got):\n%s", diff)
	}
	if nw, no := reflect.TypeOf(wire).Elem().NumField(), reflect.TypeOf(ours).Elem().NumField(); nw < no {
		t.Errorf("wire type has %d fields, ours %d", nw, no)
	}
}
