//go:build unix

package paths

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// PrivateUmask sets the process's umask to 077, so that every file and directory it creates,
// whatever mode the code that creates it asks for (Lance's files are 0644, SQLite's follow the
// umask), is readable by its user only. It returns the previous umask. The pond binary calls it
// first thing: nothing it writes is meant for other users (restores write 0600 files into the
// agent's folder, as the agents' own sessions are private too).
func PrivateUmask() int { return syscall.Umask(0o077) }

// FindWide walks root and returns up to limit paths (files or directories) that other users may
// read, write or enter (a group or other bit set), and how many there are in all. Symbolic links
// are not followed and have no mode of their own; a missing root holds nothing.
func FindWide(root string, limit int) (wide []string, total int, err error) {
	err = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if path == root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if e.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		st, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while we walked
		}
		if err != nil {
			return err
		}
		if st.Mode().Perm()&0o077 != 0 {
			total++
			if len(wide) < limit {
				wide = append(wide, path)
			}
		}
		return nil
	})
	if err != nil {
		return wide, total, fmt.Errorf("paths: %w", err)
	}
	return wide, total, nil
}

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
