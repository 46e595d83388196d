package codex

import (
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

// TestGolden renders every event read from the testdata root, one JSON object a line, against
// testdata/events.golden (rewrite with -update). The raw records under options.source.record are
// left out: TestRead checks them against the files.
func TestGolden(t *testing.T) {
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, New(), adapters.Env{}, testRoot, nil, &c)
	adaptertest.CheckGolden(t, filepath.Join("testdata", "events.golden"), c.Events, *update)
}
