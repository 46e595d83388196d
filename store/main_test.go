package store

import (
	"os"
	"testing"

	"github.com/pondhq/pond/internal/s3test"
)

// TestMain stops the moto server the package's tests share (s3test.Shared: Lance takes an
// object store's endpoint once per process).
func TestMain(m *testing.M) {
	code := m.Run()
	s3test.StopShared()
	os.Exit(code)
}
