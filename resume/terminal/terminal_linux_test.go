package terminal

import (
	"context"
	"errors"
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

// fakeTerminal writes a terminal that records its PATH, its folder and its argv, one a line.
func fakeTerminal(t *testing.T) (fake, record string) {
	t.Helper()
	record = filepath.Join(t.TempDir(), "record")
	fake = filepath.Join(t.TempDir(), "fake-term")
	script := "#!/bin/sh\n{ printf '%s\\n' \"$PATH\"; pwd; for a in \"$@\"; do printf '%s\\n' \"$a\"; done; } > " + record + ".tmp && mv " + record + ".tmp " + record + "\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return fake, record
}

func readRecord(t *testing.T, record string) []string {
	t.Helper()
	for i := 0; i < 3000; i++ { // the terminal runs on its own; wait (up to 30 s) for its record
		if b, err := os.ReadFile(record); err == nil {
			return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the fake terminal wrote no record")
	return nil
}

// TestOpenWithTemplate: the settings' own terminal command gets the folder and the program's
// words as separate arguments (no shell reads the template), and the environment given.
func TestOpenWithTemplate(t *testing.T) {
	fake, record := fakeTerminal(t)
	work := t.TempDir()
	getenv := func(k string) string { return map[string]string{"DISPLAY": ":99"}[k] }
	o := Options{Template: fake + " --cwd={dir} --title Pond -- {cmd}", Env: []string{"PATH=/opt/agents:/usr/bin:/bin"}}
	used, err := OpenWith(o, [][]string{{"codex", "resume", hostile}}, work, getenv)
	if err != nil || used != fake {
		t.Fatalf("OpenWith: %q, %v", used, err)
	}
	got := readRecord(t, record)
	want := []string{"/opt/agents:/usr/bin:/bin", work, "--cwd=" + work, "--title", "Pond", "--", "codex", "resume", hostile}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("template terminal (-want +got):\n%s", diff)
	}

	// A terminal chosen by name is the only one tried.
	if _, err := OpenWith(Options{Name: "no-such-terminal"}, [][]string{{"codex"}}, work, getenv); !errors.Is(err, ErrNoTerminal) {
		t.Errorf("a chosen terminal that is not installed: %v, want ErrNoTerminal", err)
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		tmpl string
		want []string
		bad  bool
	}{
		{"kitty --directory {dir} {cmd}", []string{"kitty", "--directory", "/w d", "a", "b c"}, false},
		{"wezterm start --cwd {dir}", []string{"wezterm", "start", "--cwd", "/w d", "a", "b c"}, false},
		{"xterm -T x{dir}y -e {cmd} --end", []string{"xterm", "-T", "x/w dy", "-e", "a", "b c", "--end"}, false},
		{"  ", nil, true},
		{"{cmd}", nil, true},
	}
	for _, tt := range tests {
		got, err := Expand(tt.tmpl, "/w d", []string{"a", "b c"})
		if (err != nil) != tt.bad {
			t.Errorf("%q: error %v, want error %v", tt.tmpl, err, tt.bad)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.tmpl, diff)
		}
	}
}

// TestResolverAsksTheLoginShell: an agent installed where only the login profile's PATH
// points is found through a real login shell, asked once, and the user's override wins.
func TestResolverAsksTheLoginShell(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	agents := filepath.Join(home, "agents")
	os.MkdirAll(agents, 0o755)
	claude := filepath.Join(agents, "claude")
	os.WriteFile(claude, []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(home, ".profile"), []byte("PATH=\"$HOME/agents:$PATH\"\necho a profile that talks\n"), 0o644)
	override := map[string]string{}
	asked := 0
	r := &Resolver{
		Getenv:   func(k string) string { return map[string]string{"SHELL": "/bin/sh", "PATH": "/usr/bin:/bin"}[k] },
		Override: func(a string) string { return override[a] },
	}
	r.Shell = func(ctx context.Context, shell string) (string, error) { asked++; return LoginPATH(ctx, shell) }
	got, err := r.Look("claude-code", "claude")
	if err != nil || got != claude {
		t.Fatalf("Look: %q, %v; want %s", got, err, claude)
	}
	_, err = r.Look("codex-cli", "codex")
	var le *LookError
	if !errors.Is(err, ErrNotInstalled) || !errors.As(err, &le) || !strings.Contains(err.Error(), "Settings") {
		t.Errorf("missing agent: %v", err)
	}
	if asked != 1 {
		t.Errorf("the login shell was asked %d times, want once", asked)
	}
	if p := r.PATH(); !strings.HasPrefix(p, "/usr/bin:/bin:") || !strings.Contains(p, agents) {
		t.Errorf("PATH for agents: %q", p)
	}
	override["codex-cli"] = claude
	if got, err := r.Look("codex-cli", "codex"); err != nil || got != claude {
		t.Errorf("override: %q, %v", got, err)
	}
	override["codex-cli"] = filepath.Join(home, "nothing")
	if _, err := r.Look("codex-cli", "codex"); !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "in the settings") {
		t.Errorf("a broken override: %v", err)
	}
}
