//go:build windows

package ipc

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows the sockets are AF_UNIX sockets (Windows 10 1803 and later) in the per-user
// runtime directory under %LOCALAPPDATA%, whose ACL admits only the user, SYSTEM and
// administrators. The peer check does not rely on that alone: the kernel names the peer's
// process (SIO_AF_UNIX_GETPEERPID), and its access token must carry this process's account SID.
//
// Windows has no numeric uids. PeerUID answers os.Getuid() (-1 on Windows) for a peer running
// as this account, so SameUser holds, and otherUser for anyone else.

// sioAFUnixGetPeerPID is SIO_AF_UNIX_GETPEERPID, _WSAIOR(IOC_VENDOR, 256) in afunix.h.
const sioAFUnixGetPeerPID = 0x58000100

// otherUser is PeerUID's answer for a peer of another account.
const otherUser = -2

// PeerUID reports whether the process at the other end of a Unix-socket connection runs as
// this account (see above), from the kernel, never from anything the peer says.
func PeerUID(c net.Conn) (int, error) {
	raw, err := socketOf(c)
	if err != nil {
		return -1, err
	}
	var pid uint32
	var ioErr error
	err = raw.Control(func(fd uintptr) {
		var n uint32
		ioErr = windows.WSAIoctl(windows.Handle(fd), sioAFUnixGetPeerPID, nil, 0, (*byte)(unsafe.Pointer(&pid)), uint32(unsafe.Sizeof(pid)), &n, nil, 0)
	})
	if err = errors.Join(err, ioErr); err != nil {
		return -1, fmt.Errorf("ipc: peer process: %w", err)
	}
	same, err := runsAsMe(pid)
	if err != nil {
		return -1, err
	}
	if same {
		return os.Getuid(), nil
	}
	return otherUser, nil
}

// runsAsMe reports whether process pid runs under this process's account.
func runsAsMe(pid uint32) (bool, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		// A process of another account may not even be opened: not ours.
		if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
			return false, nil
		}
		return false, fmt.Errorf("ipc: open peer process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	var tok windows.Token
	if err := windows.OpenProcessToken(h, windows.TOKEN_QUERY, &tok); err != nil {
		if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
			return false, nil
		}
		return false, fmt.Errorf("ipc: peer process token: %w", err)
	}
	defer tok.Close()
	peer, err := tok.GetTokenUser()
	if err != nil {
		return false, fmt.Errorf("ipc: peer account: %w", err)
	}
	me, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return false, fmt.Errorf("ipc: own account: %w", err)
	}
	return peer.User.Sid.Equals(me.User.Sid), nil
}

// checkOwnDir refuses a runtime directory another account owns.
func checkOwnDir(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("ipc: runtime dir: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%w: runtime dir %s is not a directory (a link is not followed)", ErrUntrusted, dir)
	}
	sd, err := windows.GetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("ipc: runtime dir %s: %w", dir, err)
	}
	owner, _, err := sd.Owner()
	if err != nil {
		return fmt.Errorf("ipc: runtime dir %s: %w", dir, err)
	}
	me, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return fmt.Errorf("ipc: own account: %w", err)
	}
	if !owner.Equals(me.User.Sid) {
		return fmt.Errorf("%w: runtime dir %s belongs to %s, not to this account; remove it or set POND_RUNTIME_DIR", ErrUntrusted, dir, owner)
	}
	return nil
}

// othersMayWrite is false on Windows: Unix modes mean nothing there, and the directory under
// %LOCALAPPDATA% inherits the profile's access list, which admits only the user, SYSTEM and
// administrators (checkOwnDir checks the owner).
func othersMayWrite(fs.FileMode) bool { return false }

func isRefused(err error) bool { return errors.Is(err, windows.WSAECONNREFUSED) }
