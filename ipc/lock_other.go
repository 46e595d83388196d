//go:build !unix && !windows

package ipc

import (
	"errors"
	"os"
)

func tryLock(*os.File) (bool, error) {
	return false, errors.New("file locks are not implemented on this OS; the daemon runs on Linux, macOS and Windows")
}
