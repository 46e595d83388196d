package cursor

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store/sqlite"
)

// fixedTime is the modification time the tests give every fixture file: a transcript without a
// store takes its start from its file.
var fixedTime = time.Date(2025, 12, 1, 13, 0, 0, 0, time.UTC)

// fixture copies the test tree to a fresh root, builds its databases and fixes its files'
// times.
func fixture(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "Cursor")
	adaptertest.CopyFixture(t, New(), root, sqlite.CreateFromScript)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, fixedTime, fixedTime)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func testEnv(t *testing.T) adapters.Env {
	e := adaptertest.FakeEnv("linux", t.TempDir(), nil)
	e.OpenSQLite = sqlite.OpenAgentDB
	return e
}

// write runs stmts on the database at path in one transaction, as Cursor would commit.
func write(t testing.TB, path string, stmts ...string) {
	t.Helper()
	err := sqlite.WriteAgentDB(path, func(tx *sql.Tx) error {
		for _, s := range stmts {
			if _, err := tx.Exec(s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func globalDB(root string) string { return filepath.Join(root, filepath.FromSlash(globalDBRel)) }

func sessionEvent(s *session.Session) session.Event { return session.Event{Session: s} }
