// Package terminal opens a command line in a new terminal window, for the CLI's `pond resume
// --launch` and the desktop app's Resume alike.
package terminal

import (
	"errors"
	"os/exec"
)

// ErrNoTerminal means no terminal window could be opened here; print the command instead.
var ErrNoTerminal = errors.New("no terminal emulator found")

// Launch opens command (a shell command line) in a new terminal window and returns the
// terminal it used. It does not wait for the agent: the window is the user's from then on.
func Launch(command string, getenv func(string) string) (string, error) {
	for _, t := range terminals(getenv) {
		path, err := exec.LookPath(t.name)
		if err != nil {
			continue
		}
		cmd := exec.Command(path, t.args(command)...)
		if err := cmd.Start(); err != nil {
			return "", err
		}
		go cmd.Wait() // reap it; the window lives on its own
		return t.name, nil
	}
	return "", ErrNoTerminal
}

// terminal is a terminal emulator and how it runs a command line.
type terminal struct {
	name string
	args func(command string) []string
}
