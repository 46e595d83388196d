package cursor

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden renders every event read from the fixture, one JSON object a line, against
// testdata/events.golden (rewrite with -update). The raw records under options.source.record
// are left out: they are the fixture's rows and lines as written.
func TestGolden(t *testing.T) {
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, New(), testEnv(t), fixture(t), nil, &c)
	adaptertest.CheckGolden(t, filepath.Join("testdata", "events.golden"), c.Events, *update)
}
