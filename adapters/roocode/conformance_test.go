package roocode

import (
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
)

// TestConformance runs the shared conformance suite on the fixture.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Config{Adapter: Adapter{}, Want: adaptertest.Counts{Sessions: 3, Messages: 25, Parts: 22, Malformed: 1}})
}
