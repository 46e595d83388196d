package hermes_test

import (
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/hermes"
	"github.com/pondhq/pond/store/sqlite"
)

func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Config{
		Adapter:    hermes.New(),
		Want:       adaptertest.Counts{Sessions: 10, Messages: 39, Parts: 44},
		OpenSQLite: sqlite.OpenAgentDB,
		CreateDB:   sqlite.CreateFromScript,
		WriteRows:  sqlite.WriteAgentRows,
	})
}
