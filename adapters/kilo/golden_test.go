package kilo

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/store/sqlite"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden renders every event read from the fixture against testdata/events.golden
// (rewrite with -update), raw records left out: OpenCode's mapping, Kilo's agent names.
func TestGolden(t *testing.T) {
	root := filepath.Join(t.TempDir(), "kilo")
	adaptertest.CopyFixture(t, Adapter{}, root, sqlite.CreateFromScript)
	env := adaptertest.FakeEnv("linux", t.TempDir(), nil)
	env.OpenSQLite = sqlite.OpenAgentDB
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, Adapter{}, env, root, nil, &c)
	for _, s := range c.Sessions() {
		if s.SourceAgent != Name && s.SourceAgent != SubagentKind {
			t.Errorf("session %s has SourceAgent %q, want %s or %s", s.ID, s.SourceAgent, Name, SubagentKind)
		}
	}
	adaptertest.CheckGolden(t, filepath.Join("testdata", "events.golden"), c.Events, *update)
}
