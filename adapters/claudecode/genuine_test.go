package claudecode

import (
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
)

// TestGenuine reads what Claude Code wrote against the fake model (testdata/genuine,
// scripts/fixtures.sh): a session whose turn ran a sub-agent, which is a session of its own
// linked to it, and restores them natively.
func TestGenuine(t *testing.T) {
	c := adaptertest.CheckGenuine(t, Adapter{})
	var subs []string
	sessions := c.Sessions()
	for id, s := range sessions {
		if s.ParentSessionID != "" {
			if _, ok := sessions[s.ParentSessionID]; !ok || s.SourceAgent != Name+"/subagent" {
				t.Errorf("sub-agent %s: parent %q, source agent %q", id, s.ParentSessionID, s.SourceAgent)
			}
			subs = append(subs, id)
		}
	}
	if len(sessions) != 2 || len(subs) != 1 {
		t.Errorf("%d sessions, %d of them sub-agents; want the session and its sub-agent", len(sessions), len(subs))
	}
}
