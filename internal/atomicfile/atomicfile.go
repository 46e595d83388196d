// Package atomicfile writes small files so that a reader sees the old content or the new one,
// never a mix, and a crash leaves no partial file: write a temporary file in the same
// directory, sync it, rename it over the target, sync the directory.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, creating its directory (0700) when missing, and makes the
// replacement durable before it returns.
func Write(path string, data []byte, perm os.FileMode) error { return write(path, data, perm, true) }

// WriteVolatile replaces path with data as Write does, for readers, but does not wait for the
// disk: after a crash the file may hold its old content. For files that only describe the
// running process, such as the store lock's holder, whose two syncs cost a write batch
// milliseconds.
func WriteVolatile(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false)
}

func write(path string, data []byte, perm os.FileMode, durable bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if durable {
		if err := tmp.Sync(); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if durable {
		syncDir(dir)
	}
	return nil
}

// syncDir makes a rename in dir durable. Some systems cannot sync a directory (Windows); the
// rename is then as durable as that system makes it, so a failure here is not an error.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// ErrExists is returned by Create and File.Commit when the target exists and may not be
// replaced.
var ErrExists = errors.New("atomicfile: file exists")

// File is a file written under a temporary name in its target's directory: Commit makes it the
// target, durably; Close before Commit throws it away. For files too large to hold in memory
// (exports).
type File struct {
	tmp     *os.File
	path    string
	replace bool
	done    bool
}

// Create starts writing path (mode perm). Unless replace is set, an existing path is refused
// now and again at Commit, which never replaces a file created meanwhile.
func Create(path string, perm os.FileMode, replace bool) (*File, error) {
	if !replace {
		if _, err := os.Lstat(path); err == nil {
			return nil, fmt.Errorf("%w: %s", ErrExists, path)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return nil, err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, err
	}
	return &File{tmp: tmp, path: path, replace: replace}, nil
}

// Write writes to the temporary file.
func (f *File) Write(p []byte) (int, error) { return f.tmp.Write(p) }

// Commit syncs the file, gives it its final name and syncs the directory, so that after a crash
// the target is either absent (or its old content) or complete.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: file already committed or closed")
	}
	f.done = true
	defer os.Remove(f.tmp.Name())
	if err := f.tmp.Sync(); err != nil {
		f.tmp.Close()
		return err
	}
	if err := f.tmp.Close(); err != nil {
		return err
	}
	if !f.replace {
		err := os.Link(f.tmp.Name(), f.path) // a link never replaces
		if err == nil {
			syncDir(filepath.Dir(f.path))
			return nil
		}
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%w: %s", ErrExists, f.path)
		}
		// A file system without hard links (FAT, exFAT on a USB stick): check, then rename.
		if _, err := os.Lstat(f.path); err == nil {
			return fmt.Errorf("%w: %s", ErrExists, f.path)
		}
	}
	if err := os.Rename(f.tmp.Name(), f.path); err != nil {
		return err
	}
	syncDir(filepath.Dir(f.path))
	return nil
}

// Close removes the temporary file unless Commit ran; it is safe to call after Commit.
func (f *File) Close() error {
	if f.done {
		return nil
	}
	f.done = true
	f.tmp.Close()
	return os.Remove(f.tmp.Name())
}
