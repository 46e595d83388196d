package copilot

import (
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
)

// TestGenuine reads what the agent's own code wrote against the fake model
// (testdata/genuine, scripts/fixtures.sh) and restores it natively.
func TestGenuine(t *testing.T) {
	adaptertest.CheckGenuine(t, Adapter{})
}
