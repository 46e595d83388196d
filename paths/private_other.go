//go:build !unix && !windows

package paths

import (
	"fmt"
	"os"
)

// MkdirPrivate creates dir and the parents it lacks, 0700 where modes mean something.
func MkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return fmt.Errorf("paths: %w", err)
	}
	return nil
}

// ChmodPrivate does nothing on systems without Unix modes.
func ChmodPrivate(path string) error { return nil }
