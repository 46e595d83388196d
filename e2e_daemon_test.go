package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// daemonProc is a `pond daemon` child process.
type daemonProc struct {
	cmd    *exec.Cmd
	log    *bytes.Buffer
	client *ipc.Client
	done   chan error
}

// startDaemon starts the real daemon in env and waits until its API answers.
func startDaemon(t testing.TB, bin string, env []string, home string, args ...string) *daemonProc {
	t.Helper()
	d := &daemonProc{log: &bytes.Buffer{}, done: make(chan error, 1)}
	d.cmd = exec.Command(bin, append([]string{"daemon", "--log-level", "debug"}, args...)...)
	d.cmd.Env = env
	d.cmd.Stderr = &lockedWriter{w: d.log}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.done <- d.cmd.Wait() }()
	t.Cleanup(func() {
		d.cmd.Process.Kill()
		<-d.done
		if t.Failed() {
			t.Logf("daemon log:\n%s", d.log.String())
		}
	})
	d.client = ipc.NewClient(ipc.APISocket(filepath.Join(home, "run", "pond")))
	waitFor(t, "the daemon's API", func() bool {
		_, err := d.client.Status(context.Background())
		return err == nil
	})
	return d
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// waitFor polls cond for up to 30 seconds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func sqlCount(t *testing.T, c *ipc.Client, q string) int {
	t.Helper()
	res, err := c.SQL(context.Background(), &apitype.SQLRequest{Query: q})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	n, _ := res.Rows[0]["n"].(float64)
	return int(n)
}

