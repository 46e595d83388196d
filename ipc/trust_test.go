package ipc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pondhq/pond/internal/otheruser"
)

func TestMain(m *testing.M) {
	otheruser.Main(map[string]func([]string) int{"serve": serveAsOtherUser})
	os.Exit(m.Run())
}

// serveAsOtherUser is the "serve" role: a socket at args[0] that accepts connections (and
// says nothing) until stdin closes.
func serveAsOtherUser(args []string) int {
	ln, err := net.Listen("unix", args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	fmt.Println("listening")
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// liveSocket is a socket of ours in dir that accepts connections.
func liveSocket(t *testing.T, dir string) string {
	t.Helper()
	sock := filepath.Join(dir, "pond.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return sock
}

// TestDialChecksRuntimeDir: a client dials only into a directory of its own user's that no
// one else can write to, whoever answers there, and says which directory is wrong.
func TestDialChecksRuntimeDir(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spoil  func(t *testing.T, dir string) // nil: left private
		refuse string
	}{
		{"private", nil, ""},
		{"world_writable", func(t *testing.T, dir string) { os.Chmod(dir, 0o777) }, "writable by other users"},
		{"group_writable", func(t *testing.T, dir string) { os.Chmod(dir, 0o770) }, "writable by other users"},
		{"sticky_world_writable", func(t *testing.T, dir string) { os.Chmod(dir, 0o1777) }, "writable by other users"},
		{"other_owner", func(t *testing.T, dir string) { otheruser.Give(t, dir) }, "belongs to uid 65534"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			sock := liveSocket(t, dir)
			if tc.spoil != nil {
				tc.spoil(t, dir)
			}
			c, err := Dial(context.Background(), sock)
			if tc.refuse == "" {
				if err != nil {
					t.Fatalf("dial a private runtime dir: %v", err)
				}
				c.Close()
				return
			}
			if err == nil {
				c.Close()
				t.Fatalf("dialed a socket in a spoilt runtime dir; want a refusal saying %q", tc.refuse)
			}
			if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), tc.refuse) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("got %v, want ErrUntrusted naming %s and saying %q", err, dir, tc.refuse)
			}
		})
	}
	t.Run("link", func(t *testing.T) {
		real := filepath.Join(t.TempDir(), "real")
		os.Mkdir(real, 0o700)
		sock := liveSocket(t, real)
		link := filepath.Join(t.TempDir(), "run")
		if err := os.Symlink(real, link); err != nil {
			t.Fatal(err)
		}
		if _, err := Dial(context.Background(), filepath.Join(link, filepath.Base(sock))); !errors.Is(err, ErrUntrusted) {
			t.Fatalf("dial through a linked runtime dir: %v, want ErrUntrusted", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		if _, err := Dial(context.Background(), filepath.Join(t.TempDir(), "none", "pond.sock")); !errors.Is(err, ErrNoDaemon) {
			t.Fatalf("dial into a missing runtime dir: %v, want ErrNoDaemon", err)
		}
	})
}

// TestDialRefusesAnotherUsersServer: a socket in our own private directory whose server runs
// as another user (nobody; root moved its socket in) is refused after connecting, from the
// server's uid as the kernel reports it.
func TestDialRefusesAnotherUsersServer(t *testing.T) {
	theirs := t.TempDir()
	cmd := otheruser.Command(t, "serve", filepath.Join(theirs, "s.sock"))
	otheruser.OpenPath(t, theirs)
	otheruser.Give(t, theirs)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "listening\n" {
		t.Fatalf("the other user's server: %q, %v", line, err)
	}
	ours := t.TempDir()
	sock := filepath.Join(ours, "pond.sock")
	if err := os.Rename(filepath.Join(theirs, "s.sock"), sock); err != nil {
		t.Fatal(err)
	}
	c, err := Dial(context.Background(), sock)
	if err == nil {
		c.Close()
		t.Fatal("dialed a server that runs as another user")
	}
	if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "runs as uid 65534") {
		t.Fatalf("got %v, want ErrUntrusted naming uid 65534", err)
	}
	t.Logf("refused a server running as uid %d: %v", otheruser.UID, err)
}

// TestListenChmodsOnlyItsOwnDirs: Listen sets the mode of a directory it made, or of a "pond"
// directory of ours; a directory POND_RUNTIME_DIR names is used as it is when no one else can
// write to it, and refused (not chmodded) when others can.
func TestListenChmodsOnlyItsOwnDirs(t *testing.T) {
	for _, tc := range []struct {
		name      string
		have      os.FileMode // 0: Listen creates it
		want      os.FileMode
		wantError bool
	}{
		{"created", 0, 0o700, false},
		{"pond", 0o755, 0o700, false},
		{"mine", 0o755, 0o755, false},
		{"shared", 0o777, 0o777, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), tc.name)
			if tc.have != 0 {
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				os.Chmod(dir, tc.have)
			}
			ln, err := Listen(filepath.Join(dir, "pond.sock"), ListenOptions{})
			if tc.wantError {
				if !errors.Is(err, ErrUntrusted) {
					t.Errorf("listen in a %v dir: %v, want ErrUntrusted", tc.have, err)
				}
			} else if err != nil {
				t.Fatal(err)
			} else {
				ln.Close()
			}
			if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != tc.want {
				t.Errorf("mode %v, %v; want %v", st.Mode().Perm(), err, tc.want)
			}
		})
	}
}

// TestLockExcludesASecondDaemon: the lifetime lock is held once, by open file, so a second
// daemon (here in the same process) is told who holds it; a released lock can be taken again.
func TestLockExcludesASecondDaemon(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pond")
	unlock, err := Lock(dir, ListenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(dir, ListenOptions{})
	want := fmt.Sprintf("it holds %s (pid %d)", filepath.Join(dir, LockFileName), os.Getpid())
	if !errors.Is(err, ErrDaemonRunning) || !strings.Contains(err.Error(), want) {
		t.Fatalf("second lock: %v, want ErrDaemonRunning saying %q", err, want)
	}
	unlock()
	unlock, err = Lock(dir, ListenOptions{})
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	unlock()
}
