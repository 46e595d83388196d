// Package atomicfile writes small files so that a reader sees the old content or the new one,
// never a mix, and a crash leaves no partial file: write a temporary file in the same
// directory, sync it, rename it over the target, sync the directory.
package atomicfile

import (
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
