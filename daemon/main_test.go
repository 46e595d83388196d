package daemon

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/pondhq/pond/internal/otheruser"
)

func TestMain(m *testing.M) {
	otheruser.Main(map[string]func([]string) int{"get": getAsOtherUser, "mcp-ping": mcpPingAsOtherUser})
	os.Exit(m.Run())
}

// getAsOtherUser is the "get" role: GET args[1] on the API socket args[0], as a plain HTTP
// client that checks nothing (as an attacker's would), printing the status and body.
func getAsOtherUser(args []string) int {
	sock, path := args[0], args[1]
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
	resp, err := hc.Get("http://pond" + path)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Printf("%d %s", resp.StatusCode, body)
	return 0
}

// mcpPingAsOtherUser is the "mcp-ping" role: send a JSON-RPC ping on the MCP socket args[0]
// and print what comes back, or "hung up" when the daemon closes the connection unanswered.
func mcpPingAsOtherUser(args []string) int {
	c, err := net.Dial("unix", args[0])
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer c.Close()
	fmt.Fprintln(c, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	// Only so a broken daemon cannot hang the test: the check hangs up at once.
	c.SetReadDeadline(time.Now().Add(time.Minute))
	line, err := bufio.NewReader(c).ReadString('\n')
	switch {
	case line != "":
		fmt.Print(line)
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		// A reset when the daemon closed before reading the ping, EOF when after.
		fmt.Println("hung up")
	default:
		fmt.Println(err)
	}
	return 0
}
