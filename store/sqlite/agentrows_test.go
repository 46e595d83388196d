package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters/restore"
)

const agentSchema = `CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, title TEXT);
CREATE TABLE IF NOT EXISTS messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, content TEXT);`

func agentRows(session string, ids ...int64) *restore.Rows {
	r := &restore.Rows{Create: agentSchema, Renumber: map[string]string{"messages": "id"}}
	r.Inserts = append(r.Inserts, restore.Insert{Table: "sessions", Columns: []string{"id", "title"}, Values: []any{session, "t"}})
	for _, id := range ids {
		r.Inserts = append(r.Inserts, restore.Insert{Table: "messages", Columns: []string{"id", "session_id", "content", "newer"},
			Values: []any{id, session, "m", "x"}})
	}
	return r
}

func dump(t *testing.T, path string) []string {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id || ':' || session_id FROM messages ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		out = append(out, s)
	}
	return out
}

// TestWriteAgentRows: the restore seam for agents kept in SQLite. A missing database is
// created from the plan's schema; planned row ids are kept when free and renumbered in order
// when any is taken; a column the target lacks is added to a database the restore created, and
// left out and named in an existing one; a session already there
// fails the whole restore with ErrRowExists and writes nothing; the write waits for the agent's
// own writer instead of failing.
func TestWriteAgentRows(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	left, err := WriteAgentRows(ctx, path, agentRows("a", 5, 7))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("a database the restore created left out %v: its columns are added", left)
	}
	if diff := cmp.Diff([]string{"5:a", "7:a"}, dump(t, path)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}

	// Ids 7 and 8 planned, 7 taken: both renumbered after the last row, in order.
	// A column the existing database lacks is left out, and named.
	b := agentRows("b", 7, 8)
	b.Inserts[2].Columns = append(b.Inserts[2].Columns, "newest")
	b.Inserts[2].Values = append(b.Inserts[2].Values, "y")
	left, err = WriteAgentRows(ctx, path, b)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"messages.newest"}, left); diff != "" {
		t.Errorf("left out (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"5:a", "7:a", "8:b", "9:b"}, dump(t, path)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}

	// A session of the same id: nothing at all is written.
	_, err = WriteAgentRows(ctx, path, agentRows("a", 100))
	if !errors.Is(err, restore.ErrRowExists) {
		t.Errorf("restoring a session that is there: %v, want ErrRowExists", err)
	}
	if got := dump(t, path); len(got) != 4 {
		t.Errorf("after a refused restore: %v, want the 4 rows from before", got)
	}

	// A missing database whose write fails is not left behind.
	bad := filepath.Join(t.TempDir(), "state.db")
	r := agentRows("c", 1)
	r.Inserts = append(r.Inserts, restore.Insert{Table: "nope", Columns: []string{"x"}, Values: []any{1}})
	if _, err := WriteAgentRows(ctx, bad, r); err == nil {
		t.Error("an insert into a missing table succeeded")
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed restore left the database it created: %v", err)
	}

	// The agent holds the write lock: the restore waits for it, then goes in.
	agent, err := sql.Open("sqlite3", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	tx, err := agent.Begin()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := WriteAgentRows(ctx, path, agentRows("d", 50))
		done <- err
	}()
	if _, err := tx.Exec(`INSERT INTO messages (session_id, content) VALUES ('agent', 'own')`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("a restore while the agent writes: %v", err)
	}
	if got := dump(t, path); len(got) != 6 {
		t.Errorf("after the agent's write and the restore: %v, want 6 rows", got)
	}
}
