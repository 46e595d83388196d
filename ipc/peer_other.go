//go:build !linux && !darwin && !windows

package ipc

import (
	"errors"
	"io/fs"
	"net"
)

// errNoPeerCred: on systems other than Linux, macOS and Windows there is no peer check yet, so
// the daemon refuses every connection there rather than trust an unchecked peer.
var errNoPeerCred = errors.New("ipc: peer credentials are not implemented on this OS yet; the daemon runs on Linux, macOS and Windows")

// PeerUID is not available on this OS.
func PeerUID(net.Conn) (int, error) { return -1, errNoPeerCred }

func checkOwnDir(string) error { return nil }

func othersMayWrite(fs.FileMode) bool { return false }

func isRefused(error) bool { return false }
