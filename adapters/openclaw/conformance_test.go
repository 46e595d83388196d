package openclaw

import (
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/store/sqlite"
)

// TestConformance runs the shared conformance suite on the fixture: the database OpenClaw
// wrote (testdata/openclaw/agents/main/agent/openclaw-agent.sql) and the legacy files beside it.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Config{
		Adapter:    New(),
		Want:       adaptertest.Counts{Sessions: 7, Messages: 26, Parts: 27, Malformed: 1},
		OpenSQLite: sqlite.OpenAgentDB,
		CreateDB:   sqlite.CreateFromScript,
	})
}
