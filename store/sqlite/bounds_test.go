package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// endless is a recursive CTE that never ends.
const endless = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c)`

// within runs f and fails the test when it has not returned after a generous bound: each case
// below hung (or ran for its 600 s timeout) before the guard.
func within(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s: still running after 2 minutes", what)
		return nil
	}
}

// setVar sets *p to v for the test.
func setVar[T any](t *testing.T, p *T, v T) {
	old := *p
	*p = v
	t.Cleanup(func() { *p = old })
}

// agentDB creates an agent database from script and opens it through OpenAgentDB.
func agentDB(t *testing.T, script string) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.db")
	if err := CreateFromScript(path, script); err != nil {
		t.Fatal(err)
	}
	db, err := OpenAgentDB(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOpenAgentDBStopsAnEndlessView(t *testing.T) {
	setVar(t, &agentQueryTimeout, 200*time.Millisecond)
	db := agentDB(t, `CREATE TABLE t(x); INSERT INTO t VALUES (1);
		CREATE VIEW sessions AS `+endless+` SELECT x AS id FROM c;`)
	err := within(t, "SELECT from an endless view", func() error {
		var n int
		return db.QueryRowContext(context.Background(), `SELECT count(*) FROM sessions`).Scan(&n)
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("endless view: got %v, want the statement's deadline exceeded", err)
	}
	// The deadline is per statement: the connection goes on answering.
	var n int
	if err := db.QueryRowContext(context.Background(), `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("next statement: got %d, %v; want 1, nil", n, err)
	}
}

func TestOpenAgentDBDistrustsTheSchema(t *testing.T) {
	conn, err := agentDB(t, `CREATE TABLE t(x);`).Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var trusted int
	if err := conn.QueryRowContext(context.Background(), `PRAGMA trusted_schema`).Scan(&trusted); err != nil || trusted != 0 {
		t.Errorf("PRAGMA trusted_schema = %d, %v; want 0", trusted, err)
	}
	// Only reading, and the pragmas that describe the schema, get through.
	for _, q := range []string{`PRAGMA writable_schema = ON`, `PRAGMA trusted_schema = ON`, `ATTACH ':memory:' AS x`,
		`SELECT load_extension('x')`, `PRAGMA query_only = OFF`} {
		if _, err := conn.ExecContext(context.Background(), q); err == nil || !strings.Contains(err.Error(), "not authorized") {
			t.Errorf("%s: got %v, want it refused", q, err)
		}
	}
	var cols int
	if err := conn.QueryRowContext(context.Background(), `SELECT count(*) FROM pragma_table_info(?)`, "t").Scan(&cols); err != nil || cols != 1 {
		t.Errorf("pragma_table_info: %d columns, %v; want 1", cols, err)
	}
}

func TestReaderBoundsEachStatement(t *testing.T) {
	setVar(t, &maxTempBytes, 8<<20)
	dir, _, r := testMirror(t)
	cases := []struct {
		name, q string
		opts    Options
		want    string
	}{
		{"value_length", `SELECT length(randomblob(100000000))`, Options{}, "past 64 MiB"},
		{"value_length_built", `SELECT length(group_concat(zeroblob(1000000))) FROM (` + endless + ` SELECT x FROM c LIMIT 100)`, Options{}, "past 64 MiB"},
		{"timeout_cap", endless + ` SELECT count(*) FROM c`, Options{Timeout: MaxTimeout, MaxTimeout: 100 * time.Millisecond}, "100ms timeout"},
	}
	if tempMeasurable {
		cases = append(cases, struct {
			name, q string
			opts    Options
			want    string
		}{"temp_space", endless + ` SELECT count(DISTINCT randomblob(2000)) FROM c`, Options{Timeout: MaxTimeout}, "temporary space"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := within(t, tc.name, func() error {
				_, err := r.Query(context.Background(), tc.q, tc.opts)
				return err
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
	// Temporary files went to the private directory, which nobody else may read, and left it.
	tmp := filepath.Join(dir, tempDirName)
	if st, err := os.Stat(tmp); err != nil {
		t.Fatal(err)
	} else if st.Mode().Perm() != 0o700 {
		t.Fatalf("temporary directory %s has mode %v, want 0700", tmp, st.Mode().Perm())
	}
	if n := tempBytes(tmp); n != 0 {
		t.Errorf("temporary files still hold %d bytes after the queries", n)
	}
	// A query within the bounds still runs.
	res, err := r.Query(context.Background(), `SELECT count(DISTINCT x) AS n FROM (`+endless+` SELECT x FROM c LIMIT 1000)`, Options{})
	if err != nil || res.Rows[0]["n"] != int64(1000) {
		t.Fatalf("bounded query: got %v, %v", res, err)
	}
}

// TestLongReadLeavesTheLogCheckpointable: a reader's snapshot keeps the writer's log from being
// copied back for as long as its statement runs; the timeout cap an agent's SQL gets ends that
// statement, and then a checkpoint copies everything.
func TestLongReadLeavesTheLogCheckpointable(t *testing.T) {
	_, path, r := testMirror(t)
	m, err := OpenMirror(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	done := make(chan error, 1)
	go func() {
		_, err := r.Query(context.Background(), endless+` SELECT count(*) FROM c`, Options{Timeout: MaxTimeout, MaxTimeout: 300 * time.Millisecond})
		done <- err
	}()
	for i := range 20 {
		err := m.Apply(context.Background(), &Rows{Sessions: []SessionRow{{SessionID: "w" + string(rune('a'+i)), SourceAgent: "codex-cli",
			CreatedAt: "2026-01-01T00:00:00.000000Z", Project: "/p", IngestSeq: int64(10 + i)}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := within(t, "the long read", func() error { return <-done }); err == nil {
		t.Fatal("endless read: got nil error")
	}
	var busy, log, copied int
	if err := m.DB().QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &log, &copied); err != nil || busy != 0 {
		t.Fatalf("checkpoint after the read: busy %d, log %d, copied %d, %v; want busy 0", busy, log, copied, err)
	}
}
