package copilot

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

// TestRoots: COPILOT_HOME, else ~/.copilot; the MCP config and the skills folder live there too.
func TestRoots(t *testing.T) {
	for _, tc := range []struct {
		name, goos, home string
		vars             map[string]string
		want             []string
		config, skills   string
	}{
		{"default", "linux", "/home/u", nil, []string{"/home/u/.copilot"}, "/home/u/.copilot/mcp-config.json", "/home/u/.copilot/skills"},
		{"windows", "windows", `C:\Users\u`, nil, []string{`C:\Users\u\.copilot`}, `C:\Users\u\.copilot\mcp-config.json`, `C:\Users\u\.copilot\skills`},
		{"copilot_home", "linux", "/home/u", map[string]string{"COPILOT_HOME": "/c"}, []string{"/c"}, "/c/mcp-config.json", "/c/skills"},
		{"blank_var", "linux", "/home/u", map[string]string{"COPILOT_HOME": " "}, []string{"/home/u/.copilot"}, "/home/u/.copilot/mcp-config.json", "/home/u/.copilot/skills"},
		{"no_home", "linux", "", nil, nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := adaptertest.FakeEnv(tc.goos, tc.home, tc.vars)
			if diff := cmp.Diff(tc.want, Adapter{}.Roots(env)); diff != "" {
				t.Errorf("Roots (-want +got):\n%s", diff)
			}
			in := Adapter{}.Describe().Integration
			var config string
			if c := in.MCP.Configs(env); len(c) > 0 {
				config = c[0]
			}
			if config != tc.config || in.Skills(env) != tc.skills {
				t.Errorf("MCP config %q, skills %q; want %q, %q", config, in.Skills(env), tc.config, tc.skills)
			}
		})
	}
}

// TestScan lists the session folders' event logs and the flat files of before 1.0; a flat file
// whose session has a folder is superseded, the earliest layout's documents are unsupported,
// and nothing else (workspace.yaml) is a source.
func TestScan(t *testing.T) {
	srcs, err := Adapter{}.Scan(t.Context(), testEnv, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range srcs {
		got = append(got, s.Key+" "+s.Skip)
	}
	want := []string{
		"history-session-state/session_0a1b2c3d_1735689600000.json unsupported",
		flatKey + " ",
		"session-state/" + demoID + ".jsonl superseded",
		demoKey + " ",
		"session-state/" + detachedID + "/events.jsonl ",
		liveKey + " ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Scan (-want +got):\n%s", diff)
	}
	if _, err := (Adapter{}).Scan(t.Context(), testEnv, "testdata/nowhere"); err == nil {
		t.Error("a missing root: no error")
	}
	empty := t.TempDir()
	if srcs, err := (Adapter{}).Scan(t.Context(), testEnv, empty); err != nil || len(srcs) != 0 {
		t.Errorf("a home without sessions: %v, %v", srcs, err)
	}
}