// writeSession writes a copy of the fixture session under a new id into dir.
func writeSession(t *testing.T, dir, id string) {
	t.Helper()
	const fixtureID = "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b"
	b, err := os.ReadFile("adapters/claudecode/testdata/projects/-srv-demo/" + fixtureID + ".jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), bytes.ReplaceAll(b, []byte(fixtureID), []byte(id)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDaemonEndToEnd runs the real daemon in an isolated home: start-up capture, the CLI going
// through it, live capture of a new session file, MCP through `pond mcp` with the Go SDK and
// the npm SDK, a second daemon refused, and a clean stop on SIGTERM.
func TestDaemonEndToEnd(t *testing.T) {
	bin := pondBinary(t)
	home, env := isolatedHome(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if out, code := run(t, bin, env, "consent", "grant"); code != 0 {
		t.Fatalf("consent grant: %d %s", code, out)
	}
	d := startDaemon(t, bin, env, home)

	for path, want := range map[string]os.FileMode{"run/pond": 0o700, "run/pond/pond.sock": 0o600, "run/pond/mcp.sock": 0o600} {
		if st, err := os.Stat(filepath.Join(home, path)); err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: %v, %v; want mode %v", path, st.Mode().Perm(), err, want)
		}
	}
	// Start-up capture: consent is granted, so the daemon enables Claude Code and syncs.
	waitFor(t, "the start-up sync", func() bool {
		st, err := d.client.Status(ctx)
		return err == nil && st.Sessions > 0 && st.Daemon != nil
	})

	var mu sync.Mutex
	var seen []apitype.Event
	go d.client.Watch(ctx, "", func(ev apitype.Event) error {
		mu.Lock()
		seen = append(seen, ev)
		mu.Unlock()
		return nil
	})
	saw := func(typ string) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, ev := range seen {
			if ev.Type == typ {
				return true
			}
		}
		return false
	}
	waitFor(t, "the watch stream", func() bool { return saw(apitype.EventHello) })

	// A second daemon refuses to start while this one answers.
	if out, code := run(t, bin, env, "daemon"); code != 1 {
		t.Errorf("second daemon exited %d: %s", code, out)
	}

	// CLI writes go through the daemon: the daemon's own event stream reports them.
	if out, code := run(t, bin, env, "consent", "grant"); code != 0 {
		t.Fatalf("consent grant via daemon: %d %s", code, out)
	}
	waitFor(t, "consent_changed from the daemon", func() bool { return saw(apitype.EventConsent) })
	out, code := run(t, bin, env, "sync", "--format", "json")
	if code != 0 || !strings.Contains(out, `"outcome": "ok"`) {
		t.Fatalf("pond sync via daemon: %d %s", code, out)
	}
	waitFor(t, "sync_finished from the daemon", func() bool { return saw(apitype.EventSyncFinished) })
	if out, code := run(t, bin, env, "status", "--format", "json"); code != 0 || !strings.Contains(out, `"daemon"`) {
		t.Fatalf("status via daemon: %d %s", code, out)
	}

	// Live capture: a new session in a new project folder is captured without a sync command.
	const liveID = "0e0e0e0e-1111-4222-8333-444444444444"
	writeSession(t, filepath.Join(home, ".claude", "projects", "-srv-live"), liveID)
	waitFor(t, "the new session to be searchable", func() bool {
		res, err := d.client.Search(ctx, &apitype.SearchRequest{SearchRequest: view.SearchRequest{Query: "calc_test", Filters: view.SearchFilters{SessionID: liveID}}})
		return err == nil && len(res.Sessions) == 1
	})
	if out, code := run(t, bin, env, "search", "calc_test", "--session", liveID, "--format", "json"); code != 0 || !strings.Contains(out, liveID) {
		t.Fatalf("pond search through the daemon: %d %s", code, out)
	}

	// MCP through `pond mcp`, with the Go SDK.
	cmd := exec.Command(bin, "mcp")
	cmd.Env = env
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 5 {
		t.Fatalf("tools: %+v, %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pond_sql", Arguments: map[string]any{"query": "SELECT count(*) AS n FROM sessions WHERE session_id = '" + liveID + "'"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "1 rows") {
		t.Fatalf("pond_sql through pond mcp: %+v, %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "pond_sql", Arguments: map[string]any{"query": "UPDATE sessions SET project = 'x'"}})
	if err != nil || !res.IsError {
		t.Fatalf("a write through pond_sql: %+v, %v; want a tool error", res, err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "pond_nope"})
	if _, ok := err.(*jsonrpc.Error); err == nil || !ok && !strings.Contains(err.Error(), "unknown tool") {
		t.Fatalf("unknown tool: %v, want a JSON-RPC error", err)
	}
	cs.Close()

	// MCP through `pond mcp`, with the official TypeScript SDK from npm.
	t.Run("npm_client", func(t *testing.T) {
		dir := npmClientDir(t)
		// The client script is the repository's; the cache holds its node_modules.
		script, err := os.ReadFile("scripts/mcpclient/client.mjs")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "client.mjs"), script, 0o644); err != nil {
			t.Fatal(err)
		}
		node := exec.Command("node", filepath.Join(dir, "client.mjs"), bin, "mcp")
		node.Env = env
		var stderr bytes.Buffer
		node.Stderr = &stderr
		out, err := node.Output()
		if err != nil {
			t.Fatalf("npm client: %v\n%s", err, stderr.String())
		}
		var got struct {
			Server struct{ Name string }
			Tools  []struct {
				Name     string
				ReadOnly bool
			}
			Resources []string
			Status    struct {
				IsError bool
				Text    string
			}
			SQL        struct{ IsError bool }
			Search     struct{ IsError bool }
			GetSession struct{ IsError bool }
			GetMessage struct {
				IsError bool
				ID      string
				Text    string
			}
			ToolError struct{ IsError bool }
			Stats     struct{ Corpus struct{ Sessions int } }
			RPCError  *struct{ Code int }
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("npm client output %s: %v", out, err)
		}
		if got.Server.Name != "pond" || len(got.Tools) != 5 || !got.Tools[0].ReadOnly || len(got.Resources) != 3 ||
			got.Status.IsError || got.SQL.IsError || got.Search.IsError || got.GetSession.IsError || got.GetMessage.IsError ||
			got.GetMessage.ID == "" || !strings.Contains(got.GetMessage.Text, got.GetMessage.ID) || !got.ToolError.IsError || got.Stats.Corpus.Sessions == 0 || got.RPCError == nil {
			t.Fatalf("npm client saw %s", out)
		}
	})

	// SIGTERM: a clean exit, the sockets removed.
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-d.done:
		if err != nil {
			t.Fatalf("daemon exit after SIGTERM: %v", err)
		}
		d.done <- nil
	case <-time.After(2 * time.Minute): // a bound on a hang, not a measure of speed
		t.Fatal("the daemon did not stop on SIGTERM")
	}
	for _, s := range []string{"pond.sock", "mcp.sock"} {
		if _, err := os.Lstat(filepath.Join(home, "run", "pond", s)); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", s, err)
		}
	}
	// Without a daemon, pond mcp says what to do.
	if out, code := run(t, bin, env, "mcp"); code == 0 {
		t.Errorf("pond mcp without a daemon exited 0: %s", out)
	}
}

// npmClientDir is where scripts/mcpclient.sh installed the npm MCP client for the current
// lock file, or skips.
func npmClientDir(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed (scripts/apt.sh)")
	}
	lock, err := os.ReadFile("scripts/mcpclient/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(lock)
	cache := os.Getenv("POND_CACHE_DIR")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			base = filepath.Join(os.Getenv("HOME"), ".cache")
		}
		cache = filepath.Join(base, "pond")
	}
	dir := filepath.Join(cache, "mcpclient", hex.EncodeToString(sum[:])[:16])
	if _, err := os.Stat(filepath.Join(dir, ".installed")); err != nil {
		t.Skipf("the npm MCP client is not installed in %s: run scripts/mcpclient.sh (make setup does)", dir)
	}
	return dir
}

