package terminal

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestOpenRunsArgv opens a fake terminal ($TERMINAL, first in the list) that records the
// program it is asked to run and the folder it starts in.
func TestOpenRunsArgv(t *testing.T) {
	bin := t.TempDir()
	record := filepath.Join(t.TempDir(), "record")
	fake := filepath.Join(bin, "fake-term")
	script := "#!/bin/sh\n{ umask; pwd; for a in \"$@\"; do printf '%s\\n' \"$a\"; done; } > " + record + ".tmp && mv " + record + ".tmp " + record + "\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DISPLAY": ":99", "TERMINAL": fake}
	getenv := func(k string) string { return env[k] }
	work := t.TempDir()
	// Pond runs with a private umask; the terminal gets the user's.
	defer syscall.Umask(syscall.Umask(0o077))
	UserUmask = 0o022
	defer func() { UserUmask = -1 }()

	tests := []struct {
		name string
		argv [][]string
		want []string
	}{
		{"one_command", [][]string{{"codex", "resume", hostile}}, []string{"-e", "codex", "resume", hostile}},
		{"steps", [][]string{{"opencode", "import", "/i/a b.json"}, {"opencode", "-s", hostile}},
			[]string{"-e", "sh", "-c", `opencode import '/i/a b.json' && opencode -s 'x;touch${IFS}PWNED'`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(record)
			used, err := Open(tt.argv, work, getenv)
			if err != nil || used != fake {
				t.Fatalf("Open: %q, %v", used, err)
			}
			var b []byte
			for i := 0; i < 3000; i++ { // the terminal runs on its own; wait (up to 30 s) for its record
				if b, err = os.ReadFile(record); err == nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err != nil {
				t.Fatal("the fake terminal wrote no record")
			}
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			if lines[0] != "0022" {
				t.Errorf("terminal's umask %s, want the user's 0022", lines[0])
			}
			if lines[1] != work {
				t.Errorf("terminal started in %s, want %s", lines[1], work)
			}
			if diff := cmp.Diff(tt.want, lines[2:]); diff != "" {
				t.Errorf("terminal argv (-want +got):\n%s", diff)
			}
		})
	}
}
