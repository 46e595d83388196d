package sqlite

import (
	"os"
	"path/filepath"
	"strings"
)

// tempMeasurable says whether tempBytes can see temporary files: SQLite unlinks them as it
// opens them, and only Linux names a process's open files (/proc/self/fd), deleted ones too.
const tempMeasurable = true

// tempBytes sums the sizes of the files this process holds open under dir.
func tempBytes(dir string) int64 {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	prefix := dir + string(filepath.Separator)
	var n int64
	for _, fd := range fds {
		p := filepath.Join("/proc/self/fd", fd.Name())
		target, err := os.Readlink(p)
		if err != nil || !strings.HasPrefix(target, prefix) {
			continue
		}
		if st, err := os.Stat(p); err == nil {
			n += st.Size()
		}
	}
	return n
}
