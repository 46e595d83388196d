package goose_test

import (
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/goose"
	"github.com/pondhq/pond/store/sqlite"
)

func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Config{
		Adapter:    goose.New(),
		Want:       adaptertest.Counts{Sessions: 7, Messages: 22, Parts: 27},
		OpenSQLite: sqlite.OpenAgentDB,
		CreateDB:   sqlite.CreateFromScript,
		WriteRows:  sqlite.WriteAgentRows,
	})
}
