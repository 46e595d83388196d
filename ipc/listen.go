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

// ErrUntrusted is returned by Dial and Listen when the runtime directory, or the process
// serving a socket, is not this user's own: another local user could be posing as the daemon,
// choosing the answers agents read and the commands a resume runs.
var ErrUntrusted = errors.New("ipc: refusing a socket that is not this user's own")

// ListenOptions tune Listen.
type ListenOptions struct {
	// OpenToAll makes the runtime directory traversable and the socket connectable by every
	// user (0711, 0666), so the peer-uid check is what refuses them. For tests only: the
	// production modes (0700, 0600) keep other users from connecting at all.
	OpenToAll bool
}

func (o ListenOptions) modes() (dir, sock fs.FileMode) {
	if o.OpenToAll {
		return 0o711, 0o666
	}
	return 0o700, 0o600
}

// Listen listens on the Unix socket at path. The directory is created 0700 (and must belong to
// this user, writable by nobody else); the socket is made 0600. A leftover socket file is
// replaced only after a dial finds nobody answering on it; the daemon holds Lock before it
// calls Listen, so that dial never races another daemon starting up.
func Listen(path string, opts ListenOptions) (net.Listener, error) {
	if err := prepareRuntimeDir(filepath.Dir(path), opts); err != nil {
		return nil, err
	}
	_, sockMode := opts.modes()
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

// prepareRuntimeDir makes dir ready for the sockets and the lifetime lock. Its mode is set
// only on a directory this call created, or on a directory named "pond" that is this user's
// (the default layout, $XDG_RUNTIME_DIR/pond): POND_RUNTIME_DIR may name any directory, and a
// variable naming /tmp or someone's project folder must not make Pond chmod it. Any directory
// must then pass what a client checks (checkRuntimeDir): this user's, writable by nobody else.
func prepareRuntimeDir(dir string, opts ListenOptions) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return fmt.Errorf("ipc: runtime dir: %w", err)
	}
	err := os.Mkdir(dir, 0o700) // not MkdirAll: it would not say whether it made dir
	created := err == nil
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("ipc: runtime dir: %w", err)
	}
	if err := checkOwnDir(dir); err != nil {
		return err
	}
	if created || filepath.Base(dir) == "pond" {
		dirMode, _ := opts.modes()
		if err := os.Chmod(dir, dirMode); err != nil {
			return fmt.Errorf("ipc: runtime dir: %w", err)
		}
	}
	return checkRuntimeDir(dir)
}

// checkRuntimeDir is the client's check of the directory a socket is in, before dialing: it
// must be a directory (not a link) that belongs to this user and that no other user can
// write to, or another user could have put a socket of theirs in it.
func checkRuntimeDir(dir string) error {
	if err := checkOwnDir(dir); err != nil {
		return err
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("ipc: runtime dir: %w", err)
	}
	if othersMayWrite(st.Mode()) {
		return fmt.Errorf("%w: runtime dir %s is writable by other users (mode %v), who could put a socket of theirs there; chmod 700 it, remove it, or set POND_RUNTIME_DIR", ErrUntrusted, dir, st.Mode().Perm())
	}
	return nil
}

// Dial connects to the socket at path; a missing socket or nobody listening is ErrNoDaemon.
// Before dialing it checks the socket's directory (checkRuntimeDir), and after connecting the
// uid of the process that serves it (from the kernel): either not being this user's is
// ErrUntrusted, and nothing is sent.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	dir := filepath.Dir(path)
	if err := checkRuntimeDir(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w (%s)", ErrNoDaemon, path)
		}
		return nil, err
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || isRefused(err) {
			return nil, fmt.Errorf("%w (%s)", ErrNoDaemon, path)
		}
		return nil, fmt.Errorf("ipc: dial %s: %w", path, err)
	}
	if err := checkServer(c, path); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// checkServer refuses a connection whose server is not this user's process.
func checkServer(c net.Conn, path string) error {
	uid, err := PeerUID(c)
	if err != nil {
		return fmt.Errorf("ipc: cannot tell who serves %s: %w", path, err)
	}
	if !SameUser(uid) {
		return fmt.Errorf("%w: the process serving %s runs as uid %d, not as this user (%d); stop it, or set POND_RUNTIME_DIR to a directory of your own", ErrUntrusted, path, uid, os.Getuid())
	}
	return nil
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

// socketOf is the raw socket under a Unix-socket connection (through GuardListener's
// wrapper), which the peer checks ask the kernel about.
func socketOf(c net.Conn) (syscall.RawConn, error) {
	if w, ok := c.(interface{ NetConn() net.Conn }); ok {
		c = w.NetConn()
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, fmt.Errorf("ipc: peer credentials need a Unix socket, not %T", c)
	}
	return uc.SyscallConn()
}
