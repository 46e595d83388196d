//go:build !windows

package service

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

func userSID() (string, error) {
	return "", errors.New("service: a Task Scheduler task needs Windows")
}

func hideWindow(*exec.Cmd) {}

// detachConsole has nothing to do: only Windows gives a console program a window.
func detachConsole() {}

// redirectStderr points file descriptor 2 at f, so that a panic's trace lands in the log too.
func redirectStderr(f *os.File) error {
	os.Stderr = f
	return unix.Dup2(int(f.Fd()), 2)
}

// spawnDetached starts argv in a new session with no terminal, and does not wait for it.
func spawnDetached(argv []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

func terminate(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }

func processExists(pid int) bool { return syscall.Kill(pid, 0) == nil }
