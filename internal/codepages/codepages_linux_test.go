package codepages

import (
	"bufio"
	"crypto/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// residentKiB is how much of the mappings of the file at path is in memory (smaps' Rss).
func residentKiB(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	total, ours := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 0 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			ours = len(fields) >= 6 && fields[5] == path
			continue
		}
		if ours && len(fields) >= 2 && fields[0] == "Rss:" {
			n, _ := strconv.Atoi(fields[1])
			total += n
		}
	}
	return total
}

// mapFile writes size random bytes to a new file, flushes them (the kernel does not page out
// a dirty page), and maps the file read-only with every page touched, as a program's
// constants are once used. The test's own binary is not used for this: the code running
// between the advice and the measurement faults its pages straight back, a whole large folio
// at a time where the file system caches in large folios (ext4 on Linux 6.x).
func mapFile(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err == nil && fs.Type == unix.TMPFS_MAGIC {
		t.Skip("the temporary folder is tmpfs: its pages can only go to swap")
	}
	path := filepath.Join(dir, "constants")
	data := make([]byte, size)
	if _, err := rand.Read(data); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Munmap(mem) })
	for i := 0; i < size; i += os.Getpagesize() {
		touched += mem[i]
	}
	return path
}

// touched keeps mapFile's reads from being optimised away.
var touched byte

// TestReleaseDropsAMappedFilesPages checks that the pages of a read-only mapping leave memory.
func TestReleaseDropsAMappedFilesPages(t *testing.T) {
	const size = 8 << 20
	path := mapFile(t, size)
	before := residentKiB(t, path)
	if before < size>>10/2 {
		t.Fatalf("only %d KiB of the %d KiB mapping resident after touching it: the check proves nothing", before, size>>10)
	}
	advised, err := releaseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	after := residentKiB(t, path)
	t.Logf("advised %d KiB; resident %d KiB before, %d KiB after", advised>>10, before, after)
	if advised != size || after*10 > before {
		t.Errorf("resident %d KiB before, %d KiB after advising %d KiB; want under a tenth", before, after, advised>>10)
	}
}

// TestReleaseFindsTheProgram checks that Release advises the running binary's read-only
// mappings (its code and constants).
func TestReleaseFindsTheProgram(t *testing.T) {
	advised, err := Release()
	if err != nil {
		t.Fatal(err)
	}
	if advised < 1<<20 {
		t.Fatalf("advised %d bytes of this test binary; its code alone is over a megabyte", advised)
	}
}
