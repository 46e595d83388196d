package qwen

import (
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
)

// TestConformance runs the shared conformance suite on the fixture.
func TestConformance(t *testing.T) {
	adaptertest.Run(t, adaptertest.Config{Adapter: Adapter{}, Want: adaptertest.Counts{Sessions: 6, Messages: 39, Parts: 28, Malformed: 1}})
}
