package codex

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

// TestRead reads each fixture whole and checks its session, counts, drift reports and that
// every line is kept exactly once.
func TestRead(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		session session.Session // Options compared separately
		source  string          // the session's options.source, "" for none
		counts  adaptertest.Counts
		drift   []string
	}{
		{
			name: "main",
			key:  mainKey,
			session: session.Session{
				ID: mainID, SourceAgent: "codex-cli", Project: "/home/dev/shop",
				CreatedAt: time.Date(2026, 3, 14, 12, 15, 2, 95e6, time.UTC),
			},
			source: `{"originator":"codex_cli_rs","cli_version":"0.150.0","source":"cli","thread_source":"user","model_provider":"openai","git":{"commit_hash":"3f2c1a9","branch":"main","repository_url":"git@example.com:dev/shop.git"}}`,
			// 29 lines, one of them malformed.
			counts: adaptertest.Counts{Sessions: 1, Messages: 28, Parts: 11, Malformed: 1},
			drift:  []string{`response item type "hologram_call"`, `record type "telepathy"`},
		},
		{
			name: "subagent",
			key:  subKey,
			session: session.Session{
				ID: subID, ParentSessionID: mainID, SourceAgent: "codex-cli/subagent", Project: "/home/dev/shop",
				CreatedAt: time.Date(2026, 3, 14, 12, 16, 0, 0, time.UTC),
			},
			source: `{"originator":"codex_cli_rs","cli_version":"0.150.0","source":{"subagent":{"thread_spawn":{"parent_thread_id":"` + mainID + `","depth":1,"agent_path":"/root/explorer","agent_nickname":"Ada","agent_role":"explorer"}}},"model_provider":"openai","parent_thread_id":"` + mainID + `","agent_nickname":"Ada","agent_role":"explorer","agent_path":"/root/explorer"}`,
			counts: adaptertest.Counts{Sessions: 1, Messages: 6, Parts: 4},
		},
		{
			name: "fork",
			key:  forkKey,
			session: session.Session{
				ID: forkID, ParentSessionID: mainID, SourceAgent: "codex-cli", Project: "/home/dev/shop",
				CreatedAt: time.Date(2026, 3, 15, 13, 0, 0, 4e8, time.UTC),
			},
			source: `{"originator":"codex_cli_rs","cli_version":"0.150.0","source":"cli","model_provider":"openai","forked_from_id":"` + mainID + `"}`,
			counts: adaptertest.Counts{Sessions: 1, Messages: 7, Parts: 4},
		},
		{
			name: "legacy",
			key:  legacyKey,
			session: session.Session{
				ID: legacyID, SourceAgent: "codex-cli", Project: "/home/dev/legacy-app",
				CreatedAt: time.Date(2025, 6, 2, 12, 3, 11, 123e6, time.UTC),
			},
			counts: adaptertest.Counts{Sessions: 1, Messages: 13, Parts: 11},
		},
		{
			name: "id_mismatch",
			key:  mismKey,
			session: session.Session{
				ID: metaMism, SourceAgent: "codex-cli", Project: "/srv/batch",
				CreatedAt: time.Date(2026, 3, 16, 8, 0, 0, 0, time.UTC),
			},
			source: `{"originator":"codex_exec","cli_version":"0.150.0","source":"exec","model_provider":"openai","file_name_id":"` + fileMism + `"}`,
			counts: adaptertest.Counts{Sessions: 1, Messages: 4, Parts: 2},
			drift:  []string{`session_meta id "` + metaMism + `" differs from the file name's "` + fileMism + `"; kept the session_meta id`},
		},
		{
			name: "compressed",
			key:  zstKey,
			session: session.Session{
				ID: zstID, SourceAgent: "codex-cli", Project: "/home/dev/old-project",
				CreatedAt: time.Date(2026, 2, 1, 11, 0, 0, 0, time.UTC),
			},
			source: `{"originator":"codex-tui","cli_version":"0.140.0","source":"vscode","model_provider":"openai"}`,
			counts: adaptertest.Counts{Sessions: 1, Messages: 4, Parts: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(testRoot, filepath.FromSlash(tt.key))
			c, _ := readFile(t, path)
			if diff := cmp.Diff(tt.counts, c.Counts()); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
			got, ok := c.Sessions()[tt.session.ID]
			if !ok {
				t.Fatalf("no session %s in %v", tt.session.ID, c.Sessions())
			}
			if string(got.Options["source"]) != tt.source {
				t.Errorf("options.source:\n got %s\nwant %s", got.Options["source"], tt.source)
			}
			got.Options = nil
			if diff := cmp.Diff(tt.session, got); diff != "" {
				t.Errorf("session (-want +got):\n%s", diff)
			}
			var drift []string
			for _, p := range c.Drift {
				drift = append(drift, p.What)
			}
			if diff := cmp.Diff(tt.drift, drift); diff != "" {
				t.Errorf("Unknown reports (-want +got):\n%s", diff)
			}
			checkLossless(t, path, c)
		})
	}
}

