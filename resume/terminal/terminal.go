// Package terminal opens a restored session's commands in a new terminal window, and writes
// them as one shell line for a person to copy. It is a pure-Go leaf: the CLI and the tray both
// use it.
//
// Commands arrive as argv lists, never as shell text: the values in them (session ids, file
// paths) come from the archive, which is untrusted, so they are passed to the program as
// arguments, or quoted word by word where a shell cannot be avoided.
package terminal

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
)

// ErrNoTerminal means no terminal window could be opened here; show the command instead.
var ErrNoTerminal = errors.New("no terminal emulator found")

// UserUmask is the umask the user's own programs get: the one pond started with, before it made
// its own private (main sets it). The terminal, and the agent in it, run with it, so that files
// the agent writes in a project are the user's usual mode, not Pond's 0600. Negative: keep the
// process's.
var UserUmask = -1

// Open runs argv, one command after another, in dir in a new terminal window and returns the
// terminal it used. It does not wait for the agent: the window is the user's from then on.
func Open(argv [][]string, dir string, getenv func(string) string) (string, error) {
	if len(argv) == 0 {
		return "", errors.New("terminal: nothing to run")
	}
	for _, t := range terminals(getenv) {
		path, err := exec.LookPath(t.name)
		if err != nil {
			continue
		}
		name, args := path, t.args(dir, program(argv, dir))
		if UserUmask >= 0 && runtime.GOOS != "windows" {
			// The umask is the process's; sh sets the user's for the terminal it then becomes.
			name, args = "/bin/sh", append([]string{"-c", fmt.Sprintf(`umask %04o && exec "$@"`, UserUmask), "sh", path}, args...)
		}
		cmd := exec.Command(name, args...)
		cmd.Dir = dir // the terminals that start their shell here need no flag
		if err := cmd.Start(); err != nil {
			return "", err
		}
		go cmd.Wait() // reap it; the window lives on its own
		return t.name, nil
	}
	return "", ErrNoTerminal
}

// program is what the terminal runs: the one command as it is, or several through sh with
// every word quoted (the window can run only one program).
func program(argv [][]string, dir string) []string {
	if len(argv) == 1 {
		return argv[0]
	}
	return []string{"sh", "-c", join(argv)}
}

// terminal is a terminal emulator and how it runs a program in a folder.
type terminal struct {
	name string
	args func(dir string, program []string) []string
}

// ShellLine is argv run in dir as one POSIX shell line for a person to copy: "cd <dir> && a b
// && c d", every word quoted where it needs to be, so no value can run as code.
func ShellLine(dir string, argv [][]string) string {
	return "cd " + Quote(dir) + " && " + join(argv)
}

func join(argv [][]string) string {
	steps := make([]string, len(argv))
	for i, a := range argv {
		words := make([]string, len(a))
		for j, w := range a {
			words[j] = Quote(w)
		}
		steps[i] = strings.Join(words, " ")
	}
	return strings.Join(steps, " && ")
}

// Quote quotes s for a POSIX shell when it needs it.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