// TestLineage: the sub-agents written inline are sessions of their own whose parent is the
// file's session, a sub-agent another one launched too (its task id kept); a detached run names
// the session it continues; every session's project is the cwd session.start recorded.
func TestLineage(t *testing.T) {
	c := readTestdata(t)
	sessions := c.Sessions()
	for id, want := range map[string]struct{ parent, agent, project string }{
		liveID: {"", Name, "/tmp/pond-copilot-demo"},
		liveID + "/agent-8e1a97ea-cc40-47b1-85b6-29d828741839": {liveID, SubagentAgent, "/tmp/pond-copilot-demo"},
		demoID:                      {"", Name, "/srv/app"},
		demoID + "/agent-" + agentA: {demoID, SubagentAgent, "/srv/app"},
		demoID + "/agent-" + agentB: {demoID, SubagentAgent, "/srv/app"},
		flatID:                      {"", Name, "/srv/old"},
		detachedID:                  {liveID, Name, "/tmp/pond-copilot-demo"},
	} {
		s, ok := sessions[id]
		if !ok {
			t.Errorf("no session %s", id)
			continue
		}
		if s.ParentSessionID != want.parent || s.SourceAgent != want.agent || s.Project != want.project {
			t.Errorf("%s: parent %q, agent %q, project %q; want %q, %q, %q", id, s.ParentSessionID, s.SourceAgent, s.Project, want.parent, want.agent, want.project)
		}
	}
	if len(sessions) != 7 {
		t.Errorf("%d sessions, want 7 (the superseded flat file and the unsupported document are not read)", len(sessions))
	}
	nested := mustObject(t, sessions[demoID+"/agent-"+agentB].Options["source"])
	if nested.Str("parent_agent") != "task-explorer-1" || nested.Str("agent_display_name") != "reader" {
		t.Errorf("the nested sub-agent's source: %s", sessions[demoID+"/agent-"+agentB].Options["source"])
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

// TestParts: the events that carry the conversation map to text, reasoning, file, tool_call and
// tool_result parts; the chunks of one model call make one message; a skill's injection, a
// runtime notification and a compaction summary are injected; a failed call's result is a
// failure with the error's message; a user's own tool run is their call.
func TestParts(t *testing.T) {
	c := readTestdata(t)
	msg := func(line int) string {
		t.Helper()
		for _, m := range c.Messages() {
			if strings.HasPrefix(m.SessionID, demoID) {
				if src := mustObject(t, m.Options["source"]); string(src["line"]) == strconv.Itoa(line) {
					return m.ID
				}
			}
		}
		t.Fatalf("no message of line %d", line)
		return ""
	}
	sub := demoID + "/agent-" + agentA
	for _, tc := range []struct {
		session string
		line    int
		want    []partView
	}{
		{demoID, 4, []partView{
			{msg(4) + ":0", "text", "conversational", "Run the tests and fix what fails.", "", "", false},
			{msg(4) + ":1", "file", "conversational", "", "", "", false},
		}},
		{demoID, 6, []partView{{msg(6) + ":0", "reasoning", "conversational", "The user wants the tests run first.", "", "", false}}},
		{demoID, 7, []partView{
			{msg(7) + ":0", "reasoning", "conversational", "First, the layout.", "", "", false},
			{msg(7) + ":1", "text", "conversational", "Let me look at the tests.", "", "", false},
			{msg(7) + ":2", "reasoning", "conversational", "Now run them.", "", "", false},
			{msg(7) + ":3", "text", "conversational", "Running them now.", "", "", false},
			{msg(7) + ":4", "tool_call", "conversational", "", "call_test_1", "bash", false},
		}},
		{demoID, 11, []partView{{msg(11) + ":0", "tool_result", "conversational", "", "call_test_1", "bash", true}}},
		{demoID, 12, []partView{{msg(12) + ":0", "text", "injected", "<system_notification>Shell 2 completed with exit code 1.</system_notification>", "", "", false}}},
		{demoID, 13, []partView{{msg(13) + ":0", "text", "injected", "Skill pdf: read PDFs with pdftotext.", "", "", false}}},
		{sub, 18, []partView{
			{msg(18) + ":0", "text", "conversational", "Searching.", "", "", false},
			{msg(18) + ":1", "tool_call", "conversational", "", "call_grep_1", "grep", false},
		}},
		{sub, 23, []partView{{msg(23) + ":0", "tool_result", "conversational", "", "call_grep_1", "grep", false}}},
		{demoID, 29, []partView{{msg(29) + ":0", "text", "injected", "Summary: the tests failed in parse.go, the explorer found the parser, and it was fixed.", "", "", false}}},
		{demoID, 32, []partView{{msg(32) + ":0", "tool_call", "conversational", "", "user_ls_1", "bash", false}}},
		{demoID, 35, []partView{{msg(35) + ":0", "text", "conversational", "You're welcome.", "", "", false}}},
	} {
		if diff := cmp.Diff(tc.want, viewParts(c.PartsOf(tc.session, msg(tc.line)))); diff != "" {
			t.Errorf("line %d (-want +got):\n%s", tc.line, diff)
		}
	}
	var failed session.Part
	for _, p := range c.PartsOf(demoID, msg(11)) {
		failed = p
	}
	if string(failed.Result) != `"FAIL: TestParse (parse_test.go:12)"` {
		t.Errorf("failed result %s, want the error's message", failed.Result)
	}
	// The second chunk's record sits on the first part it added; the empty first chunk of the
	// second call is the message the second chunk adds to.
	if parts := c.PartsOf(demoID, msg(7)); string(mustObject(t, parts[2].Options["source"])["line"]) != "8" {
		t.Errorf("the second chunk's record is not on its first part: %s", parts[2].Options["source"])
	}
	for _, m := range c.Messages() {
		if m.Role == session.RoleSystem && len(c.PartsOf(m.SessionID, m.ID)) > 0 {
			t.Errorf("system message %s has parts", m.ID)
		}
	}
}

// TestDrift: an unknown event type, an envelope key and a data key the schema does not list are
// reported and kept; a torn line is reported at its line and the rest read; an event id met
// again gets a suffix.
func TestDrift(t *testing.T) {
	c := readTestdata(t)
	var drift []string
	for _, d := range c.Drift {
		drift = append(drift, strconv.Itoa(d.At.Line)+" "+d.What)
	}
	want := []string{`4 user.message key "pondFutureKey"`, `27 event type "pond.future_event"`, `28 event key "teleport"`}
	if diff := cmp.Diff(want, drift); diff != "" {
		t.Errorf("drift reports (-want +got):\n%s", diff)
	}
	if len(c.Bad) != 1 || c.Bad[0].At.Line != 10 || filepath.Base(filepath.Dir(c.Bad[0].At.Path)) != demoID {
		t.Errorf("malformed reports %+v, want one at line 10 of %s", c.Bad, demoKey)
	}
	ids := map[string]bool{}
	for _, m := range c.Messages() {
		ids[m.ID] = true
	}
	if !ids["bd589861-d1ee-5c2d-9dde-9c5be110247a"] || !ids["bd589861-d1ee-5c2d-9dde-9c5be110247a-2"] {
		t.Error("the repeated event id does not make two messages, the second with -2")
	}
}

// TestNames: a folder name that is no valid session id (the SDK takes any string) gives the
// session a digest of it as id, and keeps the name.
func TestNames(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "session-state", "my session")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"type":"session.start","data":{"sessionId":"my session","version":1,"producer":"copilot-agent","copilotVersion":"1.0.102","startTime":"2026-11-01T10:00:00.000Z","context":{"cwd":"/w"}},"id":"00000000-0000-4000-8000-000000000001","timestamp":"2026-11-01T10:00:00.000Z","parentId":null}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, Adapter{}, testEnv, root, nil, &c)
	want := "copilot-" + adapters.Digest([]byte("my session"))
	s, ok := c.Sessions()[want]
	if !ok {
		t.Fatalf("sessions %v, want %s", c.Sessions(), want)
	}
	if src := mustObject(t, s.Options["source"]); src.Str("name") != "my session" {
		t.Errorf("source %s does not keep the name", s.Options["source"])
	}
}
