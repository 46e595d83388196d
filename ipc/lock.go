package ipc

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LockFileName is the daemon's lifetime lock in the runtime directory.
const LockFileName = "daemon.lock"

// Lock takes the daemon's lifetime lock, daemon.lock in the runtime directory dir (prepared as
// Listen prepares it). The daemon holds it from before it touches the sockets until after it
// has removed them: the dial in Listen cannot tell a stale socket from one whose daemon is
// still starting, so without the lock two daemons started together over a stale socket could
// both run, one having unlinked the other's socket. A second daemon finds the lock held and
// stops with ErrDaemonRunning, sockets untouched. The kernel drops the lock when the process
// ends, so a killed daemon leaves nothing to clean up; the lock is per open file, so two
// daemons in one process exclude each other too.
func Lock(dir string, opts ListenOptions) (unlock func(), err error) {
	if err := prepareRuntimeDir(dir, opts); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, LockFileName)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("ipc: lifetime lock: %w", err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("ipc: lifetime lock %s: %w", path, err)
	}
	if !held {
		holder := lockHolder(f)
		f.Close()
		return nil, fmt.Errorf("%w: it holds %s%s", ErrDaemonRunning, path, holder)
	}
	// The holder's pid, for the message above and for people; the lock is the flock alone.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}

// lockHolder is " (pid N)" from the lock file, or "" when it holds no pid.
func lockHolder(f *os.File) string {
	b, _ := io.ReadAll(io.LimitReader(f, 32))
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
		return fmt.Sprintf(" (pid %d)", pid)
	}
	return ""
}
