package opencode

import (
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/store/sqlite"
)

// TestConformance runs the shared conformance suite on the fixture: the database built from
// testdata/opencode.sql and the legacy tree in testdata/storage.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Config{
		Adapter:    New(),
		Want:       adaptertest.Counts{Sessions: 6, Messages: 26, Parts: 29, Malformed: 4},
		OpenSQLite: sqlite.OpenAgentDB,
		CreateDB:   sqlite.CreateFromScript,
	})
}
