package ipc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrDaemonRunning is returned by Listen when a live daemon answers on the socket already.
var ErrDaemonRunning = errors.New("ipc: another daemon is running")

// ListenOptions tune Listen.
type ListenOptions struct {
	// OpenToAll makes the runtime directory traversable and the socket connectable by every
	// user (0711, 0666), so the peer-uid check is what refuses them. For tests only: the
	// production modes (0700, 0600) keep other users from connecting at all.
	OpenToAll bool
}

// Listen listens on the Unix socket at path. The directory is created 0700 (and must belong to
// this user); the socket is made 0600. A leftover socket file is replaced only after a dial
// finds nobody answering on it.
func Listen(path string, opts ListenOptions) (net.Listener, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("ipc: runtime dir: %w", err)
	}
	if err := checkOwnDir(dir); err != nil {
		return nil, err
	}
	dirMode, sockMode := os.FileMode(0o700), os.FileMode(0o600)
	if opts.OpenToAll {
		dirMode, sockMode = 0o711, 0o666
	}
	if err := os.Chmod(dir, dirMode); err != nil {
		return nil, fmt.Errorf("ipc: runtime dir: %w", err)
	}
	if st, err := os.Lstat(path); err == nil {
		if st.Mode()&fs.ModeSocket == 0 {
			return nil, fmt.Errorf("ipc: %s exists and is not a socket; move it away", path)
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("%w: it answers on %s", ErrDaemonRunning, path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("ipc: remove the stale socket: %w", err)
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("ipc: listen: %w", err)
	}
	// The directory's 0700 already keeps others out during the moment before this chmod.
	if err := os.Chmod(path, sockMode); err != nil {
		ln.Close()
		return nil, fmt.Errorf("ipc: socket mode: %w", err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	return ln, nil
}

// Dial connects to the socket at path; a missing socket or nobody listening is ErrNoDaemon.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || isRefused(err) {
			return nil, fmt.Errorf("%w (%s)", ErrNoDaemon, path)
		}
		return nil, fmt.Errorf("ipc: dial %s: %w", path, err)
	}
	return c, nil
}

// ErrNoDaemon means no daemon answers.
var ErrNoDaemon = errors.New("no Pond daemon is running")

// SameUser is the default peer check: the daemon's own uid only.
func SameUser(uid int) bool { return uid == os.Getuid() }

type peerKey struct{}

type peerInfo struct {
	uid int
	err error
}

// withPeerUID reads the peer's uid once per connection (http.Server.ConnContext).
func withPeerUID(ctx context.Context, c net.Conn) context.Context {
	uid, err := PeerUID(c)
	return context.WithValue(ctx, peerKey{}, peerInfo{uid, err})
}

func peerUIDFrom(ctx context.Context) (int, error) {
	p, ok := ctx.Value(peerKey{}).(peerInfo)
	if !ok {
		return -1, errors.New("no peer credentials on this connection")
	}
	return p.uid, p.err
}

// socketOf is the raw socket under a Unix-socket connection, which the peer checks ask the
// kernel about.
func socketOf(c net.Conn) (syscall.RawConn, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, fmt.Errorf("ipc: peer credentials need a Unix socket, not %T", c)
	}
	return uc.SyscallConn()
}
