package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// prune runs `native.sh prune` over a cache holding the current key's folder and the given
// number of older builds (oldest first), and returns the folders left.
func prune(t *testing.T, others int) (left []string, current string) {
	t.Helper()
	cache := t.TempDir()
	env := append(os.Environ(), "POND_CACHE_DIR="+cache)
	cmd := exec.Command("bash", "native.sh", "dir")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("native.sh dir: %v", err)
	}
	current = strings.TrimSpace(string(out))
	if filepath.Dir(current) != filepath.Join(cache, "native") {
		t.Fatalf("native.sh dir = %s, not under the cache %s", current, cache)
	}
	prefix := strings.Split(filepath.Base(current), "-")[0] // the lancedb-go version
	suffix := strings.TrimPrefix(filepath.Base(current), prefix+"-")
	suffix = suffix[strings.Index(suffix, "-"):] // -<os>-<arch>
	old := time.Now().Add(-time.Hour)
	for i := range others {
		d := filepath.Join(cache, "native", prefix+"-0ther"+string(rune('a'+i))+suffix)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		at := old.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(d, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(current, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("bash", "native.sh", "prune")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("native.sh prune with %d other builds: %v\n%s", others, err, out)
	}
	es, err := os.ReadDir(filepath.Join(cache, "native"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		left = append(left, filepath.Join(cache, "native", e.Name()))
	}
	return left, current
}

// TestPruneOnAFreshCache: the first build on a machine has no other to remove, and set-up
// must go on (it once stopped there, silently, right after a 68-minute build).
func TestPruneOnAFreshCache(t *testing.T) {
	left, current := prune(t, 0)
	if !slices.Equal(left, []string{current}) {
		t.Errorf("left %v, want only the current build %s", left, current)
	}
}

// TestPruneKeepsTheTwoMostRecentOthers: of four older builds, the two newest stay.
func TestPruneKeepsTheTwoMostRecentOthers(t *testing.T) {
	left, current := prune(t, 4)
	if len(left) != 3 || !slices.Contains(left, current) {
		t.Fatalf("left %v, want the current build and two others", left)
	}
	for _, gone := range []string{"0thera", "0therb"} {
		for _, l := range left {
			if strings.Contains(filepath.Base(l), gone) {
				t.Errorf("%s, one of the two oldest, is still there", l)
			}
		}
	}
}
