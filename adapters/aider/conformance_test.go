package aider

import (
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
)

// TestConformance runs the shared conformance suite on the fixture.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Config{Adapter: Adapter{}, Want: adaptertest.Counts{Sessions: 6, Messages: 48, Parts: 47}})
}
