//go:build !unix

package resume

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkOutDir refuses an --out-dir reached through a symbolic link (or junction). Folders'
// owners are not checked here: Windows has no world-writable /tmp, and ACLs are not uids.
func checkOutDir(dir string) error {
	for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
		info, err := os.Lstat(p)
		if err == nil && info.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
			return &unsafeError{p, "is a link, and Pond follows no link in --out-dir: pass the folder it leads to"}
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("check %s: %w", p, err)
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}