// part is the comparable content of a part.
type part struct {
	Msg        string
	Role       session.Role
	Type       session.PartType
	Provenance session.Provenance
	Text       string `json:",omitempty"`
	CallID     string `json:",omitempty"`
	Name       string `json:",omitempty"`
	Params     string `json:",omitempty"`
	Result     string `json:",omitempty"`
	Failure    bool   `json:",omitempty"`
	Provider   bool   `json:",omitempty"`
	Media      string `json:",omitempty"`
}

// partsOf lists a collection's parts in stream order, with their message's role.
func partsOf(c *adaptertest.Collector) []part {
	roles := map[string]session.Role{}
	for _, m := range c.Messages() {
		roles[m.ID] = m.Role
	}
	var out []part
	for _, p := range c.Parts() {
		out = append(out, part{
			Msg: p.MessageID, Role: roles[p.MessageID], Type: p.Type, Provenance: p.Provenance,
			Text: p.Text, CallID: p.CallID, Name: p.Name, Params: string(p.Params), Result: string(p.Result),
			Failure: p.IsFailure, Provider: p.ProviderExecuted, Media: p.MediaType,
		})
	}
	return out
}

func TestReadMain(t *testing.T) {
	c, _ := readFile(t, filepath.Join(testRoot, filepath.FromSlash(mainKey)))
	// The lines without an id of their own get rec- ids.
	recOf := func(line int) string {
		lines := fileLines(t, filepath.Join(testRoot, filepath.FromSlash(mainKey)))
		return adapters.RecordID([]byte(lines[line-1]))
	}
	want := []part{
		{Msg: "msg_env_1", Role: session.RoleUser, Type: session.PartText, Provenance: session.Injected,
			Text: "<environment_context>\n  <cwd>/home/dev/shop</cwd>\n  <shell>bash</shell>\n</environment_context>"},
		{Msg: "msg_user_1", Role: session.RoleUser, Type: session.PartText, Provenance: session.Conversational,
			Text: "Fix the failing test in cart.go"},
		{Msg: "rs_1", Role: session.RoleAssistant, Type: session.PartReasoning, Provenance: session.Conversational,
			Text: "**Running the tests first**"},
		{Msg: "fc_1", Role: session.RoleAssistant, Type: session.PartToolCall, Provenance: session.Conversational,
			CallID: "call_test1", Name: "exec_command", Params: `{"cmd":"go test ./...","workdir":"/home/dev/shop"}`},
		// Failed: "Process exited with code 1", and exec_command_end said exit_code 1.
		{Msg: recOf(13), Role: session.RoleTool, Type: session.PartToolResult, Provenance: session.Conversational,
			CallID: "call_test1", Name: "exec_command", Failure: true,
			Result: `"Chunk ID: 9a1b2c\nWall time: 0.8000 seconds\nProcess exited with code 1\nOriginal token count: 9\nOutput:\n--- FAIL: TestTotal (0.00s)\n"`},
		{Msg: "ctc_1", Role: session.RoleAssistant, Type: session.PartToolCall, Provenance: session.Conversational,
			CallID: "call_patch1", Name: "apply_patch", Params: `"*** Begin Patch\n*** Update File: cart.go\n@@\n-\ttotal -= discount\n*** End Patch\n"`},
		{Msg: recOf(17), Role: session.RoleTool, Type: session.PartToolResult, Provenance: session.Conversational,
			CallID: "call_patch1", Name: "apply_patch",
			Result: `"{\"output\":\"Success. Updated the following files:\\nM cart.go\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.0}}"`},
		// Arguments that are not JSON are kept as the string.
		{Msg: "fc_2", Role: session.RoleAssistant, Type: session.PartToolCall, Provenance: session.Conversational,
			CallID: "call_plan1", Name: "update_plan", Params: `"step 1: rerun tests"`},
		{Msg: recOf(19), Role: session.RoleTool, Type: session.PartToolResult, Provenance: session.Conversational,
			CallID: "call_plan1", Name: "update_plan", Result: `[{"type":"input_text","text":"Plan updated"}]`},
		{Msg: "ws_1", Role: session.RoleAssistant, Type: session.PartToolCall, Provenance: session.Conversational,
			CallID: "ws_1", Name: "web_search", Params: `{"type":"search","query":"go test -run flag"}`, Provider: true},
		{Msg: "msg_asst_1", Role: session.RoleAssistant, Type: session.PartText, Provenance: session.Conversational,
			Text: "The test passes now: the discount was applied twice."},
	}
	got := partsOf(c)
	// The reasoning part's options say it is a summary.
	for _, p := range c.Parts() {
		if p.Type == session.PartReasoning && string(p.Options["source"]) != `{"field":"summary"}` {
			t.Errorf("reasoning part options.source = %s, want the summary field", p.Options["source"])
		}
	}
	// The unknown hologram_call item has no parts; the developer message carries its text as
	// Content.
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}

	msgs := map[string]session.Message{}
	for _, m := range c.Messages() {
		msgs[m.ID] = m
	}
	dev := msgs["msg_dev_1"]
	if dev.Role != session.RoleSystem || !strings.HasPrefix(dev.Content, "<permissions instructions>") || !strings.Contains(dev.Content, "\n\n<skills_instructions>") {
		t.Errorf("developer message: role %s content %q; want a system message holding both fragments", dev.Role, dev.Content)
	}
	if m, ok := msgs["hg_1"]; !ok || m.Role != session.RoleSystem {
		t.Errorf("unknown item hologram_call: %+v, want a system message under its own id hg_1", m)
	}
	if got := msgs[recOf(26)].Content; got != "The user asked to fix a failing cart test; it was fixed." {
		t.Errorf("compacted message content = %q, want its summary", got)
	}
	// The malformed line 14 takes no message; line 15 keeps its own time.
	if got := msgs["ctc_1"].Timestamp; !got.Equal(time.Date(2026, 3, 14, 12, 15, 7, 10e6, time.UTC)) {
		t.Errorf("ctc_1 timestamp %v", got)
	}
	if len(c.Bad) != 1 || c.Bad[0].At.Line != 14 {
		t.Errorf("malformed reports %v, want line 14", c.Bad)
	}

	// Search sees what the user typed and the assistant said, once each: not the injected
	// context, not event_msg/user_message, not the developer message, not tool traffic.
	wantSearch := map[string]string{
		"msg_user_1": "Fix the failing test in cart.go",
		"msg_asst_1": "The test passes now: the discount was applied twice.",
	}
	if diff := cmp.Diff(wantSearch, searchTexts(c)); diff != "" {
		t.Errorf("search text (-want +got):\n%s", diff)
	}
}

