package apitype

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
)

// TestWireJSON: the JSON of what the API carries, against testdata/wire.txtar. The golden file
// was written by the wire's own copies of these types, before they became the read model's, so
// this holds the bytes the daemon and --format json produce to what they always were.
func TestWireJSON(t *testing.T) {
	yes, three, n5 := true, 3, int64(5)
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	info := view.SessionInfo{ID: "s", SourceAgent: "claude-code", Project: "/p", CreatedAt: "2026-01-02T03:04:05Z", ParentSessionID: "ps", Messages: 2}
	mv := view.MessageView{ID: "m", SessionID: "s", Role: "user", Timestamp: "t", Text: "x", Content: "c",
		PartsSummary: []view.PartSummary{{Kind: "tool_call", Label: "Bash", CallID: "c1", Failed: &yes}}}
	values := []struct {
		name string
		v    any
	}{
		{"search_request", SearchRequest{Versioned: Versioned{ProtocolVersion: 1}, SearchRequest: view.SearchRequest{Query: "q", Mode: "fts", SortBy: "recency", Limit: 3,
			Filters: view.SearchFilters{Project: "re:^/p", SessionID: "s", SourceAgent: "a", FromDate: "2026-01-01", ToDate: "2026-01-02", Role: "user"}}}},
		{"search_result", view.SearchResult{Query: "q", Mode: "fts", SortBy: "relevance", MatchedTotal: 1, MatchedTotalIsLowerBound: true,
			SearchableInScope: 2, HasMore: true, Reason: "r", Hint: "h", Notes: []string{"n"}, ElapsedMS: 1.5,
			Sessions: []view.SessionHits{{SessionID: "s", Project: "/p", SourceAgent: "a", CreatedAt: "t", SessionMessagesCount: 4,
				MatchedMessageCount: 1, BestScore: 1, Matches: []view.Hit{{SessionID: "s", MessageID: "m", Role: "user", Timestamp: "t",
					Score: 0.5, Text: "x <b>", Highlights: [][2]int{{0, 1}}}}}}}},
		{"get_session_request", GetSessionRequest{GetSessionRequest: view.GetSessionRequest{ID: "s", SessionID: "s2", Limit: 5, From: "end", AfterMessageID: "a", BeforeMessageID: "b", AtMessageID: "c"}}},
		{"session_page", view.SessionPage{Session: info, Scope: "session", Messages: []view.MessageView{mv}, FirstIndex: 1,
			BeforeRemaining: 2, AfterRemaining: 3, ResolvedFromMessageID: "m", Subagents: []view.SessionInfo{info}}},
		{"get_message_request", GetMessageRequest{GetMessageRequest: view.GetMessageRequest{ID: "m", MessageID: "m2", SessionID: "s", ContextBefore: &three, ContextAfter: &three}}},
		{"message_detail", view.MessageDetail{Session: info, Scope: "message", Target: mv, TargetPartsRemaining: 1,
			TargetParts: []session.Part{{SessionID: "s", MessageID: "m", ID: "p", Type: session.PartText, Provenance: session.Conversational, Text: "x"}},
			Before:      []view.MessageView{mv}, After: []view.MessageView{}, AlsoInSessions: []string{"s2"}}},
		{"status", view.Status{ProtocolVersion: 1, Version: "v", Sessions: 1, Messages: 2, Parts: 3,
			Agents:   []view.AgentCount{{Agent: "claude-code", Sessions: 1, Messages: 2}},
			LastSync: &view.LastSync{FinishedAt: "f", DurationSecs: 1.5, SessionsInserted: 1, MessagesInserted: 2, Outcome: "ok", Error: "e"},
			Consent:  "granted", Adapters: []view.Adapter{{Name: "claude-code", Configured: true, Enabled: true, Path: "/p", Found: []string{"/f"}, Restore: true}},
			Embeddings: view.Embeddings{Enabled: true, Model: "m", Embedded: 1, Pending: 2},
			Indexes:    []view.TableIndex{{Table: "messages", Name: "fts", Kind: "FTS", IndexedRows: &n5, UnindexedRows: &n5}},
			Upkeep:     &view.Upkeep{Trigger: "auto", StartedAt: at, DurationSecs: 2, Did: []string{"d"}, Due: []string{"x"}, Error: "e"},
			Daemon:     &view.DaemonInfo{PID: 7, StartedAt: at, Epoch: "ep", Syncing: true, LastError: "le", Watching: 3}}},
		{"adapters", AdaptersResponse{Adapters: []view.Adapter{{Name: "codex-cli"}}, Changed: []string{"codex-cli"}, ConfigFile: "/c"}},
		{"model_status", view.ModelStatus{Enabled: true, Model: "n@r", ConfigFile: "/c", Removed: "/r",
			Installed: []view.InstalledModel{{ID: "n@r", Source: "hf", InstalledAt: at, Dir: "/m",
				Files:  []view.InstalledModelFile{{Name: "model.onnx", SHA256: "ab", Size: 3, Trust: "pinned"}},
				Config: view.ModelConfig{Name: "n", Variant: "int8", Source: "s", Dimensions: 384, MaxTokens: 512, Pooling: "mean", Normalize: true, QueryPrefix: "query: ", PassagePrefix: "passage: ", BatchSize: 1}}},
			Embedded: &view.EmbeddedMessages{Model: "n@int8", Searchable: 3, ThisModel: 2, Other: 1}}},
		{"model_verify", view.ModelVerify{Model: "n@r", Dir: "/m", OK: false, Problems: []view.ModelProblem{{File: "f", Detail: "d"}}}},
		{"resume_outcome", view.ResumeOutcome{Status: view.ResumeTargetExists, Code: 3, Message: "m", Session: "s", From: "claude-code", To: "codex-cli",
			Native: true, Root: "/r", ID: "id", Cwd: "/c", Command: "cd /c && codex resume id",
			Files: []view.ResumeFile{{Path: "/r/f", Session: "s", ID: "id", Fidelity: view.FidelityDowngraded, Reason: "r", Bytes: 9, Sidecar: true}}}},
		{"sql_result", view.SQLResult{Columns: []string{"a", "b"}, Rows: []map[string]any{{"a": 1.0, "b": "x"}}, RowCount: 1, Truncated: true, ElapsedMs: 4, Clipped: 1}},
	}
	var b strings.Builder
	for _, v := range values {
		j, err := json.Marshal(v.v)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("-- " + v.name + " --\n" + string(j) + "\n")
	}
	want, err := os.ReadFile(filepath.Join("testdata", "wire.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("the wire's JSON changed (-was +now):\n%s", diff)
	}
}
