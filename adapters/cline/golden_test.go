package cline

import (
	"flag"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden renders every event read from the fixture, one JSON object a line, against
// testdata/events.golden (rewrite with -update), raw records left out.
func TestGolden(t *testing.T) {
	c := readFixture(t)
	adaptertest.CheckGolden(t, filepath.Join("testdata", "events.golden"), c.Events, *update)
}
