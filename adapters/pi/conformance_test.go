package pi

import (
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
)

// TestConformance runs the shared conformance suite on the fixture.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Config{Adapter: New(), Want: adaptertest.Counts{Sessions: 4, Messages: 48, Parts: 38, Malformed: 1}})
}
