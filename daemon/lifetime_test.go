//go:build unix

package daemon

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/paths"
)

// testDirs are a daemon's locations in a fresh temporary home (consent never asked, so it
// captures nothing).
func testDirs(t *testing.T) paths.Dirs {
	home := t.TempDir()
	t.Setenv("HOME", home)
	return paths.Dirs{ConfigFile: paths.Path{Path: filepath.Join(home, "config.toml")}, Data: paths.Path{Path: filepath.Join(home, "data")},
		State: paths.Path{Path: filepath.Join(home, "state")}, Runtime: paths.Path{Path: filepath.Join(home, "run")}}
}

// startDaemon runs a daemon over dirs: ready closes once it serves, done gets what Run returns.
func startDaemon(t *testing.T, ctx context.Context, dirs paths.Dirs) (ready <-chan struct{}, done <-chan error) {
	r, d := make(chan struct{}), make(chan error, 1)
	go func() { d <- Run(ctx, Options{Dirs: dirs, Version: "test", Ready: func() { close(r) }}) }()
	return r, d
}

// inode identifies the file at path, so a test can tell it was never replaced.
func inode(t *testing.T, path string) uint64 {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Ino
}

// secondDaemonRefused starts a second daemon over dirs and checks that it stops at the
// lifetime lock, saying so, and never starts.
func secondDaemonRefused(t *testing.T, dirs paths.Dirs) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready, done := startDaemon(t, ctx, dirs)
	select {
	case <-ready:
		cancel()
		<-done
		t.Fatal("a second daemon started beside the first")
	case err := <-done:
		lock := filepath.Join(dirs.Runtime.Path, ipc.LockFileName)
		if !errors.Is(err, ipc.ErrDaemonRunning) || !strings.Contains(err.Error(), lock) {
			t.Fatalf("second daemon: %v, want ErrDaemonRunning naming %s", err, lock)
		}
	}
}

// TestSecondDaemonLeavesTheFirstAlone: a daemon started while another holds the lifetime lock
// exits with a clear message and never touches the first one's sockets, whether the first is
// serving or still starting (its lock taken, a stale socket not yet replaced: the moment when
// a dial finds nobody answering and, before the lock, the second daemon took the socket over).
func TestSecondDaemonLeavesTheFirstAlone(t *testing.T) {
	t.Run("serving", func(t *testing.T) {
		dirs := testDirs(t)
		ctx, cancel := context.WithCancel(context.Background())
		ready, done := startDaemon(t, ctx, dirs)
		defer func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("first daemon: %v", err)
			}
		}()
		select {
		case <-ready:
		case err := <-done:
			t.Fatalf("first daemon: %v", err)
		}
		api, mcp := ipc.APISocket(dirs.Runtime.Path), ipc.MCPSocket(dirs.Runtime.Path)
		apiIno, mcpIno := inode(t, api), inode(t, mcp)
		secondDaemonRefused(t, dirs)
		if inode(t, api) != apiIno || inode(t, mcp) != mcpIno {
			t.Fatal("the second daemon replaced the first one's sockets")
		}
		c := ipc.NewClient(api)
		defer c.Close()
		if _, err := c.Status(ctx); err != nil {
			t.Fatalf("the first daemon after the second: %v", err)
		}
	})
	t.Run("starting", func(t *testing.T) {
		dirs := testDirs(t)
		// The first daemon, as Run begins: it holds the lock, and a socket left by a killed
		// daemon before it is still there, answering nobody.
		unlock, err := ipc.Lock(dirs.Runtime.Path, ipc.ListenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer unlock()
		api := ipc.APISocket(dirs.Runtime.Path)
		stale, err := net.Listen("unix", api)
		if err != nil {
			t.Fatal(err)
		}
		stale.(*net.UnixListener).SetUnlinkOnClose(false)
		stale.Close()
		staleIno := inode(t, api)
		secondDaemonRefused(t, dirs)
		if inode(t, api) != staleIno {
			t.Fatal("the second daemon replaced the socket the first is about to take over")
		}
	})
}
