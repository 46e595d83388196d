package codex

import (
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
)

// TestConformance runs the shared conformance suite on the fixture.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Config{Adapter: New(), Want: adaptertest.Counts{Sessions: 6, Messages: 62, Parts: 34, Malformed: 1}})
}
