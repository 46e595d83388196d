package capture

import (
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// TestEmitterDropsExcludedProjects: the rows of a session in an excluded project, and of its
// sub-agents, never reach a batch (agents keeping every project in one file or database).
func TestEmitterDropsExcludedProjects(t *testing.T) {
	x, err := adapters.NewExclusions([]string{"~/work/client-*"}, "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	m := &emitter{exclude: x}
	for _, ev := range []session.Event{
		{Session: &session.Session{ID: "a", Project: "/home/u/work/client-x/api"}},
		{Message: &session.Message{SessionID: "a", ID: "m"}},
		{Part: &session.Part{SessionID: "a", MessageID: "m", ID: "p"}},
		{Session: &session.Session{ID: "a-sub", Project: "/tmp/elsewhere", ParentSessionID: "a"}},
		{Message: &session.Message{SessionID: "a-sub", ID: "m"}},
		{Session: &session.Session{ID: "b", Project: "/home/u/work/own"}},
		{Message: &session.Message{SessionID: "b", ID: "m"}},
	} {
		if err := m.Event(ev); err != nil {
			t.Fatal(err)
		}
	}
	var kept []string
	for _, ev := range m.events {
		kept = append(kept, ev.Key().String())
	}
	if len(m.events) != 2 || m.events[0].Key().SessionID != "b" || m.events[1].Key().SessionID != "b" {
		t.Errorf("kept %v, want only session b's rows", kept)
	}
}