// TestDaemonKilledMidSync kills the daemon with SIGKILL while it captures, restarts it and
// checks the archive converges: every session stored once, nothing lost, the mirror in step.
func TestDaemonKilledMidSync(t *testing.T) {
	bin := pondBinary(t)
	home, env := isolatedHome(t)
	const n = 300
	gen := filepath.Join(home, ".claude", "projects", "-srv-gen")
	for i := range n {
		writeSession(t, gen, fmt.Sprintf("9d9d9d9d-0000-4000-8000-%012d", i))
	}
	run(t, bin, env, "consent", "grant")
	killMidSync(t, startDaemon(t, bin, env, home), n, time.Minute)
	d := startDaemon(t, bin, env, home)
	if out, code := run(t, bin, env, "sync", "--format", "json"); code != 0 {
		t.Fatalf("sync after restart: %d %s", code, out)
	}
	if got := sqlCount(t, d.client, "SELECT count(*) AS n FROM sessions WHERE project = '/srv/demo' AND session_id LIKE '9d9d9d9d-%'"); got != n {
		t.Errorf("generated sessions stored: %d, want %d", got, n)
	}
	perSession := sqlCount(t, d.client, "SELECT count(*) AS n FROM messages WHERE session_id = '7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b'")
	if got := sqlCount(t, d.client, "SELECT count(*) AS n FROM messages WHERE session_id LIKE '9d9d9d9d-%'"); got != n*perSession {
		t.Errorf("generated messages: %d, want %d (%d per session)", got, n*perSession, perSession)
	}
	if got := sqlCount(t, d.client, "SELECT count(*) - count(DISTINCT session_id || '/' || message_id || '/' || id) AS n FROM parts"); got != 0 {
		t.Errorf("%d duplicate parts", got)
	}
	if out, code := run(t, bin, env, "doctor", "--verify", "--format", "json"); code != 0 {
		t.Errorf("doctor --verify after the kill: %s", out)
	}
}

// killMidSync kills d (-9) once its start-up sync has stored some of its n sessions but not
// all, or when it has stored them all, or after wait.
func killMidSync(t *testing.T, d *daemonProc, n int, wait time.Duration) {
	t.Helper()
	killed := false
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		got := sqlCount(t, d.client, "SELECT count(*) AS n FROM sessions")
		if got > 0 && got < n {
			killed = true
			break
		}
		if got >= n {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	d.cmd.Process.Kill()
	<-d.done
	d.done <- nil
	if !killed {
		t.Log("the sync finished before the kill; the restart still has to converge")
	}
}

// TestDaemonMemoryCeiling: past its memory ceiling the daemon exits with code 75, for the
// service manager to restart it, and leaves no socket behind.
func TestDaemonMemoryCeiling(t *testing.T) {
	bin := pondBinary(t)
	home, env := isolatedHome(t)
	d := startDaemon(t, bin, env, home, "--memory-ceiling", "1000000")
	select {
	case err := <-d.done:
		d.done <- err
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 75 {
			t.Fatalf("exit: %v, want code 75", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the daemon did not exit past its ceiling")
	}
	if _, err := os.Lstat(filepath.Join(home, "run", "pond", "pond.sock")); !os.IsNotExist(err) {
		t.Errorf("pond.sock left behind: %v", err)
	}
}
