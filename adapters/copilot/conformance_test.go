package copilot

import (
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
)

// TestConformance runs the shared conformance suite on the fixture.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Config{Adapter: Adapter{}, Want: adaptertest.Counts{Sessions: 7, Messages: 90, Parts: 47, Malformed: 1}})
}
