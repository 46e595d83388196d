//go:build linux || darwin

package ipc

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"
)

// PeerUID is the uid of the process at the other end of a Unix-socket connection, from the
// kernel (Linux SO_PEERCRED, macOS LOCAL_PEERCRED), never from anything the peer says.
func PeerUID(c net.Conn) (int, error) {
	raw, err := socketOf(c)
	if err != nil {
		return -1, err
	}
	uid := -1
	var credErr error
	if err := raw.Control(func(fd uintptr) { uid, credErr = peerUID(int(fd)) }); err != nil {
		return -1, err
	}
	return uid, credErr
}

func checkOwnDir(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("ipc: runtime dir: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%w: runtime dir %s is not a directory (a link is not followed)", ErrUntrusted, dir)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("%w: runtime dir %s belongs to uid %d, not to this user (%d), who may be serving there; remove it or set POND_RUNTIME_DIR to a directory of your own", ErrUntrusted, dir, sys.Uid, os.Getuid())
	}
	return nil
}

// othersMayWrite: a group- or world-writable directory lets other users add sockets to it.
func othersMayWrite(m fs.FileMode) bool { return m.Perm()&0o022 != 0 }

func isRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
