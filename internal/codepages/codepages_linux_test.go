package codepages

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// residentKiB is how much of this program's read-only mappings is in memory (smaps' Rss).
func residentKiB(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
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
			ours = len(fields) >= 6 && fields[5] == exe && fields[1][1] != 'w'
			continue
		}
		if ours && len(fields) >= 2 && fields[0] == "Rss:" {
			n, _ := strconv.Atoi(fields[1])
			total += n
		}
	}
	return total
}

// TestReleaseDropsTheProgramsPages checks that the test binary's own code and constants
// leave memory: what is resident after Release is a fraction of what was before.
func TestReleaseDropsTheProgramsPages(t *testing.T) {
	before := residentKiB(t)
	if before == 0 {
		t.Fatal("no resident page of the program's read-only mappings found: the check proves nothing")
	}
	advised, err := Release()
	if err != nil {
		t.Fatal(err)
	}
	after := residentKiB(t)
	t.Logf("advised %d KiB; resident %d KiB before, %d KiB after", advised>>10, before, after)
	if advised == 0 || after*2 > before {
		t.Errorf("resident %d KiB before, %d KiB after advising %d KiB; want under half", before, after, advised>>10)
	}
}
