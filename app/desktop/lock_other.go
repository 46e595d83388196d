//go:build !unix

package desktop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// lock takes the per-user tray lock: on Windows an open file with no sharing stands for it.
func lock(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("desktop: lock: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, ErrRunning
	}
	return func() { f.Close() }, nil
}

func detach(*exec.Cmd) {}
