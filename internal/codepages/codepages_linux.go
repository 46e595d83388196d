package codepages

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Release asks the kernel to drop the pages of this program's read-only mappings (its code
// and constants) from memory (madvise MADV_PAGEOUT, Linux 5.4 and later). They are clean:
// the kernel reads what is used again back from the file, on first use. It returns the bytes
// of the mappings it advised.
func Release() (int64, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("codepages: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return releaseFile(exe)
}

// releaseFile advises every read-only mapping of the file at path, as /proc/self/maps names it.
func releaseFile(path string) (int64, error) {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0, fmt.Errorf("codepages: %w", err)
	}
	defer f.Close()
	var advised int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != path || len(fields[1]) < 2 || fields[1][1] == 'w' {
			continue
		}
		span := strings.SplitN(fields[0], "-", 2)
		start, err1 := strconv.ParseUint(span[0], 16, 64)
		end, err2 := strconv.ParseUint(span[1], 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_PAGEOUT); errno != 0 {
			return advised, fmt.Errorf("codepages: madvise: %w", errno)
		}
		advised += int64(end - start)
	}
	return advised, sc.Err()
}
