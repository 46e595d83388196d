package sqlite

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"sync"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// agentDriver is go-sqlite3 with the guard every connection to an agent's database gets.
const agentDriver = "sqlite3_pond_agent"

var registerAgent sync.Once

// OpenAgentDB opens another program's SQLite database (an agent's session store) for reading
// only, without ever locking that program out: read-only mode and query_only, so no write lock
// is ever taken; readers never block a WAL-mode writer; and a busy timeout waits out a rollback
// journal writer instead of failing. Adapters receive it through adapters.Env.
//
// The file is untrusted: its schema may have been crafted. Connections run in defensive mode
// with trusted_schema=OFF, so its views and triggers cannot call unsafe functions or reach
// shadow tables, and every statement is stopped agentQueryTimeout after its first step (an
// endless recursive view must not hold a sync forever).
func OpenAgentDB(path string) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	registerAgent.Do(func() {
		sql.Register(agentDriver, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
			return installGuard(c, guardLimits{timeout: agentQueryTimeout})
		}})
	})
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_query_only", "1")
	q.Set("_busy_timeout", "5000")
	db, err := sql.Open(agentDriver, "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(2)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return db, nil
}

// CreateFromScript creates the database at path by running an SQL script (such as a
// `sqlite3 .dump`), for tests that need an agent's database from a dump.
func CreateFromScript(path, script string) error {
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec(script); err != nil {
		return fmt.Errorf("sqlite: run script into %s: %w", path, err)
	}
	return nil
}

// WriteAgentDB opens (creating) the database at path for writing and runs fn in one
// transaction, committed when fn returns nil: for tests and benchmark generators that build an
// agent's database row by row (a script of many rows is slow to run in one Exec). Pond itself
// never writes an agent's database.
func WriteAgentDB(path string, fn func(tx *sql.Tx) error) error {
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return fmt.Errorf("sqlite: write %s: %w", path, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return fmt.Errorf("sqlite: write %s: %w", path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: write %s: %w", path, err)
	}
	return nil
}
