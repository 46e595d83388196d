package codex

import (
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
)

// TestGenuine reads what Codex wrote against the fake model (testdata/genuine,
// scripts/fixtures.sh): a thread whose turn spawned a sub-agent, a thread of its own linked to
// it, and restores them natively.
func TestGenuine(t *testing.T) {
	c := adaptertest.CheckGenuine(t, New())
	var subs []string
	sessions := c.Sessions()
	for id, s := range sessions {
		if s.ParentSessionID != "" {
			if _, ok := sessions[s.ParentSessionID]; !ok || s.SourceAgent != subagentKind {
				t.Errorf("sub-agent %s: parent %q, source agent %q", id, s.ParentSessionID, s.SourceAgent)
			}
			subs = append(subs, id)
		}
	}
	if len(sessions) != 2 || len(subs) != 1 {
		t.Errorf("%d sessions, %d of them sub-agents; want the thread and its sub-agent", len(sessions), len(subs))
	}
}
