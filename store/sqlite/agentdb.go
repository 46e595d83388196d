package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// OpenAgentDB opens another program's SQLite database (an agent's session store) for reading
// only, without ever locking that program out: read-only mode and query_only, so no write lock
// is ever taken; readers never block a WAL-mode writer; and a busy timeout waits out a rollback
// journal writer instead of failing. Adapters receive it through adapters.Env.
//
// The file is untrusted: its schema may have been crafted. Connections run with
// trusted_schema=OFF, so its views and triggers cannot call functions that are not innocuous
// nor use virtual tables that are not; an authorizer allows reading and the schema-describing
// pragmas only (SQLite's defensive mode, which go-sqlite3 cannot switch on, guards against
// writes, which read-only mode already refuses, and writable_schema, which the authorizer
// refuses); and every statement stops agentQueryTimeout after it starts, whatever context its
// caller passed, so an endless recursive view cannot hold a sync.
func OpenAgentDB(path string) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_query_only", "1")
	q.Set("_busy_timeout", "5000")
	db := sql.OpenDB(agentConnector{dsn: "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()})
	db.SetMaxOpenConns(2)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return db, nil
}

// agentQueryTimeout bounds one statement over an agent's database, from its start until its
// rows are closed, including the time its caller spends between rows.
var agentQueryTimeout = 60 * time.Second

var agentDriver = &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
	if _, err := c.Exec(`PRAGMA trusted_schema = OFF`, nil); err != nil {
		return fmt.Errorf("sqlite: trusted_schema: %w", err)
	}
	c.RegisterAuthorizer(authorizeAgentRead)
	return nil
}}

// agentPragmas are the pragmas an adapter may run on an agent's database: they describe the
// schema and change nothing.
var agentPragmas = map[string]bool{"table_info": true, "table_xinfo": true, "table_list": true, "index_list": true,
	"index_info": true, "index_xinfo": true, "foreign_key_list": true, "data_version": true, "user_version": true,
	"schema_version": true, "trusted_schema": true, "query_only": true, "journal_mode": true, "page_size": true}

// authorizeAgentRead allows reading an agent's database and nothing else.
func authorizeAgentRead(op int, a1, a2, a3 string) int {
	switch op {
	case sqlite3.SQLITE_SELECT, sqliteRecursive, sqlite3.SQLITE_READ, sqlite3.SQLITE_TRANSACTION:
		return sqlite3.SQLITE_OK
	case sqlite3.SQLITE_FUNCTION:
		if deniedFunctions[strings.ToLower(a2)] {
			return sqlite3.SQLITE_DENY
		}
		return sqlite3.SQLITE_OK
	case sqlite3.SQLITE_PRAGMA:
		// Reading a pragma, or naming the table one describes; never setting one.
		name := strings.ToLower(a1)
		if agentPragmas[name] && (a2 == "" || strings.HasSuffix(name, "_info") || strings.HasSuffix(name, "_xinfo") || strings.HasSuffix(name, "_list")) {
			return sqlite3.SQLITE_OK
		}
	}
	return sqlite3.SQLITE_DENY
}

// agentConnector opens connections through agentDriver and puts each statement under
// agentQueryTimeout.
type agentConnector struct{ dsn string }

func (c agentConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := agentDriver.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(*sqlite3.SQLiteConn)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("sqlite: unexpected connection type %T", conn)
	}
	return &deadlineConn{SQLiteConn: sc, timeout: agentQueryTimeout}, nil
}

func (c agentConnector) Driver() driver.Driver { return agentDriver }

// deadlineConn is a go-sqlite3 connection whose statements each run under their own deadline;
// go-sqlite3 interrupts a statement whose context ends.
type deadlineConn struct {
	*sqlite3.SQLiteConn
	timeout time.Duration
}

func (c *deadlineConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	rows, err := c.SQLiteConn.QueryContext(ctx, q, args)
	return deadlineRows(rows, err, cancel)
}

func (c *deadlineConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return c.SQLiteConn.ExecContext(ctx, q, args)
}

func (c *deadlineConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	st, err := c.SQLiteConn.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	sst, ok := st.(*sqlite3.SQLiteStmt)
	if !ok {
		st.Close()
		return nil, fmt.Errorf("sqlite: unexpected statement type %T", st)
	}
	return &deadlineStmt{SQLiteStmt: sst, timeout: c.timeout}, nil
}

type deadlineStmt struct {
	*sqlite3.SQLiteStmt
	timeout time.Duration
}

func (s *deadlineStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	rows, err := s.SQLiteStmt.QueryContext(ctx, args)
	return deadlineRows(rows, err, cancel)
}

func (s *deadlineStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return s.SQLiteStmt.ExecContext(ctx, args)
}

// cancelRows are a statement's rows that end its deadline when closed.
type cancelRows struct {
	*sqlite3.SQLiteRows
	cancel context.CancelFunc
}

func (r *cancelRows) Close() error {
	err := r.SQLiteRows.Close()
	r.cancel()
	return err
}

func deadlineRows(rows driver.Rows, err error, cancel context.CancelFunc) (driver.Rows, error) {
	if err != nil {
		cancel()
		return nil, err
	}
	sr, ok := rows.(*sqlite3.SQLiteRows)
	if !ok {
		rows.Close()
		cancel()
		return nil, fmt.Errorf("sqlite: unexpected rows type %T", rows)
	}
	return &cancelRows{SQLiteRows: sr, cancel: cancel}, nil
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
