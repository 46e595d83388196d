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
	return OpenWith(Options{}, argv, dir, getenv)
}

// Options are the user's terminal settings (the tray's Settings window).
type Options struct {
	// Template, when set, is the user's own terminal command: words split at spaces, where
	// {dir} stands for the folder and the word {cmd} for the program's words (appended at the
	// end when absent), e.g. "kitty --directory {dir} {cmd}". No shell reads it, so a value from
	// the archive stays one argument.
	Template string
	// Name, when set, is the terminal to use from Names (tried alone).
	Name string
	// Env is the environment the terminal gets (nil: the process's), e.g. with the PATH of the
	// user's login shell for a tray started at login.
	Env []string
}

// OpenWith opens argv in dir as Open does, in the terminal the options choose.
func OpenWith(o Options, argv [][]string, dir string, getenv func(string) string) (string, error) {
	if len(argv) == 0 {
		return "", errors.New("terminal: nothing to run")
	}
	if strings.TrimSpace(o.Template) != "" {
		args, err := Expand(o.Template, dir, program(argv, dir))
		if err != nil {
			return "", err
		}
		path, err := lookPath(args[0], o.Env)
		if err != nil {
			return "", fmt.Errorf("terminal: %s from the settings' template: %w", args[0], err)
		}
		return args[0], start(path, args[1:], dir, o.Env)
	}
	for _, t := range terminals(getenv) {
		if o.Name != "" && t.name != o.Name {
			continue
		}
		path, err := lookPath(t.name, o.Env)
		if err != nil {
			continue
		}
		return t.name, start(path, t.args(dir, program(argv, dir)), dir, o.Env)
	}
	if o.Name != "" {
		return "", fmt.Errorf("%w: %s (chosen in the settings) is not installed here", ErrNoTerminal, o.Name)
	}
	return "", ErrNoTerminal
}

// Names are the terminals tried here, in order (none without a display).
func Names(getenv func(string) string) []string {
	var out []string
	for _, t := range terminals(getenv) {
		out = append(out, t.name)
	}
	return out
}

// Expand is a template's argv for program run in dir (see Options.Template).
func Expand(template, dir string, program []string) ([]string, error) {
	words := strings.Fields(template)
	if len(words) == 0 || strings.Contains(words[0], "{") {
		return nil, errors.New("terminal: a template starts with the terminal's program, e.g. kitty --directory {dir} {cmd}")
	}
	var out []string
	placed := false
	for _, w := range words {
		if w == "{cmd}" {
			out = append(out, program...)
			placed = true
			continue
		}
		out = append(out, strings.ReplaceAll(w, "{dir}", dir))
	}
	if !placed {
		out = append(out, program...)
	}
	return out, nil
}

// lookPath finds name on env's PATH (the process's when env has none).
func lookPath(name string, env []string) (string, error) {
	if strings.ContainsRune(name, '/') {
		return exec.LookPath(name)
	}
	for i := len(env) - 1; i >= 0; i-- {
		if p, ok := strings.CutPrefix(env[i], "PATH="); ok {
			return LookIn(name, p)
		}
	}
	return exec.LookPath(name)
}

func start(path string, args []string, dir string, env []string) error {
	name := path
	if UserUmask >= 0 && runtime.GOOS != "windows" {
		// The umask is the process's; sh sets the user's for the terminal it then becomes.
		name, args = "/bin/sh", append([]string{"-c", fmt.Sprintf(`umask %04o && exec "$@"`, UserUmask), "sh", path}, args...)
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = dir // the terminals that start their shell here need no flag
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reap it; the window lives on its own
	return nil
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
