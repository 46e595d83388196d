package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// TestCLIWritesThroughDaemon: while a daemon runs, pond export, import, sql (inline and to a
// file), mirror rebuild and doctor --verify are the daemon's work. The CLI runs with data and state directories
// of its own that stay empty, so it can only have reached the archive through the socket; the
// daemon's log names each route, and its event stream reports the imported session.
func TestCLIWritesThroughDaemon(t *testing.T) {
	bin := pondBinary(t)
	home, env := isolatedHome(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if out, code := run(t, bin, env, "consent", "grant"); code != 0 {
		t.Fatalf("consent grant: %d %s", code, out)
	}
	d := startDaemon(t, bin, env, home)
	waitFor(t, "the start-up sync", func() bool {
		st, err := d.client.Status(ctx)
		return err == nil && st.Sessions > 0
	})
	var mu sync.Mutex
	var captured []*view.Captured
	hello := make(chan struct{})
	go d.client.Watch(ctx, "", func(ev apitype.Event) error {
		if ev.Type == apitype.EventHello {
			close(hello)
		}
		p, err := ev.Payload()
		if c, ok := p.(*view.Captured); ok && err == nil {
			mu.Lock()
			captured = append(captured, c)
			mu.Unlock()
		}
		return nil
	})
	<-hello

	elsewhere := t.TempDir()
	cli := append(append([]string{}, env...),
		"POND_DATA_DIR="+filepath.Join(elsewhere, "data"), "POND_STATE_DIR="+filepath.Join(elsewhere, "state"))
	routes := func(want ...string) {
		t.Helper()
		for _, r := range want {
			if !strings.Contains(d.log.String(), "path="+r+" ") {
				t.Errorf("the daemon's log names no request to %s", r)
			}
		}
	}

	// Export through the daemon; the same archive under a new session id is what is imported.
	const id = "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b"
	export, code := run(t, bin, cli, "export", "--session", id)
	if code != 0 || !strings.Contains(export, `"kind":"session"`) {
		t.Fatalf("export through the daemon exited %d:\n%s", code, export)
	}
	const copyID = "0b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8"
	file := filepath.Join(t.TempDir(), "copy.jsonl")
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(export, id, copyID)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := run(t, bin, cli, "import", file)
	if code != 0 || !strings.Contains(out, "1 sessions") {
		t.Fatalf("import through the daemon exited %d:\n%s", code, out)
	}
	if n := sqlCount(t, d.client, "SELECT count(*) AS n FROM sessions WHERE session_id = '"+copyID+"'"); n != 1 {
		t.Errorf("the daemon's archive holds %d copies of the imported session, want 1", n)
	}
	// The daemon published the capture before it answered; the stream may still be on its way.
	waitFor(t, "sessions_captured from the import", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range captured {
			if c.Source == "import" && c.Inserted.Sessions == 1 {
				return true
			}
		}
		return false
	})

	// SQL answers from the daemon's mirror, inline and to a file.
	out, code = run(t, bin, cli, "sql", "--format", "json", "SELECT count(*) AS n FROM sessions WHERE session_id = '"+copyID+"'")
	if code != 0 || !strings.Contains(out, `"n": 1`) {
		t.Fatalf("sql through the daemon exited %d:\n%s", code, out)
	}
	csv := filepath.Join(t.TempDir(), "sessions.csv")
	if _, code := run(t, bin, cli, "sql", "--format", "csv", "-o", csv, "SELECT session_id FROM sessions ORDER BY session_id"); code != 0 {
		t.Fatalf("sql --format csv through the daemon exited %d", code)
	}
	if b, err := os.ReadFile(csv); err != nil || !strings.Contains(string(b), copyID) {
		t.Errorf("the csv export holds %q, %v; want the imported session", b, err)
	}
	if _, code := run(t, bin, cli, "sql", "DELETE FROM sessions"); code != 2 {
		t.Errorf("a refused statement through the daemon exited %d, want 2", code)
	}
	if out, code := run(t, bin, cli, "mirror", "rebuild"); code != 0 {
		t.Fatalf("mirror rebuild through the daemon exited %d:\n%s", code, out)
	}
	if out, code := run(t, bin, cli, "doctor", "--verify"); code != 0 {
		t.Fatalf("doctor --verify through the daemon exited %d:\n%s", code, out)
	}
	routes("/v1/export", "/v1/import", "/v1/x/sql", "/v1/x/sql/export", "/v1/mirror/rebuild", "/v1/mirror/verify")

	// The CLI never opened an archive of its own: not its data directory, not the store lock.
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("the CLI wrote %v under its own directories; everything should have gone through the daemon", entries)
	}
}
