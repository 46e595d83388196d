package hermes_test

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"sort"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/hermes"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store/sqlite"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixtureRoot copies the fixture (its stores built from their SQL dumps) to a fresh root.
func fixtureRoot(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "hermes")
	adaptertest.CopyFixture(t, hermes.New(), root, sqlite.CreateFromScript)
	return root
}

func testEnv(t *testing.T) adapters.Env {
	env := adaptertest.FakeEnv("linux", t.TempDir(), nil)
	env.OpenSQLite = sqlite.OpenAgentDB
	env.WriteRows = sqlite.WriteAgentRows
	return env
}

// readFixture reads the whole fixture.
func readFixture(t *testing.T) (*adaptertest.Collector, string) {
	t.Helper()
	root := fixtureRoot(t)
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, hermes.New(), testEnv(t), root, nil, &c)
	return &c, root
}

// TestGolden renders every event read from the fixture, one JSON object a line, against
// testdata/events.golden (rewrite with -update), sources in key order.
func TestGolden(t *testing.T) {
	c, _ := readFixture(t)
	adaptertest.CheckGolden(t, filepath.Join("testdata", "events.golden"), c.Events, *update)
}

// TestLineage: continuations, branches and sub-agents are linked to their parents and told
// apart; inactive rows are kept and marked.
func TestLineage(t *testing.T) {
	c, _ := readFixture(t)
	ss := c.Sessions()
	for _, tc := range []struct{ id, parent, agent, kind string }{
		{"20260430_080000_a1b2c3", "", "hermes", ""},
		{"20260430_080100_d4e5f6", "20260430_080000_a1b2c3", "hermes/subagent", "subagent"},
		{"20260430_090000_0a0b0c", "20260430_080000_a1b2c3", "hermes", "continuation"},
		{"20260501_120500_112233", "20260501_120000_abcdef", "hermes", "branch"},
	} {
		s, ok := ss[tc.id]
		if !ok {
			t.Errorf("session %s not read", tc.id)
			continue
		}
		var h struct {
			Lineage string `json:"lineage"`
		}
		unmarshal(t, s.Options["hermes"], &h)
		if s.ParentSessionID != tc.parent || s.SourceAgent != tc.agent || h.Lineage != tc.kind {
			t.Errorf("%s: parent %q agent %q lineage %q, want %q %q %q", tc.id, s.ParentSessionID, s.SourceAgent, h.Lineage, tc.parent, tc.agent, tc.kind)
		}
	}
	var live, dead []string
	for _, m := range c.Messages() {
		if m.SessionID != "20260430_080000_a1b2c3" {
			continue
		}
		var h struct {
			Live bool `json:"live"`
		}
		unmarshal(t, m.Options["hermes"], &h)
		if h.Live {
			live = append(live, m.ID)
		} else {
			dead = append(dead, m.ID)
		}
	}
	sort.Strings(dead)
	// Six rows compacted away, the rewound one, and the system prompt is not a row.
	if len(dead) != 7 || len(live) == 0 {
		t.Errorf("live %v, inactive %v: want the 6 compacted rows and the rewound one inactive", live, dead)
	}
	var kinds []session.PartType
	for _, p := range c.Parts() {
		if p.SessionID == "20260430_080000_a1b2c3" {
			kinds = append(kinds, p.Type)
		}
	}
	for _, want := range []session.PartType{session.PartToolCall, session.PartToolResult, session.PartReasoning, session.PartFile} {
		found := false
		for _, k := range kinds {
			found = found || k == want
		}
		if !found {
			t.Errorf("no %s part in the main session", want)
		}
	}
}

func unmarshal(t *testing.T, raw []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
}
