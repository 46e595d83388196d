package ipc

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/pondhq/pond/internal/atomicfile"
	"github.com/pondhq/pond/ipc/apitype"
)

// TokenFileName is the bearer token's file in the state directory (0600).
const TokenFileName = "api-token"

// ListenTCP listens on a loopback address for the optional TCP listener. Anything but a
// loopback IP is refused: the API has no transport security.
func ListenTCP(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("ipc: --listen %q: want 127.0.0.1:PORT", addr)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("ipc: --listen %q: only a loopback address (127.0.0.1 or [::1]) is allowed", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("ipc: listen %s: %w", addr, err)
	}
	return ln, nil
}

// LoadToken reads the bearer token from path, creating a random one (0600) when there is none.
func LoadToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		return strings.TrimSpace(string(b)), nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("ipc: token: %w", err)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(raw[:])
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	if err := atomicfile.Write(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("ipc: token: %w", err)
	}
	return tok, nil
}

// tcpGate is the TCP listener's check in place of the peer uid: the Host header must name the
// listener itself (a page in a browser cannot rebind its own name to it) and the request must
// carry the bearer token.
func tcpGate(token string, port string) func(*http.Request) *apitype.Error {
	allowed := map[string]bool{"127.0.0.1:" + port: true, "localhost:" + port: true, "[::1]:" + port: true}
	return func(r *http.Request) *apitype.Error {
		if !allowed[strings.ToLower(r.Host)] {
			return &apitype.Error{Code: apitype.CodeForbidden, Message: fmt.Sprintf("host %q is not allowed (use 127.0.0.1:%s)", r.Host, port)}
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return &apitype.Error{Code: apitype.CodeUnauthorized, Message: "missing or wrong bearer token (Authorization: Bearer <the api-token file in the state directory>)"}
		}
		return nil
	}
}
