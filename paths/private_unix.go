//go:build unix

package paths

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// MkdirPrivate creates dir, and the parents it lacks, with mode 0700, and narrows dir itself
// to 0700 when it already exists with a wider mode: a directory another command created first
// (0755 under the usual umask) would leave the archive readable by every local user. A dir that
// belongs to another user is refused, since its owner can read whatever is put in it.
func MkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return fmt.Errorf("paths: %w", err)
	}
	return narrow(dir, DirMode)
}

// ChmodPrivate narrows the file at path to 0600 when it is wider; a missing file is left alone.
func ChmodPrivate(path string) error {
	err := narrow(path, FileMode)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func narrow(path string, mode fs.FileMode) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("paths: %w", err)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("paths: %s belongs to another user (uid %d), who could read what Pond keeps there: choose a directory of your own", path, sys.Uid)
	}
	if st.Mode().Perm()&^mode == 0 {
		return nil
	}
	if err := os.Chmod(path, st.Mode().Perm()&mode); err != nil {
		return fmt.Errorf("paths: %w", err)
	}
	return nil
}
