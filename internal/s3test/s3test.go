// Package s3test runs moto's S3 server (scripts/moto-venv.sh) on loopback for the tests of
// Pond's archive on object storage. The Makefile exports POND_MOTO_SERVER; without it the
// tests that need the server are skipped, and with it set to a missing program they fail.
package s3test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// EnvServer names moto's server program.
const EnvServer = "POND_MOTO_SERVER"

// Server is a running moto S3 server.
type Server struct {
	// Endpoint is its base URL, http://127.0.0.1:PORT.
	Endpoint string
}

// Start runs a server for the test, stopped at its end, and sets the AWS credentials moto
// accepts in the test's environment. Lance takes an object store's endpoint once per process,
// so a package whose tests need the server more than once uses Shared instead.
func Start(t testing.TB) *Server {
	t.Helper()
	s, cmd, err := launch()
	if errors.Is(err, errNoServer) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	t.Setenv("AWS_ACCESS_KEY_ID", "testing")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "testing")
	t.Setenv("AWS_REGION", "us-east-1")
	return s
}

var shared struct {
	mu  sync.Mutex
	srv *Server
	cmd *exec.Cmd
}

// Shared is one server for every test of the process that asks, started by the first and
// stopped by StopShared (from the package's TestMain); the AWS credentials moto accepts are set
// in the process's environment.
func Shared(t testing.TB) *Server {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.srv == nil {
		s, cmd, err := launch()
		if errors.Is(err, errNoServer) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		shared.srv, shared.cmd = s, cmd
		for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1"} {
			os.Setenv(k, v)
		}
	}
	return shared.srv
}

// StopShared stops the server Shared started, if any.
func StopShared() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.cmd != nil {
		shared.cmd.Process.Kill()
		shared.cmd.Wait()
		shared.srv, shared.cmd = nil, nil
	}
}

// errNoServer is launch's answer without POND_MOTO_SERVER: the test is skipped.
var errNoServer = errors.New(EnvServer + " is not set: make test sets it (scripts/moto-venv.sh)")

// launch starts moto on a free loopback port and waits until it answers.
func launch() (*Server, *exec.Cmd, error) {
	prog := os.Getenv(EnvServer)
	if prog == "" {
		return nil, nil, errNoServer
	}
	if _, err := os.Stat(prog); err != nil {
		return nil, nil, fmt.Errorf("%s: %w (make setup installs it: scripts/moto-venv.sh)", EnvServer, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(prog, "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	s := &Server{Endpoint: fmt.Sprintf("http://127.0.0.1:%d", port)}
	// moto answers once Flask listens (about a second): wait for it, bounded.
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return s, cmd, nil
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, nil, fmt.Errorf("moto did not answer on %s: %w", s.Endpoint, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Bucket creates a bucket and returns its s3+http location with prefix.
func (s *Server) Bucket(t testing.TB, bucket, prefix string) string {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPut, s.Endpoint+"/"+bucket, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create bucket %s: HTTP %d", bucket, resp.StatusCode)
	}
	return "s3+" + s.Endpoint + "/" + bucket + "/" + prefix
}
