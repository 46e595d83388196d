// Package s3test runs moto's S3 server (scripts/moto-venv.sh) on loopback for the tests of
// Pond's archive on object storage. The Makefile exports POND_MOTO_SERVER; without it the
// tests that need the server are skipped, and with it set to a missing program they fail.
package s3test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
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
// accepts in the test's environment.
func Start(t testing.TB) *Server {
	t.Helper()
	prog := os.Getenv(EnvServer)
	if prog == "" {
		t.Skip(EnvServer + " is not set: make test sets it (scripts/moto-venv.sh)")
	}
	if _, err := os.Stat(prog); err != nil {
		t.Fatalf("%s: %v (make setup installs it: scripts/moto-venv.sh)", EnvServer, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(prog, "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	s := &Server{Endpoint: fmt.Sprintf("http://127.0.0.1:%d", port)}
	// moto answers once Flask listens (about a second): wait for it, bounded.
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("moto did not answer on %s: %v", s.Endpoint, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "testing")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "testing")
	t.Setenv("AWS_REGION", "us-east-1")
	return s
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
