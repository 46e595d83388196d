package terminal

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
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

func TestOpenWithoutADisplay(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Linux terminal list")
	}
	if _, err := Open([][]string{{"true"}}, t.TempDir(), func(string) string { return "" }); err != ErrNoTerminal {
		t.Errorf("got %v, want ErrNoTerminal", err)
	}
}
