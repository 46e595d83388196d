package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

func TestProbeFindsFTS5(t *testing.T) {
	v, fts5, err := Probe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v == "" || !fts5 {
		t.Fatalf("Probe() = %q, fts5=%v; want a version and FTS5 (build with -tags sqlite_fts5)", v, fts5)
	}
}

func TestFTS5Match(t *testing.T) {
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "fts.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = 'unicode61')",
		"INSERT INTO docs(body) VALUES ('the migration failed on the staging database'), ('lunch at noon'), ('database vacuum finished')",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.Query("SELECT body FROM docs WHERE docs MATCH ? ORDER BY rank", "database AND migration")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if len(got) != 1 || got[0] != "the migration failed on the staging database" {
		t.Fatalf("MATCH 'database AND migration' = %q", got)
	}
}

func TestOpenAgentDBIsReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.db")
	if err := CreateFromScript(path, "PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1);"); err != nil {
		t.Fatal(err)
	}
	db, err := OpenAgentDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("count = %d, %v", n, err)
	}
	if _, err := db.Exec("INSERT INTO t VALUES (2)"); err == nil {
		t.Fatal("insert through OpenAgentDB: got nil error")
	}
	// The agent keeps writing while we hold our connection open.
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Exec("INSERT INTO t VALUES (3)"); err != nil {
		t.Fatalf("agent write while Pond reads: %v", err)
	}
}

func TestMirrorUsesWALAndLargePages(t *testing.T) {
	m := tempMirror(t)
	var mode string
	var page int
	m.DB().QueryRow(`PRAGMA journal_mode`).Scan(&mode)
	m.DB().QueryRow(`PRAGMA page_size`).Scan(&page)
	if mode != "wal" || page != 16384 {
		t.Fatalf("journal_mode %q, page_size %d; want wal and 16384", mode, page)
	}
}
