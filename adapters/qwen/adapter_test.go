package qwen

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

// TestRoots: Qwen's own order, QWEN_RUNTIME_DIR over QWEN_HOME over ~/.qwen; the settings
// (and so the MCP config) stay in QWEN_HOME when only the runtime folder moves.
func TestRoots(t *testing.T) {
	for _, tc := range []struct {
		name, goos, home string
		vars             map[string]string
		want             []string
		settings         string
	}{
		{"default", "linux", "/home/u", nil, []string{"/home/u/.qwen"}, "/home/u/.qwen/settings.json"},
		{"windows", "windows", `C:\Users\u`, nil, []string{`C:\Users\u\.qwen`}, `C:\Users\u\.qwen\settings.json`},
		{"qwen_home", "linux", "/home/u", map[string]string{"QWEN_HOME": "/q"}, []string{"/q"}, "/q/settings.json"},
		{"runtime_dir", "linux", "/home/u", map[string]string{"QWEN_HOME": "/q", "QWEN_RUNTIME_DIR": "/r"}, []string{"/r"}, "/q/settings.json"},
		{"blank_vars", "linux", "/home/u", map[string]string{"QWEN_HOME": " ", "QWEN_RUNTIME_DIR": ""}, []string{"/home/u/.qwen"}, "/home/u/.qwen/settings.json"},
		{"no_home", "linux", "", nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := adaptertest.FakeEnv(tc.goos, tc.home, tc.vars)
			if diff := cmp.Diff(tc.want, Adapter{}.Roots(env)); diff != "" {
				t.Errorf("Roots (-want +got):\n%s", diff)
			}
			var got string
			if c := (Adapter{}).Describe().Integration.MCP.Configs(env); len(c) > 0 {
				got = c[0]
			}
			if got != tc.settings {
				t.Errorf("MCP config %q, want %q", got, tc.settings)
			}
		})
	}
}

