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

// PrivateUmask does nothing where there is no umask; it returns 0.
func PrivateUmask() int { return 0 }

// FindWide finds nothing where modes do not say who may read a file.
func FindWide(root string, limit int) (wide []string, total int, err error) { return nil, 0, nil }
