package mcpserver

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pondhq/pond/internal/faultnet"
	"github.com/pondhq/pond/ipc"
)

// TestServeListenerSurvivesAcceptErrors: running out of file descriptors (or a connection
// aborted before it was accepted) on mcp.sock used to end ServeListener, and with it the whole
// daemon; now the accept is retried and the next agent gets its session.
func TestServeListenerSurvivesAcceptErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		errno syscall.Errno
	}{{"EMFILE", syscall.EMFILE}, {"ECONNABORTED", syscall.ECONNABORTED}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			sock := ipc.MCPSocket(dir)
			ln, err := ipc.Listen(sock, ipc.ListenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			faulty := faultnet.Failing(ln, tc.errno)
			ctx, cancel := context.WithCancel(context.Background())
			// The API behind the tools is not reached: the session's handshake is enough.
			api := ipc.NewClient(filepath.Join(dir, "no-daemon.sock"))
			// ctx ends when ServeListener does, so a server that gave up fails the session below
			// instead of leaving it waiting on the socket's backlog.
			var serveErr error
			served := make(chan struct{})
			go func() {
				defer close(served)
				defer cancel()
				serveErr = ServeListener(ctx, faulty, New(api, "test", nil), nil)
			}()
			defer func() {
				cancel()
				<-served
				if serveErr != nil {
					t.Errorf("ServeListener: %v", serveErr)
				}
			}()
			conn, err := ipc.Dial(ctx, sock)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
			if err != nil {
				t.Fatalf("MCP session after %v on accept: %v", tc.errno, err)
			}
			defer cs.Close()
			if err := cs.Ping(ctx, nil); err != nil {
				t.Fatalf("ping: %v", err)
			}
			if faulty.Pending() != 0 {
				t.Fatal("the injected accept failure was never hit")
			}
		})
	}
}
