package ipc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"
)

// How long Bridge waits for answers after its input ends.
const (
	drainQuiet = 300 * time.Millisecond
	drainMax   = 10 * time.Second
)

// timedWriter records when it last wrote.
type timedWriter struct {
	w  io.Writer
	at atomic.Int64
}

func (t *timedWriter) touch()          { t.at.Store(time.Now().UnixNano()) }
func (t *timedWriter) last() time.Time { return time.Unix(0, t.at.Load()) }
func (t *timedWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.touch()
	return n, err
}

// Bridge relays in to the socket at sock and the socket back to out, byte for byte, until the
// daemon closes the connection or ctx ends. `pond mcp` runs it between an agent's stdio and
// mcp.sock; when in ends (the agent closed its stdin) the write side is shut down, so the
// daemon finishes what it was answering and closes.
func Bridge(ctx context.Context, sock string, in io.Reader, out io.Writer) error {
	c, err := Dial(ctx, sock)
	if err != nil {
		return err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	tw := &timedWriter{w: out}
	tw.touch()
	go func() {
		io.Copy(c, in)
		// The agent closed its end. The server drops whatever it has not answered yet once
		// it reads EOF, so give answers in flight a moment: wait until the daemon has been
		// quiet for a while (at most drainMax) before shutting our write side.
		deadline := time.Now().Add(drainMax)
		for time.Since(tw.last()) < drainQuiet && time.Now().Before(deadline) {
			time.Sleep(drainQuiet / 4)
		}
		if uc, ok := c.(*net.UnixConn); ok {
			uc.CloseWrite()
		}
	}()
	_, err = io.Copy(tw, c)
	if ctx.Err() != nil {
		return nil
	}
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("ipc: relay from %s: %w", sock, err)
	}
	return nil
}
