package terminal

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// hostile is a session id that runs code when pasted into a shell unquoted.
const hostile = "x;touch${IFS}PWNED"

func TestShellLineQuotesEveryWord(t *testing.T) {
	tests := []struct {
		name string
		dir  string
		argv [][]string
		want string
	}{
		{"plain", "/home/u/proj", [][]string{{"claude", "--resume", "0b1c-2d"}}, "cd /home/u/proj && claude --resume 0b1c-2d"},
		{"spaces", "/home/u/my proj", [][]string{{"pi", "--session", "/h/.pi/a b.jsonl"}}, "cd '/home/u/my proj' && pi --session '/h/.pi/a b.jsonl'"},
		{"hostile_id", "/p", [][]string{{"codex", "resume", hostile}}, `cd /p && codex resume 'x;touch${IFS}PWNED'`},
		{"quote", "/p", [][]string{{"gemini", "--resume", "it's"}}, `cd /p && gemini --resume 'it'\''s'`},
		{"steps", "/p", [][]string{{"opencode", "import", "/i/a.json"}, {"opencode", "-s", "ses_1"}}, "cd /p && opencode import /i/a.json && opencode -s ses_1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShellLine(tt.dir, tt.argv); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// A shell that runs the line runs the commands as written: the hostile id stays an argument.
func TestShellLineRunsNoValue(t *testing.T) {
	dir := t.TempDir()
	line := ShellLine(dir, [][]string{{"printf", "%s\n", hostile}, {"printf", "%s\n", "two words"}})
	out, err := exec.Command("sh", "-c", line).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	if got, want := string(out), hostile+"\ntwo words\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Error("the id ran as a command")
	}
}

// TestOpenRunsArgv opens a fake terminal ($TERMINAL, first in the list) that records the
// program it is asked to run and the folder it starts in.
func TestOpenRunsArgv(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Linux terminal list")
	}
	bin := t.TempDir()
	record := filepath.Join(t.TempDir(), "record")
	fake := filepath.Join(bin, "fake-term")
	script := "#!/bin/sh\n{ pwd; for a in \"$@\"; do printf '%s\\n' \"$a\"; done; } > " + record + ".tmp && mv " + record + ".tmp " + record + "\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DISPLAY": ":99", "TERMINAL": fake}
	getenv := func(k string) string { return env[k] }
	work := t.TempDir()

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
			if lines[0] != work {
				t.Errorf("terminal started in %s, want %s", lines[0], work)
			}
			if diff := cmp.Diff(tt.want, lines[1:]); diff != "" {
				t.Errorf("terminal argv (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpenWithoutADisplay(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Linux terminal list")
	}
	if _, err := Open([][]string{{"true"}}, t.TempDir(), func(string) string { return "" }); err != ErrNoTerminal {
		t.Errorf("got %v, want ErrNoTerminal", err)
	}
}
