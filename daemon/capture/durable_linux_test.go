package capture

import (
	"bufio"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pondhq/pond/adapters/claudecode"
	"github.com/pondhq/pond/store"
)

// straceHelperEnv names the directory the helper sync runs in; set only for the process that
// TestCursorsFollowDurableData runs under strace.
const straceHelperEnv = "POND_TEST_STRACE_SYNC_DIR"

// TestCursorsFollowDurableData runs two real syncs under strace and checks, for the second,
// that every file Lance added and every directory that gained one was fsynced before the
// adapter's cursor file was renamed into place: a cursor never claims rows a power loss could
// take back.
func TestCursorsFollowDurableData(t *testing.T) {
	if os.Getenv(straceHelperEnv) != "" {
		t.Skip("inside the traced helper")
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed (scripts/apt.sh installs it): the order of syncs and renames is not checked")
	}
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.txt")
	cmd := exec.Command(strace, "-f", "-qq", "-y", "-o", trace,
		"-e", "trace=openat,fsync,fdatasync,rename,renameat,renameat2,link,linkat",
		os.Args[0], "-test.run=^TestTracedSyncHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), straceHelperEnv+"="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "ptrace") {
			t.Skipf("strace cannot trace here (%v): the order of syncs and renames is not checked\n%s", err, out)
		}
		t.Fatalf("traced sync: %v\n%s", err, out)
	}

	before := map[string]bool{}
	b, err := os.ReadFile(filepath.Join(dir, "lance-after-first-sync.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Split(string(b), "\n") {
		before[p] = true
	}
	lanceDir := filepath.Join(dir, "data", "lance")
	var added []string // files the second sync made Lance write
	filepath.WalkDir(lanceDir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() && !before[path] {
			added = append(added, path)
		}
		return nil
	})
	if len(added) < 3 {
		t.Fatalf("the second sync added %d files to Lance, want at least a data file, a manifest and a transaction", len(added))
	}

	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cursor := filepath.Join(dir, "state", "cursors", "claude-code.json")
	marker := filepath.Join(dir, "second-sync")
	fsyncRe := regexp.MustCompile(`\b(?:fsync|fdatasync)\(\d+<([^>]*)>`)
	synced := map[string]bool{}
	inSecond, renamed := false, false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, "openat(") && strings.Contains(line, `"`+marker+`"`):
			inSecond = true
		case !inSecond:
		case strings.Contains(line, "rename") && strings.Contains(line, `"`+cursor+`"`):
			renamed = true
		default:
			if m := fsyncRe.FindStringSubmatch(line); m != nil {
				synced[m[1]] = true
			}
		}
		if renamed {
			break
		}
	}
	if !inSecond || !renamed {
		t.Fatalf("trace holds no second sync (%v) or no cursor rename after it (%v)", inSecond, renamed)
	}
	dirs := map[string]bool{}
	for _, p := range added {
		if !synced[p] {
			t.Errorf("%s: not fsynced before the cursor was saved", p)
		}
		dirs[filepath.Dir(p)] = true
	}
	for d := range dirs {
		if !synced[d] {
			t.Errorf("%s gained files but was not fsynced before the cursor was saved", d)
		}
	}
}

// TestTracedSyncHelper is the process TestCursorsFollowDurableData traces: a sync of 10
// sessions, then (after opening a marker file the trace shows) a sync that adds 10 more.
func TestTracedSyncHelper(t *testing.T) {
	dir := os.Getenv(straceHelperEnv)
	if dir == "" {
		t.Skip("run by TestCursorsFollowDurableData under strace")
	}
	ctx := context.Background()
	root := filepath.Join(dir, "claude")
	claudeCorpus(t, root, 10)
	s, err := store.Open(ctx, store.Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	eng := &Engine{Store: s, Cursors: &Cursors{Dir: filepath.Join(dir, "state")}}
	targets := []Target{{Adapter: claudecode.Adapter{}, Roots: []string{root}}}
	if _, err := eng.Sync(ctx, targets, Options{}); err != nil {
		t.Fatal(err)
	}
	var files []string
	filepath.WalkDir(filepath.Join(dir, "data", "lance"), func(path string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			files = append(files, path)
		}
		return nil
	})
	if err := os.WriteFile(filepath.Join(dir, "lance-after-first-sync.txt"), []byte(strings.Join(files, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	claudeCorpus(t, root, 20)
	m, err := os.Create(filepath.Join(dir, "second-sync")) // the marker in the trace
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	rep, err := eng.Sync(ctx, targets, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Inserted.Sessions == 0 {
		t.Fatalf("second sync inserted nothing: %+v", rep.Adapters)
	}
}
