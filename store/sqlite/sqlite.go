// Package sqlite holds Pond's SQLite mirror of the Lance tables: the read-only SQL surface
// (go-sqlite3, built with the sqlite_fts5 tag).
package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver
)

// Probe reports the linked SQLite's version and whether FTS5 is compiled in (it is when Pond is
// built with `-tags sqlite_fts5`, as the Makefile does).
func Probe(ctx context.Context) (version string, fts5 bool, err error) {
	db, err := sql.Open("sqlite3", "file::memory:")
	if err != nil {
		return "", false, err
	}
	defer db.Close()
	if err := db.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&version); err != nil {
		return "", false, fmt.Errorf("sqlite: version: %w", err)
	}
	var n int
	err = db.QueryRowContext(ctx, "SELECT count(*) FROM pragma_compile_options WHERE compile_options = 'ENABLE_FTS5'").Scan(&n)
	if err != nil {
		return version, false, fmt.Errorf("sqlite: compile options: %w", err)
	}
	return version, n == 1, nil
}

// QueryStrings runs a query of one text column and returns its values.
func QueryStrings(ctx context.Context, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, q string, args ...any) ([]string, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
