// Command pond-fakemodel serves the fake model API (package fakemodel) on the loopback, for
// running agents by hand or from scripts without a real model: scripts/fixtures.sh runs each
// installable agent against it to write genuine fixtures.
//
//	pond-fakemodel [-listen 127.0.0.1:0] [-script script.json] [-log requests.jsonl]
//
// It prints its base URL as the first line on stdout ("http://127.0.0.1:PORT"), then serves
// until interrupted. Point an agent at it: ANTHROPIC_BASE_URL=URL, OpenAI clients at URL/v1,
// GOOGLE_GEMINI_BASE_URL=URL.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/pondhq/pond/internal/fakemodel"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (loopback only)")
	script := flag.String("script", "", "a JSON script of conversations and replies (see package fakemodel); none: every answer is \"ok\"")
	logFile := flag.String("log", "", "append every request, one JSON object a line, to this file")
	flag.Parse()
	if err := run(*listen, *script, *logFile); err != nil {
		fmt.Fprintln(os.Stderr, "pond-fakemodel:", err)
		os.Exit(1)
	}
}

func run(listen, scriptFile, logFile string) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("-listen %q: %w", listen, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("-listen %q: the fake listens on the loopback only", listen)
	}
	var sc fakemodel.Script
	if scriptFile != "" {
		b, err := os.ReadFile(scriptFile)
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&sc); err != nil {
			return fmt.Errorf("%s: %w", scriptFile, err)
		}
	}
	srv := fakemodel.New(sc)
	if logFile != "" {
		f, err := os.OpenFile(logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		defer f.Close()
		var mu sync.Mutex
		enc := json.NewEncoder(f)
		srv.OnRequest = func(r fakemodel.Request) {
			mu.Lock()
			defer mu.Unlock()
			_ = enc.Encode(struct {
				fakemodel.Request
				Body json.RawMessage `json:"body,omitempty"`
			}{r, rawOrString(r.Body)})
		}
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	fmt.Printf("http://%s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hs := &http.Server{Handler: srv}
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// rawOrString keeps a JSON body as JSON in the log, and anything else as a JSON string.
func rawOrString(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	if json.Valid(b) {
		return b
	}
	s, _ := json.Marshal(string(b))
	return s
}
