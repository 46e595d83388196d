package kilo

import (
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/store/sqlite"
)

// TestConformance runs the shared conformance suite on the fixture: kilo.db built from
// testdata/kilo.sql.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Config{
		Adapter:    Adapter{},
		Want:       adaptertest.Counts{Sessions: 4, Messages: 22, Parts: 24, Malformed: 3},
		OpenSQLite: sqlite.OpenAgentDB,
		CreateDB:   sqlite.CreateFromScript,
	})
}
