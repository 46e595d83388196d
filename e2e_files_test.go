//go:build unix

package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestExportToFile: `pond export -o` refuses a file that exists unless --force is given, and
// then replaces it whole.
func TestExportToFile(t *testing.T) {
	bin := pondBinary(t)
	_, env := isolatedHome(t)
	if out, code := run(t, bin, env, "sync"); code != 0 {
		t.Fatalf("sync exited %d: %s", code, out)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "backup.jsonl")
	if err := os.WriteFile(path, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, code := runErr(t, bin, env, "export", "-o", path)
	if code != 2 || !strings.Contains(out, "--force") {
		t.Fatalf("export over an existing file exited %d, want 2 with advice naming --force:\n%s", code, out)
	}
	if b, _ := os.ReadFile(path); string(b) != "precious\n" {
		t.Fatalf("refused export changed the file: %q", b)
	}
	if _, out, code := runErr(t, bin, env, "export", "-o", path, "--force"); code != 0 {
		t.Fatalf("export --force exited %d:\n%s", code, out)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(b), `{"kind":"session"`) {
		t.Fatalf("after --force the file holds %.80q, %v; want the export", b, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("export directory holds %d entries, want only the export (no temporaries)", len(entries))
	}
}

// TestArchiveIsPrivateUnderUmask022: under the usual umask, every file a fresh archive holds
// (Lance's included) is 0600 and every directory 0700; doctor names anything wider.
func TestArchiveIsPrivateUnderUmask022(t *testing.T) {
	bin := pondBinary(t)
	old := syscall.Umask(0o022) // the pond processes inherit it
	defer syscall.Umask(old)
	home, env := isolatedHome(t)
	if out, code := run(t, bin, env, "sync"); code != 0 {
		t.Fatalf("sync exited %d: %s", code, out)
	}
	dirs := []string{".local/share/pond", ".local/state/pond", ".config/pond"}
	for _, d := range dirs {
		root := filepath.Join(home, d)
		n := 0
		err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			st, err := e.Info()
			if err != nil {
				return err
			}
			n++
			want := fs.FileMode(0o600)
			if e.IsDir() {
				want = 0o700
			}
			if st.Mode().Type()&fs.ModeSymlink == 0 && st.Mode().Perm()&^want != 0 {
				t.Errorf("%s: mode %v, want at most %v", path, st.Mode().Perm(), want)
			}
			return nil
		})
		if err != nil || n < 2 {
			t.Fatalf("walk %s: %d entries, %v", root, n, err)
		}
	}

	doctor := func() Check {
		out, _ := run(t, bin, env, "doctor", "--format", "json")
		var r Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("doctor --format json: %v\n%s", err, out)
		}
		for _, c := range r.Checks {
			if c.Name == "privacy" {
				return c
			}
		}
		t.Fatalf("doctor has no privacy check:\n%s", out)
		return Check{}
	}
	if c := doctor(); c.Warn {
		t.Fatalf("doctor warns about a fresh archive: %+v", c)
	}
	wide := filepath.Join(home, ".local/share/pond/mirror.db")
	if err := os.Chmod(wide, 0o644); err != nil {
		t.Fatal(err)
	}
	c := doctor()
	if !c.Warn || !strings.Contains(c.Detail, wide) || !strings.Contains(c.Fix, "chmod") {
		t.Fatalf("doctor after mirror.db became 0644: %+v; want a warning naming it, with the chmod that fixes it", c)
	}
}

// TestSQLExportToFile: pond sql -o never replaces a file and leaves no partial one behind.
func TestSQLExportToFile(t *testing.T) {
	bin := pondBinary(t)
	_, env := isolatedHome(t)
	if out, code := run(t, bin, env, "sync"); code != 0 {
		t.Fatalf("sync exited %d: %s", code, out)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "rows.csv")
	query := "SELECT session_id FROM sessions"
	if _, errOut, code := runErr(t, bin, env, "sql", query, "--format", "csv", "-o", path); code != 0 {
		t.Fatalf("sql -o exited %d: %s", code, errOut)
	}
	first, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(first), "session_id") {
		t.Fatalf("the export holds %.60q, %v", first, err)
	}
	if _, errOut, code := runErr(t, bin, env, "sql", query, "--format", "csv", "-o", path); code != 2 || !strings.Contains(errOut, "already exists") {
		t.Fatalf("sql -o over an existing file exited %d, want 2 saying it exists:\n%s", code, errOut)
	}
	if again, _ := os.ReadFile(path); string(again) != string(first) {
		t.Error("the refused export changed the file")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries beside the export, want none (no temporaries)", len(entries)-1)
	}
}
