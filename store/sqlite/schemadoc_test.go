package sqlite

import (
	"context"
	"regexp"
	"testing"

	"github.com/pondhq/pond/present"
)

// TestSchemaDocNamesEveryColumn keeps the SQL surface's documentation (what `pond sql --schema`
// prints and agents read through MCP) in step with the mirror: every public table and view, and
// each of its columns, is named in it.
func TestSchemaDocNamesEveryColumn(t *testing.T) {
	m := tempMirror(t)
	ctx := context.Background()
	// Pond's own tables (_pond_*) and the full-text indexes (FTS5 virtual tables and their
	// shadow tables) are search machinery, not the documented surface.
	rows, err := m.db.QueryContext(ctx, `SELECT name FROM sqlite_schema s WHERE type IN ('table', 'view')
		AND name NOT LIKE '\_%' ESCAPE '\' AND name NOT LIKE 'sqlite%' AND sql NOT LIKE 'CREATE VIRTUAL%'
		AND NOT EXISTS (SELECT 1 FROM sqlite_schema v WHERE v.sql LIKE 'CREATE VIRTUAL%' AND s.name LIKE v.name || '\_%' ESCAPE '\')`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	if len(tables) < 5 {
		t.Fatalf("found only %v; the query missed the public tables", tables)
	}
	word := func(w string) bool {
		return regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`).MatchString(present.SQLSchema)
	}
	for _, table := range tables {
		if !word(table) {
			t.Errorf("table %s is not in the schema document", table)
		}
		cols, err := m.db.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
		if err != nil {
			t.Fatal(err)
		}
		for cols.Next() {
			var c string
			cols.Scan(&c)
			if !word(c) {
				t.Errorf("column %s.%s is not in the schema document", table, c)
			}
		}
		cols.Close()
	}
}
