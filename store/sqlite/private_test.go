//go:build unix

package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestMirrorFilesArePrivate: the mirror, its log and its shared-memory file are 0600 whatever
// the umask, and files an older Pond (or SQLite, under the umask) left wider are narrowed.
func TestMirrorFilesArePrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	for _, tc := range []struct {
		name string
		left os.FileMode // mode of files already there (0: none)
	}{
		{"fresh", 0},
		{"left_readable", 0o644},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mirror.db")
			if tc.left != 0 {
				m, err := OpenMirror(context.Background(), path)
				if err != nil {
					t.Fatal(err)
				}
				m.Close()
				// Closing removed the log files; empty ones are what a crash leaves.
				os.WriteFile(path+"-wal", nil, tc.left)
				os.WriteFile(path+"-shm", nil, tc.left)
				for _, suffix := range []string{"", "-wal", "-shm"} {
					if err := os.Chmod(path+suffix, tc.left); err != nil {
						t.Fatal(err)
					}
				}
			}
			m, err := OpenMirror(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if err := m.Apply(context.Background(), &Rows{Sessions: []SessionRow{{SessionID: "s", SourceAgent: "a", CreatedAt: "2026-01-01T00:00:00.000000Z", Project: "/p", IngestSeq: 1}}}); err != nil {
				t.Fatal(err)
			}
			for _, suffix := range []string{"", "-wal", "-shm"} {
				st, err := os.Stat(path + suffix)
				if err != nil {
					t.Fatal(err)
				}
				if got := st.Mode().Perm(); got != 0o600 {
					t.Errorf("mirror.db%s: mode %v, want 0600", suffix, got)
				}
			}
		})
	}
}
