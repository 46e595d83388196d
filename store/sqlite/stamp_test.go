package sqlite

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters"
)

// TestSQLiteStampMovesWithEveryCommit: adapters.SQLiteStamp, checked against real SQLite
// databases here (adapters may not link a driver): every commit moves it, in rollback-journal
// and WAL mode alike, across checkpoints and a log that restarts at the same length; nothing
// else does.
func TestSQLiteStampMovesWithEveryCommit(t *testing.T) {
	for _, mode := range []string{"delete", "wal"} {
		t.Run(mode, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "agent.db")
			db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode="+mode)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			db.SetMaxOpenConns(1)
			exec := func(q string) {
				t.Helper()
				if _, err := db.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			exec(`PRAGMA wal_autocheckpoint = 0`)
			exec(`CREATE TABLE m (id INTEGER PRIMARY KEY, body TEXT)`)
			stamp := func() string {
				t.Helper()
				s, err := adapters.SQLiteStamp(path)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			seen := map[string]string{}
			moved := func(what string) {
				t.Helper()
				s := stamp()
				if prev, ok := seen[s]; ok {
					t.Errorf("after %s the stamp %q is the one after %s", what, s, prev)
				}
				seen[s] = what
				if again := stamp(); again != s {
					t.Errorf("after %s, nothing changed but the stamp moved: %q, then %q", what, s, again)
				}
				var n int
				if err := db.QueryRow(`SELECT count(*) FROM m`).Scan(&n); err != nil { // a read moves nothing
					t.Fatal(err)
				}
				if again := stamp(); again != s {
					t.Errorf("after %s, a read moved the stamp: %q, then %q", what, s, again)
				}
			}
			moved("create")
			exec(`INSERT INTO m (body) VALUES ('one')`)
			moved("first insert")
			exec(`UPDATE m SET body = 'uno'`) // same size of data, same page count
			moved("update")
			if mode == "wal" {
				exec(`PRAGMA wal_checkpoint(PASSIVE)`) // pages copied back; the log keeps its length
				seen[stamp()] = "checkpoint"           // which may move the stamp or not
				exec(`INSERT INTO m (body) VALUES ('two')`)
				moved("insert into a restarted log")
				exec(`PRAGMA wal_checkpoint(TRUNCATE)`) // empty log: the database header alone
				seen[stamp()] = "truncating checkpoint"
				exec(`INSERT INTO m (body) VALUES ('three')`)
				moved("insert after truncating the log")
			}
			exec(`DELETE FROM m WHERE id = 1`)
			moved("delete")
		})
	}
}

func TestSQLiteStampRefusesOtherFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "not.db")
	if err := os.WriteFile(path, []byte("{\"not\": \"a database, but long enough to hold a header of a hundred bytes, which it does not start with\"}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := adapters.SQLiteStamp(path); err == nil {
		t.Error("a JSON file stamped as a database")
	}
	if _, err := adapters.SQLiteStamp(filepath.Join(t.TempDir(), "missing.db")); err == nil {
		t.Error("a missing database stamped")
	}
}
