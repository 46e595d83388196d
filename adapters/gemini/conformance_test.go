package gemini

import (
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
)

// TestConformance runs the shared conformance suite on the fixture.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Config{Adapter: New(), Want: adaptertest.Counts{Sessions: 5, Messages: 27, Parts: 32, Malformed: 1}})
}
