package ipc

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/pondhq/pond/internal/faultnet"
	"github.com/pondhq/pond/ipc/apitype"
)

// TestServeSurvivesAcceptErrors: an accept that fails for want of resources (EMFILE, ENFILE,
// ECONNABORTED) is retried; the API goes on serving instead of ending the daemon.
func TestServeSurvivesAcceptErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		errno syscall.Errno
	}{{"EMFILE", syscall.EMFILE}, {"ENFILE", syscall.ENFILE}, {"ECONNABORTED", syscall.ECONNABORTED}} {
		errno := tc.errno
		t.Run(tc.name, func(t *testing.T) {
			sock := filepath.Join(t.TempDir(), "pond.sock")
			ln, err := Listen(sock, ListenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			faulty := faultnet.Failing(ln, errno, errno)
			ctx, cancel := context.WithCancel(context.Background())
			srv := &Server{API: NewClient(filepath.Join(t.TempDir(), "nobody.sock")), Hub: NewHub(4), Version: "test"}
			served := make(chan error, 1)
			go func() { served <- srv.Serve(ctx, faulty) }()
			defer func() {
				cancel()
				if err := <-served; err != nil {
					t.Errorf("serve: %v", err)
				}
			}()
			c := NewClient(sock)
			defer c.Close()
			resp, err := c.Do(ctx, "GET", "/v1/no-such-route", nil)
			if err != nil {
				t.Fatalf("after %v on accept: %v", errno, err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound || faulty.Pending() != 0 {
				t.Fatalf("got HTTP %d with %d faults left, want 404 after both faults", resp.StatusCode, faulty.Pending())
			}
		})
	}
}

// TestWatchersAreCapped: past MaxWatchers a watch is answered "busy" at once, so followers
// of the event stream cannot hold every connection.
func TestWatchersAreCapped(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "pond.sock")
	ln, err := Listen(sock, ListenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := &Server{API: NewClient(filepath.Join(t.TempDir(), "nobody.sock")), Hub: NewHub(4), MaxWatchers: 1}
	go srv.Serve(ctx, ln)
	c := NewClient(sock)
	defer c.Close()
	following := make(chan struct{})
	go c.Watch(ctx, "", func(ev apitype.Event) error {
		if ev.Type == apitype.EventHello {
			close(following)
		}
		return nil
	})
	<-following
	err = c.Watch(ctx, "", func(apitype.Event) error { return errors.New("a second watcher was served") })
	var ae *apitype.Error
	if !errors.As(err, &ae) || ae.Code != apitype.CodeBusy {
		t.Fatalf("second watcher: %v, want code %s", err, apitype.CodeBusy)
	}
}

// signalWriter closes seen when something is written to it: here, the guard's warning that
// the connection limit was reached, written only when Accept has to wait for a slot.
type signalWriter struct {
	once sync.Once
	seen chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("connection limit reached")) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// TestGuardListenerCapsConnections: with the limit's connections open, Accept waits (and says
// so) until one closes, rather than taking another file descriptor.
func TestGuardListenerCapsConnections(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "g.sock")
	raw, err := Listen(sock, ListenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := &signalWriter{seen: make(chan struct{})}
	ln := GuardListener(raw, 1, slog.New(slog.NewTextHandler(w, nil)))
	defer ln.Close()
	for range 2 {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	first, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	select {
	case c := <-accepted:
		c.Close()
		t.Fatal("a second connection was accepted over the limit of 1")
	case <-w.seen:
	}
	first.Close()
	second := <-accepted
	if uid, err := PeerUID(second); err != nil || !SameUser(uid) {
		t.Errorf("peer uid through the guard: %d, %v", uid, err)
	}
	second.Close()
}
