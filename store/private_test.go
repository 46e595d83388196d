//go:build unix

package store

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestArchiveIsPrivate: whoever made the data and state directories first, and whatever the
// umask, the store's directories end 0700 and its files 0600, Lance's included (Lance creates
// them under the umask; each commit's files are narrowed when they are synced).
func TestArchiveIsPrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	// `pond model install` ran first and made the data directory under the default umask.
	for _, d := range []string{filepath.Join(dir, "data", "models"), filepath.Join(dir, "state")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := openTestStore(t, dir)
	upsert(t, s, everyKind("s1"))
	for _, tc := range []struct {
		path string
		want os.FileMode
	}{
		{"data", 0o700},
		{"data/lance", 0o700},
		{"state", 0o700},
		{"data/store.json", 0o600},
		{"data/mirror.db", 0o600},
		{"data/mirror.db-wal", 0o600},
		{"data/mirror.db-shm", 0o600},
		{"state/store.lock", 0o600},
	} {
		st, err := os.Stat(filepath.Join(dir, tc.path))
		if err != nil {
			t.Error(err)
			continue
		}
		if got := st.Mode().Perm(); got != tc.want {
			t.Errorf("%s: mode %v, want %v", tc.path, got, tc.want)
		}
	}
	n := 0
	filepath.WalkDir(filepath.Join(dir, "data", "lance"), func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			t.Error(err)
			return nil
		}
		st, err := e.Info()
		if err != nil {
			t.Error(err)
			return nil
		}
		n++
		want := fs.FileMode(0o600)
		if e.IsDir() {
			want = 0o700
		}
		if got := st.Mode().Perm(); got&^want != 0 {
			t.Errorf("%s: mode %v, want at most %v", path, got, want)
		}
		return nil
	})
	if n < 10 {
		t.Errorf("walked %d entries under data/lance, want the three tables' files", n)
	}
}
