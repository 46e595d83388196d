package openclaw

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store/sqlite"
)

// TestGenuine reads what OpenClaw's own code wrote against the fake model (testdata/genuine,
// scripts/fixtures.sh openclaw: its embedded agent, a turn with an exec call, then a second
// turn in the same session), from the agent database's SQL dump, and restores it natively.
// The session holds the conversation in order, and the exec call (ls) is answered, under its
// call id, by its output.
func TestGenuine(t *testing.T) {
	c := adaptertest.CheckGenuineDB(t, New(), testEnv(t.TempDir()), sqlite.CreateFromScript,
		map[string]string{"agents/main/agent/" + dbName: "agents/main/agent/openclaw-agent.sql"})
	if n := len(c.Sessions()); n != 1 {
		t.Fatalf("%d sessions, want the one both turns ran in", n)
	}
	var texts []string
	var call, result *session.Part
	for _, m := range c.Messages() {
		for _, p := range c.PartsOf(m.SessionID, m.ID) {
			switch p.Type {
			case session.PartText:
				if m.Role == session.RoleUser || m.Role == session.RoleAssistant {
					texts = append(texts, string(m.Role)+": "+p.Text)
				}
			case session.PartToolCall:
				call = &p
			case session.PartToolResult:
				result = &p
			}
		}
	}
	// In order, each by its role (a prompt may carry OpenClaw's own context around it).
	want := []struct{ role, text string }{
		{"user", "list the files here"}, {"assistant", "There is one file, notes.txt."},
		{"user", "now say done"}, {"assistant", "Done."},
	}
	i := 0
	for _, s := range texts {
		if i < len(want) && strings.HasPrefix(s, want[i].role+": ") && strings.Contains(s, want[i].text) {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("the conversation's texts:\n%s\nfound in order up to %d of %v", strings.Join(texts, "\n"), i, want)
	}
	if call == nil || result == nil {
		t.Fatalf("tool call %v, result %v: want the read call and its result", call, result)
	}
	var params struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal(call.Params, &params); err != nil || call.Name != "exec" || params.Command != "ls" {
		t.Errorf("the tool call: %s %s, want exec of ls", call.Name, call.Params)
	}
	if result.CallID != call.CallID || result.IsFailure || !strings.Contains(string(result.Result), "notes.txt") {
		t.Errorf("the tool result: call %s (the call's %s), failure %v, %s; want ls's output", result.CallID, call.CallID, result.IsFailure, result.Result)
	}
}
