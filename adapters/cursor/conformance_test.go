package cursor

import (
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/store/sqlite"
)

// TestConformance runs the shared conformance suite on the fixture: the IDE's databases built
// from their SQL scripts, cursor-agent's transcripts and chat store.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Config{
		Adapter:    New(),
		Want:       adaptertest.Counts{Sessions: 9, Messages: 32, Parts: 32, Malformed: 2},
		OpenSQLite: sqlite.OpenAgentDB,
		CreateDB:   sqlite.CreateFromScript,
	})
}
