package goose_test

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/goose"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store/sqlite"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixtureRoot copies the fixture (its database built from its SQL script) to a fresh root.
func fixtureRoot(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "goose")
	adaptertest.CopyFixture(t, goose.New(), root, sqlite.CreateFromScript)
	return root
}

func testEnv(t *testing.T) adapters.Env {
	env := adaptertest.FakeEnv("linux", t.TempDir(), nil)
	env.OpenSQLite = sqlite.OpenAgentDB
	env.WriteRows = sqlite.WriteAgentRows
	return env
}

// readRoot reads every session under root.
func readRoot(t *testing.T, root string) *adaptertest.Collector {
	t.Helper()
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, goose.New(), testEnv(t), root, nil, &c)
	return &c
}

// TestGolden renders every event read from the fixture, one JSON object a line, against
// testdata/events.golden (rewrite with -update), sources in key order.
func TestGolden(t *testing.T) {
	c := readRoot(t, fixtureRoot(t))
	adaptertest.CheckGolden(t, filepath.Join("testdata", "events.golden"), c.Events, *update)
}

// TestSessionTypes: every session type goose writes is captured and marked, never filtered;
// a sub-agent is linked to its parent.
func TestSessionTypes(t *testing.T) {
	c := readRoot(t, fixtureRoot(t))
	ss := c.Sessions()
	for _, tc := range []struct{ id, kind, agent, parent string }{
		{"20260501_1", "user", "goose", ""},
		{"20260501_2", "sub_agent", "goose/subagent", "20260501_1"},
		{"20260501_3", "scheduled", "goose", ""},
		{"20260502_1", "acp", "goose", ""},
		{"20260502_2", "terminal", "goose", ""},
		{"20260502_3", "hidden", "goose", ""},
		{"20260502_4", "gateway", "goose", ""},
	} {
		s, ok := ss[tc.id]
		if !ok {
			t.Errorf("session %s (%s) not read", tc.id, tc.kind)
			continue
		}
		var g struct {
			SessionType string `json:"session_type"`
		}
		unmarshal(t, s.Options["goose"], &g)
		if g.SessionType != tc.kind || s.SourceAgent != tc.agent || s.ParentSessionID != tc.parent {
			t.Errorf("%s: type %q agent %q parent %q, want %q %q %q", tc.id, g.SessionType, s.SourceAgent, s.ParentSessionID, tc.kind, tc.agent, tc.parent)
		}
	}
}

// TestCompactionAndTools: rows compaction hid from the model are kept and marked, the summary
// only the model sees is injected, tool requests and responses are linked by id (the name
// carried over, failures flagged), and messages keep goose's (created_timestamp, id) order.
func TestCompactionAndTools(t *testing.T) {
	c := readRoot(t, fixtureRoot(t))
	hidden := 0
	var order []string
	for _, m := range c.Messages() {
		if m.SessionID != "20260501_1" {
			continue
		}
		order = append(order, m.ID)
		var g struct {
			AgentVisible bool `json:"agent_visible"`
		}
		unmarshal(t, m.Options["goose"], &g)
		if !g.AgentVisible {
			hidden++
		}
	}
	if hidden != 6 {
		t.Errorf("%d rows hidden from the agent, want 6 (4 compacted, a notification, an approval)", hidden)
	}
	for i := 1; i < len(order); i++ {
		if order[i] <= order[i-1] {
			t.Errorf("messages out of order: %v", order)
		}
	}
	calls := map[string]string{}
	var injected, failed int
	for _, p := range c.Parts() {
		switch {
		case p.Type == session.PartToolCall:
			calls[p.CallID] = p.Name
		case p.Type == session.PartToolResult:
			if name, ok := calls[p.CallID]; !ok || name != p.Name {
				t.Errorf("result %s: no call before it, or name %q, want %q", p.CallID, p.Name, name)
			}
			if p.IsFailure {
				failed++
			}
		case p.Provenance == session.Injected:
			injected++
		}
	}
	if len(calls) != 4 || failed != 2 || injected < 2 {
		t.Errorf("%d calls, %d failed results, %d injected parts; want 4, 2, at least 2", len(calls), failed, injected)
	}
}

func unmarshal(t *testing.T, raw []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
}
