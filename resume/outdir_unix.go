//go:build unix

package resume

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// checkOutDir refuses an --out-dir reached through a symbolic link or a folder another user
// owns. Under a folder others may write (/tmp), another user can create either before the
// restore runs, and the restore would then write where they chose. Folders of root and of the
// user are trusted, and so are root's links at the top of the file system (macOS's /tmp and
// /var); what does not exist yet is created by the restore, 0700. writeBatch checks again
// after creating it.
func checkOutDir(dir string) error {
	uid := os.Getuid()
	p := string(filepath.Separator)
	for _, el := range strings.Split(strings.TrimPrefix(filepath.Clean(dir), p), string(filepath.Separator)) {
		if el == "" {
			continue
		}
		p = filepath.Join(p, el)
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("check %s: %w", p, err)
		}
		owner := -1
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			owner = int(st.Uid)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			if owner == 0 && filepath.Dir(p) == string(filepath.Separator) {
				continue // the system's own, e.g. macOS's /tmp -> private/tmp
			}
			target, _ := os.Readlink(p)
			return &unsafeError{p, fmt.Sprintf("is a symbolic link (to %s), and Pond follows no link in --out-dir: pass the folder it leads to", target)}
		}
		if owner != uid && owner != 0 {
			return &unsafeError{p, fmt.Sprintf("belongs to another user (uid %d), who could redirect the restore: pass a folder of your own", owner)}
		}
		if !info.IsDir() {
			return &unsafeError{p, "is not a folder"}
		}
	}
	return nil
}
