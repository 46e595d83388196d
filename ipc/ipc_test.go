package ipc

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pondhq/pond/ipc/apitype"
)

func TestListenReplacesOnlyDeadSockets(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	sock := filepath.Join(dir, "pond.sock")
	ln, err := Listen(sock, ListenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, sock: 0o600} {
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %v", path, st.Mode().Perm(), err, want)
		}
	}
	if _, err := Listen(sock, ListenOptions{}); !errors.Is(err, ErrDaemonRunning) {
		t.Fatalf("second listen on a live socket: %v, want ErrDaemonRunning", err)
	}
	// A socket file left by a killed daemon: nobody answers, so it is replaced.
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Lstat(sock); err != nil {
		t.Fatalf("the dead socket should still be there: %v", err)
	}
	if _, err := Dial(context.Background(), sock); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("dial a dead socket: %v, want ErrNoDaemon", err)
	}
	ln, err = Listen(sock, ListenOptions{})
	if err != nil {
		t.Fatalf("listen over a dead socket: %v", err)
	}
	ln.Close()
	// A regular file in the socket's place is not removed.
	os.WriteFile(sock, []byte("mine"), 0o600)
	if _, err := Listen(sock, ListenOptions{}); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("listen over a file: %v", err)
	}
}

func TestPeerUIDIsOurs(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "p.sock")
	ln, err := Listen(sock, ListenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := net.Dial("unix", sock)
		if err == nil {
			defer c.Close()
			c.Read(make([]byte, 1))
		}
	}()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if uid, err := PeerUID(c); err != nil || uid != os.Getuid() {
		t.Fatalf("peer uid %d, %v; want %d", uid, err, os.Getuid())
	}
}

func TestHubResume(t *testing.T) {
	h := NewHub(3)
	first, _, cancel := h.Subscribe("")
	cancel()
	if len(first) != 1 || first[0].Type != apitype.EventHello || first[0].ID != 0 {
		t.Fatalf("fresh subscription starts with %+v, want hello 0", first)
	}
	for range 5 {
		h.Publish("tick", nil) // ids 1..5; the hub keeps 3..5
	}
	cursor := func(id int) string { return h.Epoch() + ":" + string(rune('0'+id)) }
	tests := []struct {
		name, since string
		want        []uint64 // event ids, or nil for a reset
	}{
		{"up_to_date", cursor(5), []uint64{}},
		{"one_behind", cursor(4), []uint64{5}},
		{"oldest_kept", cursor(2), []uint64{3, 4, 5}},
		{"too_old", cursor(1), nil},
		{"future", cursor(9), nil},
		{"other_epoch", "x:4", nil},
		{"garbage", "nonsense", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, cancel := h.Subscribe(tt.since)
			defer cancel()
			if tt.want == nil {
				if len(got) != 1 || got[0].Type != apitype.EventReset {
					t.Fatalf("got %+v, want a reset", got)
				}
				return
			}
			ids := []uint64{}
			for _, ev := range got {
				ids = append(ids, ev.ID)
			}
			if len(ids) != len(tt.want) || (len(ids) > 0 && ids[0] != tt.want[0]) {
				t.Fatalf("got ids %v, want %v", ids, tt.want)
			}
		})
	}
	// A live subscriber sees what follows, in order.
	_, live, cancel := h.Subscribe(cursor(5))
	defer cancel()
	h.Publish("a", map[string]int{"n": 1})
	h.Publish("b", nil)
	if a, b := <-live, <-live; a.Type != "a" || a.ID != 6 || b.ID != 7 || string(a.Data) != `{"n":1}` {
		t.Fatalf("live events %+v %+v", a, b)
	}
}

func TestRequestIDIsUUIDv7(t *testing.T) {
	a, b := newRequestID(), newRequestID()
	if a == b || len(a) != 40 || a[18] != '7' || !strings.HasPrefix(a, "req_") {
		t.Fatalf("request ids %q %q", a, b)
	}
}

// TestBuildsForWindows cross-checks the Windows face of the package (AF_UNIX with a peer
// check by account SID, peer_windows.go): this machine cannot run it, but it must compile and
// pass vet.
func TestBuildsForWindows(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	cmd := exec.Command("go", "vet", "./", "./apitype/")
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet for windows: %v\n%s", err, out)
	}
}
