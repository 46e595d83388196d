//go:build unix

package paths

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// withUmask runs the test under umask u: Pond's modes must not depend on it.
func withUmask(t *testing.T, u int) {
	old := syscall.Umask(u)
	t.Cleanup(func() { syscall.Umask(old) })
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

func TestMkdirPrivate(t *testing.T) {
	withUmask(t, 0)
	root := t.TempDir()
	existing := filepath.Join(root, "data")
	if err := os.Mkdir(existing, 0o755); err != nil { // as `pond model install` made it
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, dir string }{
		{"existing_0755", existing},
		{"new_nested", filepath.Join(root, "state", "pond")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := MkdirPrivate(tc.dir); err != nil {
				t.Fatal(err)
			}
			if got := mode(t, tc.dir); got != DirMode {
				t.Errorf("got %v, want %v", got, os.FileMode(DirMode))
			}
		})
	}
}

func TestChmodPrivate(t *testing.T) {
	withUmask(t, 0)
	dir := t.TempDir()
	for _, tc := range []struct {
		name       string
		have, want os.FileMode
	}{
		{"world_writable", 0o666, 0o600},
		{"readable", 0o644, 0o600},
		{"narrower_kept", 0o400, 0o400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, nil, tc.have); err != nil {
				t.Fatal(err)
			}
			if err := ChmodPrivate(path); err != nil {
				t.Fatal(err)
			}
			if got := mode(t, path); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	if err := ChmodPrivate(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("missing file: got %v, want nil", err)
	}
}

func TestFindWide(t *testing.T) {
	withUmask(t, 0)
	root := t.TempDir()
	if err := os.Chmod(root, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path string
		mode os.FileMode
		dir  bool
	}{
		{"lance", 0o755, true},
		{"lance/data.lance", 0o644, false},
		{"lance/private", 0o600, false},
		{"state", 0o700, true},
		{"state/cursor.json", 0o640, false},
	} {
		p := filepath.Join(root, f.path)
		var err error
		if f.dir {
			err = os.Mkdir(p, f.mode)
		} else {
			err = os.WriteFile(p, nil, f.mode)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	wide, total, err := FindWide(root, 2)
	if err != nil {
		t.Fatal(err)
	}
	if total != 3 || len(wide) != 2 || wide[0] != filepath.Join(root, "lance") {
		t.Errorf("got %v of %d, want the first 2 of 3 (lance, lance/data.lance, state/cursor.json)", wide, total)
	}
	if wide, total, err := FindWide(filepath.Join(root, "missing"), 5); err != nil || total != 0 || len(wide) != 0 {
		t.Errorf("missing root: got %v, %d, %v; want nothing", wide, total, err)
	}
}
