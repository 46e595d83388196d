package present

import (
	"strings"
	"testing"

	"github.com/pondhq/pond/session/view"
)

// TestResumeIncludes: a restored file that holds sub-agents too names them under its path.
func TestResumeIncludes(t *testing.T) {
	o := &view.ResumeOutcome{Status: view.ResumeOK, Session: "s1", From: "copilot-cli", To: "copilot-cli", Native: true, ID: "s1",
		Command: "copilot --resume s1", Files: []view.ResumeFile{{Path: "/r/session-state/s1/events.jsonl", Session: "s1", ID: "s1",
			Fidelity: view.FidelityNative, Includes: []string{"s1/agent-a", "s1/agent-b"}}}}
	got := Resume(o, false, "")
	want := "  native     /r/session-state/s1/events.jsonl\n             with s1/agent-a, s1/agent-b\n"
	if !strings.Contains(got, want) {
		t.Errorf("got\n%s\nwant it to hold\n%s", got, want)
	}
}
