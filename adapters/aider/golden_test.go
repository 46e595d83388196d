package aider

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden renders every event read from the fixture, one JSON object a line, against
// testdata/events.golden (rewrite with -update).
func TestGolden(t *testing.T) {
	c := readTestdata(t)
	adaptertest.CheckGolden(t, filepath.Join("testdata", "events.golden"), c.Events, *update)
}
