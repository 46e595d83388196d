//go:build !linux

package resume_test

import (
	"errors"
	"os"
	"runtime"
	"syscall"
)

// openTerminal: Cline CLI's check drives its terminal interface through a Linux
// pseudo-terminal; elsewhere it is not run.
func openTerminal(cols, rows uint16) (master, slave *os.File, err error) {
	return nil, nil, errors.New("no pseudo-terminal for the check on " + runtime.GOOS)
}

func controllingTerminal() *syscall.SysProcAttr { return nil }
