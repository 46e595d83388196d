package cline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/store/sqlite"
)

const (
	// The genuine session: cline 3.0.65 against Pond's fake model API (testdata/README.md).
	liveID = "1796216298934_43wm0"
	// Its sub-agent (hand-made beside it).
	subID = liveID + "__agent_1796216299500_ab12c"
	// Cline's own SDK fixture: a fork with a compaction document.
	forkID = "1784094124598_rruoq"
	// A session whose messages document was cut short.
	truncID = "1796216400000_trunc"
	// A legacy task folder.
	legacyID = "1770858773985"
	// A row of sessions.db with no files.
	dbOnlyID = "1796216500000_dbonly"
)

// fixture copies the fixture (building its database) and returns the root and an env that opens
// databases.
func fixture(t testing.TB) (string, adapters.Env) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "data")
	adaptertest.CopyFixture(t, Adapter{}, root, sqlite.CreateFromScript)
	env := adaptertest.FakeEnv("linux", t.TempDir(), nil)
	env.OpenSQLite = sqlite.OpenAgentDB
	return root, env
}

// readFixture reads the whole fixture.
func readFixture(t testing.TB) *adaptertest.Collector {
	t.Helper()
	root, env := fixture(t)
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, Adapter{}, env, root, nil, &c)
	return &c
}

func mkfile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
