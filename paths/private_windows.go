package paths

import (
	"fmt"
	"os"
)

// MkdirPrivate creates dir and the parents it lacks. On Windows a directory under the user's
// profile inherits the profile's access list, which already keeps other users out.
func MkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return fmt.Errorf("paths: %w", err)
	}
	return nil
}

// ChmodPrivate does nothing on Windows, where Unix modes mean nothing.
func ChmodPrivate(path string) error { return nil }
