// Package faultnet injects faults at the OS boundary of a real network listener, for tests of
// what a server does when the kernel's accept fails (out of file descriptors, a connection
// aborted before it was accepted): conditions a test cannot bring about reliably otherwise.
package faultnet

import (
	"net"
	"os"
	"sync"
	"syscall"
)

// Listener is a real listener whose first Accepts fail with the given errnos, wrapped as the
// net package wraps a failed accept4; after them it accepts from the real one.
type Listener struct {
	net.Listener
	mu   sync.Mutex
	errs []syscall.Errno
}

// Failing wraps ln so that its next len(errs) Accepts fail with errs, in order.
func Failing(ln net.Listener, errs ...syscall.Errno) *Listener {
	return &Listener{Listener: ln, errs: errs}
}

// Accept fails with the next injected errno, or accepts from the real listener.
func (l *Listener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if len(l.errs) > 0 {
		e := l.errs[0]
		l.errs = l.errs[1:]
		l.mu.Unlock()
		return nil, &net.OpError{Op: "accept", Net: l.Addr().Network(), Addr: l.Addr(), Err: os.NewSyscallError("accept4", e)}
	}
	l.mu.Unlock()
	return l.Listener.Accept()
}

// Pending is how many injected failures are left.
func (l *Listener) Pending() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.errs)
}
