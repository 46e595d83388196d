package copilot

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden renders every event read from testdata, one JSON object a line, against
// testdata/events.golden (rewrite with -update). The raw records under options.source.record
// are left out: the conformance suite's native restore checks them against the files.
func TestGolden(t *testing.T) {
	c := readTestdata(t)
	adaptertest.CheckGolden(t, filepath.Join("testdata", "events.golden"), c.Events, *update)
}