func TestReadLegacy(t *testing.T) {
	path := filepath.Join(testRoot, filepath.FromSlash(legacyKey))
	c, _ := readFile(t, path)
	lines := fileLines(t, path)
	rec := func(line int) string { return adapters.RecordID([]byte(lines[line-1])) }
	got := partsOf(c)
	var file session.Part
	for _, p := range c.Parts() {
		if p.Type == session.PartFile {
			file = p
		}
	}
	if file.Data == nil || file.Data.Kind != session.FileBytes || !strings.HasPrefix(string(file.Data.Bytes), "\x89PNG") {
		t.Errorf("image part data %+v, want the PNG bytes of the data URL", file.Data)
	}
	want := []part{
		{Msg: rec(2), Role: session.RoleUser, Type: session.PartText, Provenance: session.Injected,
			Text: "<user_instructions>\n\nAlways run the tests.\n\n</user_instructions>"},
		{Msg: rec(3), Role: session.RoleUser, Type: session.PartText, Provenance: session.Injected,
			Text: "<environment_context>\n  <cwd>/home/dev/legacy-app</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>"},
		{Msg: rec(4), Role: session.RoleUser, Type: session.PartText, Provenance: session.Conversational,
			Text: "What does this screenshot show?"},
		{Msg: rec(4), Role: session.RoleUser, Type: session.PartFile, Provenance: session.Conversational, Media: "image/png"},
		{Msg: "fc_legacy_1", Role: session.RoleAssistant, Type: session.PartToolCall, Provenance: session.Conversational,
			CallID: "call_legacy1", Name: "shell", Params: `{"command":["ls","-la"]}`},
		// The old {content, success:false} output shape.
		{Msg: rec(7), Role: session.RoleTool, Type: session.PartToolResult, Provenance: session.Conversational,
			CallID: "call_legacy1", Name: "shell", Failure: true, Result: `{"content":"ls: cannot open directory","success":false}`},
		// local_shell_call without call_id: its id links the output.
		{Msg: "lsh_legacy_1", Role: session.RoleAssistant, Type: session.PartToolCall, Provenance: session.Conversational,
			CallID: "lsh_legacy_1", Name: "local_shell", Params: `{"type":"exec","command":["cat","README.md"],"timeout_ms":null,"working_directory":null,"env":null,"user":null}`},
		{Msg: rec(9), Role: session.RoleTool, Type: session.PartToolResult, Provenance: session.Conversational,
			CallID: "lsh_legacy_1", Name: "local_shell", Result: `"{\"output\":\"# Legacy app\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.01}}"`},
		{Msg: "msg_legacy_a1", Role: session.RoleAssistant, Type: session.PartText, Provenance: session.Conversational,
			Text: "The screenshot shows a login form."},
		// Two identical lines: the second takes the -2 suffix.
		{Msg: rec(12), Role: session.RoleUser, Type: session.PartText, Provenance: session.Conversational, Text: "continue"},
		{Msg: rec(13) + "-2", Role: session.RoleUser, Type: session.PartText, Provenance: session.Conversational, Text: "continue"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	// Bare items have no time: they take the header's.
	for _, m := range c.Messages() {
		if !m.Timestamp.Equal(time.Date(2025, 6, 2, 12, 3, 11, 123e6, time.UTC)) {
			t.Errorf("message %s at %v, want the header's time", m.ID, m.Timestamp)
		}
	}
	wantSearch := map[string]string{
		rec(4):          "What does this screenshot show?\nimage/png",
		"msg_legacy_a1": "The screenshot shows a login form.",
		rec(12):         "continue",
		rec(13) + "-2":  "continue",
	}
	if diff := cmp.Diff(wantSearch, searchTexts(c)); diff != "" {
		t.Errorf("search text (-want +got):\n%s", diff)
	}
}

func TestReadSubagentAndFork(t *testing.T) {
	sub, _ := readFile(t, filepath.Join(testRoot, filepath.FromSlash(subKey)))
	lines := fileLines(t, filepath.Join(testRoot, filepath.FromSlash(subKey)))
	want := []part{
		// Another agent's mail: a user turn the harness delivered; the encrypted item is dropped
		// from the parts (it stays in the raw record).
		{Msg: "am_1", Role: session.RoleUser, Type: session.PartText, Provenance: session.Injected, Text: "Find where discounts are computed."},
		{Msg: "lsh_1", Role: session.RoleAssistant, Type: session.PartToolCall, Provenance: session.Conversational,
			CallID: "call_grep1", Name: "local_shell", Params: `{"type":"exec","command":["rg","discount"],"timeout_ms":10000,"working_directory":"/home/dev/shop","env":null,"user":null}`},
		{Msg: adapters.RecordID([]byte(lines[4])), Role: session.RoleTool, Type: session.PartToolResult, Provenance: session.Conversational,
			CallID: "call_grep1", Name: "local_shell", Result: `"Exit code: 0\nWall time: 0.1 seconds\nOutput:\ncart.go:12:\ttotal -= discount\n"`},
		{Msg: "msg_sub_1", Role: session.RoleAssistant, Type: session.PartText, Provenance: session.Conversational,
			Text: "Discounts are computed in cart.go line 12."},
	}
	if diff := cmp.Diff(want, partsOf(sub)); diff != "" {
		t.Errorf("sub-agent parts (-want +got):\n%s", diff)
	}

	fork, _ := readFile(t, filepath.Join(testRoot, filepath.FromSlash(forkKey)))
	var ids []string
	var roles []session.Role
	for _, m := range fork.Messages() {
		ids = append(ids, m.ID)
		roles = append(roles, m.Role)
	}
	// The fork replays its parent's item ids (scoped by its own session) after the parent's
	// session_meta, which is a system message like its own.
	forkLines := fileLines(t, filepath.Join(testRoot, filepath.FromSlash(forkKey)))
	wantIDs := []string{adapters.RecordID([]byte(forkLines[0])), adapters.RecordID([]byte(forkLines[1])), "msg_user_1", "msg_asst_1", adapters.RecordID([]byte(forkLines[4])), "msg_user_f1", "msg_asst_f1"}
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Errorf("fork message ids (-want +got):\n%s", diff)
	}
	wantRoles := []session.Role{"system", "system", "user", "assistant", "system", "user", "assistant"}
	if diff := cmp.Diff(wantRoles, roles); diff != "" {
		t.Errorf("fork roles (-want +got):\n%s", diff)
	}
	for _, m := range fork.Messages() {
		if m.SessionID != forkID {
			t.Errorf("message %s in session %s, want the fork's", m.ID, m.SessionID)
		}
	}
}

// TestReadShapes covers record shapes the fixtures lack, one file each.
func TestReadShapes(t *testing.T) {
	const id = "0195b000-0000-7000-8000-000000000001"
	meta := `{"timestamp":"2026-04-01T10:00:00.000Z","type":"session_meta","payload":{"id":"` + id + `","timestamp":"2026-04-01T10:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.150.0","source":"cli"}}`
	tests := []struct {
		name  string
		lines []string
		want  []part
		drift []string
	}{
		{
			name: "mcp_failure_from_end_event",
			lines: []string{
				meta,
				`{"timestamp":"2026-04-01T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","id":"fc_m","name":"mcp__github__create_issue","arguments":"{\"title\":\"x\"}","call_id":"call_m"}}`,
				`{"timestamp":"2026-04-01T10:00:02.000Z","type":"event_msg","payload":{"type":"mcp_tool_call_end","call_id":"call_m","invocation":{"server":"github","tool":"create_issue","arguments":{"title":"x"}},"duration":{"secs":0,"nanos":1},"result":{"Err":"tool call failed"}}}`,
				`{"timestamp":"2026-04-01T10:00:02.001Z","type":"response_item","payload":{"type":"function_call_output","id":"fco_m","call_id":"call_m","output":"err: tool call failed"}}`,
			},
			want: []part{
				{Msg: "fc_m", Role: session.RoleAssistant, Type: session.PartToolCall, Provenance: session.Conversational, CallID: "call_m", Name: "mcp__github__create_issue", Params: `{"title":"x"}`},
				{Msg: "fco_m", Role: session.RoleTool, Type: session.PartToolResult, Provenance: session.Conversational, CallID: "call_m", Name: "mcp__github__create_issue", Failure: true, Result: `"err: tool call failed"`},
			},
		},
		{
			name: "item_completed_command_failure",
			lines: []string{
				meta,
				`{"timestamp":"2026-04-01T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","id":"fc_c","name":"exec_command","arguments":"{\"cmd\":\"false\"}","call_id":"call_c"}}`,
				`{"timestamp":"2026-04-01T10:00:02.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"call_c","command":["false"],"exit_code":1,"status":"failed"}}}`,
				`{"timestamp":"2026-04-01T10:00:02.001Z","type":"response_item","payload":{"type":"function_call_output","id":"fco_c","call_id":"call_c","output":"Chunk ID: 1\nWall time: 0 seconds\nOutput:\n"}}`,
				// An output whose call was never seen: no name, not failed.
				`{"timestamp":"2026-04-01T10:00:03.000Z","type":"response_item","payload":{"type":"custom_tool_call_output","id":"cto_x","call_id":"call_unknown","output":"done"}}`,
			},
			want: []part{
				{Msg: "fc_c", Role: session.RoleAssistant, Type: session.PartToolCall, Provenance: session.Conversational, CallID: "call_c", Name: "exec_command", Params: `{"cmd":"false"}`},
				{Msg: "fco_c", Role: session.RoleTool, Type: session.PartToolResult, Provenance: session.Conversational, CallID: "call_c", Name: "exec_command", Failure: true, Result: `"Chunk ID: 1\nWall time: 0 seconds\nOutput:\n"`},
				{Msg: "cto_x", Role: session.RoleTool, Type: session.PartToolResult, Provenance: session.Conversational, CallID: "call_unknown", Result: `"done"`},
			},
		},
		{
			name: "image_generation_and_images",
			lines: []string{
				meta,
				`{"timestamp":"2026-04-01T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<image name=[Image #1]>"},{"type":"input_image","image_url":"https://example.com/cat.png"},{"type":"input_text","text":"</image>"},{"type":"input_text","text":"draw this cat"}]}}`,
				`{"timestamp":"2026-04-01T10:00:02.000Z","type":"response_item","payload":{"type":"image_generation_call","id":"ig_1","status":"completed","revised_prompt":"a cat","result":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}}`,
				`{"timestamp":"2026-04-01T10:00:03.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":"I can't do that."},{"type":"output_audio","data":"x"}]}}`,
			},
			want: []part{
				{Msg: "@2", Role: session.RoleUser, Type: session.PartText, Provenance: session.Injected, Text: "<image name=[Image #1]>"},
				{Msg: "@2", Role: session.RoleUser, Type: session.PartFile, Provenance: session.Conversational},
				{Msg: "@2", Role: session.RoleUser, Type: session.PartText, Provenance: session.Injected, Text: "</image>"},
				{Msg: "@2", Role: session.RoleUser, Type: session.PartText, Provenance: session.Conversational, Text: "draw this cat"},
				{Msg: "ig_1", Role: session.RoleAssistant, Type: session.PartToolCall, Provenance: session.Conversational, CallID: "ig_1", Name: "image_generation", Params: `{"revised_prompt":"a cat"}`, Provider: true},
				{Msg: "ig_1", Role: session.RoleAssistant, Type: session.PartFile, Provenance: session.Conversational, Media: "image/png"},
				{Msg: "@4", Role: session.RoleAssistant, Type: session.PartText, Provenance: session.Conversational, Text: "I can't do that."},
			},
			drift: []string{`message content type "output_audio"`},
		},
		{
			name: "no_session_meta",
			lines: []string{
				`{"timestamp":"2026-04-01T10:00:01.000Z","type":"turn_context","payload":{"cwd":"/from/turn"}}`,
				`{"timestamp":"2026-04-01T10:00:02.000Z","type":"response_item","payload":{"type":"message","id":"m1","role":"user","content":"plain string content"}}`,
			},
			want: []part{
				{Msg: "m1", Role: session.RoleUser, Type: session.PartText, Provenance: session.Conversational, Text: "plain string content"},
			},
			drift: []string{"no session_meta: the session id comes from the file name"},
		},
		{
			name: "unknown_role_and_keys",
			lines: []string{
				meta,
				`{"timestamp":"2026-04-01T10:00:01.000Z","type":"response_item","payload":{"type":"message","id":"m_c","role":"critic","content":[{"type":"input_text","text":"nit"}]},"trace":{"x":1}}`,
				`[1,2]`,
				`null`,
			},
			drift: []string{`record key "trace"`, `message role "critic"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sessions", "2026", "04", "01", "rollout-2026-04-01T07-00-00-"+id+".jsonl")
			writeFile(t, path, []byte(strings.Join(tt.lines, "\n")+"\n"))
			c, _ := readFile(t, path)
			// "@n" names the rec- id of line n.
			for i := range tt.want {
				if n, ok := strings.CutPrefix(tt.want[i].Msg, "@"); ok {
					var line int
					_ = json.Unmarshal([]byte(n), &line)
					tt.want[i].Msg = adapters.RecordID([]byte(tt.lines[line-1]))
				}
			}
			if diff := cmp.Diff(tt.want, partsOf(c)); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
			var drift []string
			for _, p := range c.Drift {
				drift = append(drift, p.What)
			}
			if diff := cmp.Diff(tt.drift, drift); diff != "" {
				t.Errorf("Unknown reports (-want +got):\n%s", diff)
			}
			if s := c.Sessions()[id]; s.ID != id {
				t.Errorf("sessions %v, want %s", c.Sessions(), id)
			}
			checkLossless(t, path, c)
		})
	}
}