// TestScan lists sessions, archived sessions and sub-agent transcripts, and none of the files
// beside them (runtime status, ledger, sub-agent stream and meta sidecars).
func TestScan(t *testing.T) {
	srcs, err := Adapter{}.Scan(t.Context(), testEnv, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range srcs {
		got = append(got, s.Key)
	}
	want := []string{
		"projects/-srv-demo/chats/5b1e0c2a-7d4f-4e8a-9c3b-2f6a1d0e9b8c.jsonl",
		"projects/-srv-demo/chats/5b1e0c2a-7d4f-4e8a-9c3b-2f6a1d0e9b8e.jsonl",
		"projects/-srv-demo/chats/archive/5b1e0c2a-7d4f-4e8a-9c3b-2f6a1d0e9b8d.jsonl",
		"projects/-srv-demo/subagents/5b1e0c2a-7d4f-4e8a-9c3b-2f6a1d0e9b8c/agent-explore-1.jsonl",
		"projects/-srv-demo/subagents/5b1e0c2a-7d4f-4e8a-9c3b-2f6a1d0e9b8c/agent-explore-2.jsonl",
		liveKey,
		"projects/-tmp-pond-qwen-demo/subagents/" + liveID + "/agent-general-purpose-toolu_fake2.jsonl",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Scan (-want +got):\n%s", diff)
	}
	if _, err := (Adapter{}).Scan(t.Context(), testEnv, "testdata/nowhere"); err == nil {
		t.Error("a missing root: no error")
	}
}

// TestLineage: a sub-agent's parent is the session of its folder, also when another sub-agent
// launched it (so that a restore takes them all with the session); a session naming the
// session that spawned it in a parent_session record has that parent; a session's source is
// marked, not filtered.
func TestLineage(t *testing.T) {
	c := readTestdata(t)
	sessions := c.Sessions()
	for id, want := range map[string]struct{ parent, agent string }{
		liveID: {"", Name},
		liveID + "/agent-general-purpose-toolu_fake2": {liveID, SubagentAgent},
		demoID:                                 {"0e1d2c3b-4a59-4687-8776-655443322110", Name},
		demoID + "/agent-explore-1":            {demoID, SubagentAgent},
		demoID + "/agent-explore-2":            {demoID, SubagentAgent},
		"5b1e0c2a-7d4f-4e8a-9c3b-2f6a1d0e9b8d": {"", Name},
	} {
		s, ok := sessions[id]
		if !ok {
			t.Errorf("no session %s", id)
			continue
		}
		if s.ParentSessionID != want.parent || s.SourceAgent != want.agent {
			t.Errorf("%s: parent %q, agent %q; want %q, %q", id, s.ParentSessionID, s.SourceAgent, want.parent, want.agent)
		}
	}
	if src := sessions[demoID].Options["source"]; !adapters.Members(mustObject(t, src)).Has("session_source") {
		t.Errorf("the cron session's source is not marked: %s", src)
	}
}

func mustObject(t *testing.T, raw []byte) adapters.Members {
	t.Helper()
	n, err := adapters.ReadObject(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	return n.Members
}

// TestParts: Gemini parts in Qwen records map to text, reasoning, file, tool_call and tool_result
// parts; a fragment repeating a uuid is a message of its own; hook context and harness notices
// are injected; a failed call's result is a failure; a torn line is reported where it is.
func TestParts(t *testing.T) {
	c := readTestdata(t)
	for _, tc := range []struct {
		msg  string
		want []partView
	}{
		{"a0000000-0000-4000-8000-000000000003", []partView{
			{"a0000000-0000-4000-8000-000000000003:0", "text", "conversational", "Look at the picture and the build.", "", "", false},
			{"a0000000-0000-4000-8000-000000000003:1", "file", "conversational", "", "", "", false},
			{"a0000000-0000-4000-8000-000000000003:2", "text", "injected", "<qwen:user-prompt-submit-context>\nBranch main is clean.\n</qwen:user-prompt-submit-context>", "", "", false},
		}},
		{"a0000000-0000-4000-8000-000000000004", []partView{
			{"a0000000-0000-4000-8000-000000000004:0", "reasoning", "conversational", "The user wants a build check.", "", "", false},
			{"a0000000-0000-4000-8000-000000000004:1", "text", "conversational", "I will run the build.", "", "", false},
			{"a0000000-0000-4000-8000-000000000004:2", "tool_call", "conversational", "", "call_build_1", "run_shell_command", false},
		}},
		{"a0000000-0000-4000-8000-000000000004-2", []partView{
			{"a0000000-0000-4000-8000-000000000004-2:0", "tool_call", "conversational", "", "call_grep_2", "grep_search", false},
		}},
		{"a0000000-0000-4000-8000-000000000005", []partView{
			{"a0000000-0000-4000-8000-000000000005:0", "tool_result", "conversational", "", "call_build_1", "run_shell_command", true},
		}},
		{"a0000000-0000-4000-8000-000000000009", []partView{
			{"a0000000-0000-4000-8000-000000000009:0", "text", "injected", "Background task 'lint' finished with exit code 0.", "", "", false},
		}},
	} {
		if diff := cmp.Diff(tc.want, viewParts(c.PartsOf(demoID, tc.msg))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.msg, diff)
		}
	}
	if len(c.Bad) != 1 || c.Bad[0].At.Line != 7 {
		t.Errorf("malformed reports %+v, want one at line 7 of %s", c.Bad, demoKey)
	}
	var drift []string
	for _, d := range c.Drift {
		drift = append(drift, d.What)
	}
	want := []string{`record key "teleport"`, `record subtype "future_thing"`}
	if diff := cmp.Diff(want, drift); diff != "" {
		t.Errorf("drift reports (-want +got):\n%s", diff)
	}
	for _, m := range c.Messages() {
		if m.SessionID == demoID && m.Role == session.RoleSystem && len(c.PartsOf(demoID, m.ID)) > 0 {
			t.Errorf("system message %s has parts", m.ID)
		}
	}
}

// TestGluedObjects: a line holding two records written one after the other (an append that
// lost its line break) is read as both, as Qwen reads it, and kept whole with the first.
func TestGluedObjects(t *testing.T) {
	const id = "5b1e0c2a-7d4f-4e8a-9c3b-2f6a1d0e9b8e"
	c := readTestdata(t)
	var got []string
	for _, m := range c.Messages() {
		if m.SessionID == id {
			got = append(got, m.ID+" "+string(m.Role))
		}
	}
	want := []string{
		"e0000000-0000-4000-8000-000000000001 user",
		"e0000000-0000-4000-8000-000000000002 assistant",
		"e0000000-0000-4000-8000-000000000003 user",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	for _, b := range c.Bad {
		if b.At.Line == 1 && filepath.Base(b.At.Path) == id+".jsonl" {
			t.Errorf("the glued line is reported malformed: %s", b.What)
		}
	}
}
