package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesWithoutLeftovers(t *testing.T) {
	for name, write := range map[string]func(string, []byte, os.FileMode) error{"Write": Write, "WriteVolatile": WriteVolatile} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "sub", "state.json")
			for _, content := range []string{"first", "second, longer"} {
				if err := write(path, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(path)
				if err != nil || string(got) != content {
					t.Fatalf("read back %q, %v; want %q", got, err, content)
				}
			}
			if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", st.Mode().Perm())
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Errorf("directory holds %d entries, want only the file (no temporaries)", len(entries))
			}
		})
	}
}

func TestCreateRefusesOrReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "export.jsonl")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(path, 0o600, false); !errors.Is(err, ErrExists) {
		t.Fatalf("Create over an existing file: got %v, want ErrExists", err)
	}

	// A file that appears while the export runs is not replaced either.
	gone := filepath.Join(dir, "later.jsonl")
	f, err := Create(gone, 0o600, false)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("new"))
	if err := os.WriteFile(gone, []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); !errors.Is(err, ErrExists) {
		t.Fatalf("Commit over a file made meanwhile: got %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(gone); string(b) != "theirs" {
		t.Errorf("file made meanwhile holds %q, want it untouched", b)
	}

	f, err = Create(path, 0o600, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("new")); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("replaced file holds %q, want %q", b, "new")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}

	// Closed without Commit: nothing is left behind.
	f, err = Create(filepath.Join(dir, "abandoned.jsonl"), 0o600, false)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half"))
	f.Close()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		names := []string{}
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only export.jsonl and later.jsonl", names)
	}
}
