package ipc

import (
	"errors"
	"log/slog"
	"net"
	"sync"
	"syscall"
	"time"
)

// The daemon's bounds on its sockets: connections open at once on each listener, and clients
// following the event stream at once (each holds one of the API's connections for as long
// as it follows).
const (
	DefaultMaxConns    = 128
	DefaultMaxWatchers = 32
)

// Back-off between failed accepts, as net/http's: from 5 ms, doubling, up to 1 s.
const (
	acceptRetryMin = 5 * time.Millisecond
	acceptRetryMax = time.Second
)

// GuardListener is ln as the daemon's servers accept from it. An accept that fails for want
// of resources (out of file descriptors, a connection aborted before it was accepted) is
// retried after a back-off instead of ending the server, and with it the daemon; at most max
// connections are open at once: beyond that Accept waits, logging once, until one closes, so
// a client that leaks connections cannot take every file descriptor.
func GuardListener(ln net.Listener, max int, log *slog.Logger) net.Listener {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &guardedListener{Listener: ln, slots: make(chan struct{}, max), log: log, closed: make(chan struct{})}
}

type guardedListener struct {
	net.Listener
	slots     chan struct{} // one per open connection
	log       *slog.Logger
	closeOnce sync.Once
	closed    chan struct{}
}

func (g *guardedListener) Accept() (net.Conn, error) {
	select {
	case g.slots <- struct{}{}:
	default:
		g.log.Warn("ipc: connection limit reached; waiting for a connection to close", "addr", g.Addr().String(), "limit", cap(g.slots))
		select {
		case g.slots <- struct{}{}:
		case <-g.closed:
			return nil, net.ErrClosed
		}
	}
	delay := time.Duration(0)
	for {
		c, err := g.Listener.Accept()
		if err == nil {
			return &guardedConn{Conn: c, release: sync.OnceFunc(func() { <-g.slots })}, nil
		}
		if !temporaryAcceptError(err) {
			<-g.slots
			return nil, err
		}
		delay = min(max(2*delay, acceptRetryMin), acceptRetryMax)
		g.log.Warn("ipc: accept failed; retrying", "addr", g.Addr().String(), "error", err, "retry_in", delay)
		select {
		case <-time.After(delay):
		case <-g.closed:
			<-g.slots
			return nil, net.ErrClosed
		}
	}
}

func (g *guardedListener) Close() error {
	g.closeOnce.Do(func() { close(g.closed) })
	return g.Listener.Close()
}

// temporaryAcceptError: the listener is fine, the moment is not (net/http retries only what
// syscall calls Temporary, which leaves ECONNABORTED out).
func temporaryAcceptError(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ECONNABORTED, syscall.ENOBUFS, syscall.ENOMEM, syscall.EINTR} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// guardedConn gives its listener's slot back when closed.
type guardedConn struct {
	net.Conn
	release func()
}

func (c *guardedConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// NetConn is the accepted connection itself, which the peer checks ask the kernel about.
func (c *guardedConn) NetConn() net.Conn { return c.Conn }
