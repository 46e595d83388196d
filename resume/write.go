package resume

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/pondhq/pond/adapters/restore"
)

// existsError is a target file that already exists.
type existsError struct{ path string }

func (e *existsError) Error() string { return e.path + " already exists" }

// writeBatch writes every file or none. All final names are checked first, so a collision
// writes nothing; then each file is created under a temporary name in its own folder, synced,
// given mtime now and linked to its final name (a link fails rather than replace an existing
// file, so a name taken in the meantime is never overwritten). On any failure the files and
// folders created so far are removed again.
func writeBatch(files []restore.Planned, now time.Time) (err error) {
	for _, f := range files {
		if _, err := os.Lstat(f.Path); err == nil {
			return &existsError{f.Path}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("check %s: %w", f.Path, err)
		}
	}
	var created []string // files and folders, in creation order
	defer func() {
		if err == nil {
			return
		}
		for i := len(created) - 1; i >= 0; i-- {
			os.Remove(created[i])
		}
	}()
	for _, f := range files {
		dirs, err := mkdirs(filepath.Dir(f.Path))
		created = append(created, dirs...)
		if err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
		if err := writeOne(f.Path, f.Data, now); err != nil {
			return err
		}
		created = append(created, f.Path)
	}
	return nil
}

// mkdirs creates dir and its missing parents, returning those it created (outermost first).
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		err := os.Mkdir(missing[i], 0o700)
		if errors.Is(err, fs.ErrExist) {
			continue // made meanwhile, or a dangling link: not ours to remove
		}
		if err != nil {
			return created, err
		}
		created = append(created, missing[i])
	}
	return created, nil
}

// writeOne writes data to path, which must not exist, without a partial file ever being
// visible under path.
func writeOne(path string, data []byte, now time.Time) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pond-restore-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Agents purge sessions by mtime: a restored file is new.
	if err := os.Chtimes(tmp.Name(), now, now); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &existsError{path}
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
