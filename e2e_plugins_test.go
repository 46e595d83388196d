package main

// pi-pond (installer/plugins) in Pi itself, against a real daemon: here, where a test may link
// the store, not under installer/ (which is vetted for every OS without cgo).

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/daemon/daemontest"
	"github.com/pondhq/pond/daemon/mcpserver"
	"github.com/pondhq/pond/installer/plugins"
	"github.com/pondhq/pond/internal/fakemodel"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
)

// The fixture session pond_search must find (adapters/claudecode/testdata/projects/-srv-demo).
const (
	piFixtureSession = "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b"
	piFixtureWords   = "calc_test.go fails"
)

// piCLI is Pi's CLI in the verify-agents install (scripts/verify-agents.sh sets POND_VERIFY_AGENTS).
func piCLI(t *testing.T) string {
	dir := os.Getenv("POND_VERIFY_AGENTS")
	if dir == "" {
		t.Skip("POND_VERIFY_AGENTS is not set: make verify-agents installs Pi and runs this")
	}
	pi := filepath.Join(dir, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js")
	if _, err := os.Stat(pi); err != nil {
		t.Fatal(err)
	}
	return pi
}

// TestPiHost loads pi-pond, as pond install writes it, into Pi itself (print mode, offline) with
// a fake model that asks for pond_search, against a real daemon serving the Claude Code fixtures
// on its MCP socket; the tool result Pi sends back to the model must name the fixture session.
// With no daemon, the result must say how to start it.
func TestPiHost(t *testing.T) {
	pi := piCLI(t)
	s := daemontest.Start(t, "adapters/claudecode/testdata/projects")
	ctx := context.Background()
	if _, err := s.Client.SetConsent(ctx, &apitype.Consent{Capture: "granted"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client.Sync(ctx, &apitype.SyncRequest{}); err != nil {
		t.Fatal(err)
	}
	piServeMCP(t, s)

	call, _ := json.Marshal(map[string]any{"query": piFixtureWords})
	fake := fakemodel.New(fakemodel.Script{Conversations: []fakemodel.Conversation{{
		Replies: []fakemodel.Reply{{Calls: []fakemodel.ToolCall{{Name: "pond_search", Args: call}}}, {Text: "done"}},
	}}})
	hs := httptest.NewServer(fake)
	t.Cleanup(hs.Close)

	t.Run("daemon", func(t *testing.T) {
		got := piToolResult(t, pi, hs.URL, fake, s.Dirs.Runtime.Path)
		t.Logf("pond_search in Pi:\n%s", got)
		if !strings.Contains(got, piFixtureSession) {
			t.Fatalf("pond_search's result in Pi does not name %s:\n%s", piFixtureSession, got)
		}
	})
	t.Run("no daemon", func(t *testing.T) {
		got := piToolResult(t, pi, hs.URL, fake, t.TempDir())
		t.Logf("pond_search in Pi, no daemon:\n%s", got)
		if !strings.Contains(got, "daemon is not running") || !strings.Contains(got, "pond service start") {
			t.Fatalf("with no daemon, pond_search's result in Pi does not say how to start it:\n%s", got)
		}
	})
}

// piServeMCP serves the daemon's MCP server on mcp.sock beside its API socket, as pond daemon does.
func piServeMCP(t *testing.T, s *daemontest.Served) {
	ln, err := ipc.Listen(ipc.MCPSocket(s.Dirs.Runtime.Path), ipc.ListenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); mcpserver.ServeListener(ctx, ln, mcpserver.New(s.Client, "test", nil), nil) }()
	t.Cleanup(func() { cancel(); <-done })
}

// piHome is a fresh HOME with pi-pond installed in Pi's agent directory, as pond install
// writes it, and the fake model as Pi's only provider.
func piHome(t *testing.T, model string) string {
	home := t.TempDir()
	agent := filepath.Join(home, ".pi", "agent")
	if err := plugins.WritePi(plugins.PiDir(agent)); err != nil {
		t.Fatal(err)
	}
	models := `{"providers":{"pond-fake":{"baseUrl":"` + model + `/v1","api":"openai-completions","apiKey":"pond-fake-key",` +
		`"compat":{"supportsDeveloperRole":false,"supportsReasoningEffort":false},"models":[{"id":"fake","reasoning":false}]}}}`
	if err := os.WriteFile(filepath.Join(agent, "models.json"), []byte(models), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

func piEnv(home, runtime string) []string {
	return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "POND_RUNTIME_DIR=" + runtime}
}

// piToolResult runs `pi -p` with pi-pond installed and the daemon's runtime directory runtime,
// and returns the tool result Pi sent to the model.
func piToolResult(t *testing.T, pi, model string, fake *fakemodel.Server, runtime string) string {
	home := piHome(t, model)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a bound on a hang
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", pi, "--offline", "--no-session", "--provider", "pond-fake", "--model", "fake",
		"-p", "What did we decide when "+piFixtureWords+"? Use pond_search.")
	cmd.Dir = t.TempDir()
	cmd.Env = piEnv(home, runtime)
	fake.Requests() // forget earlier runs'
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pi: %v\n%s", err, out)
	}
	for _, r := range fake.Requests() {
		msgs, err := r.Conversation()
		if err != nil {
			continue
		}
		for _, m := range msgs {
			for _, res := range m.Results {
				return res.Text
			}
		}
	}
	t.Fatalf("Pi sent the model no tool result; pi printed:\n%s", out)
	return ""
}

// TestPiConsent starts Pi in RPC mode (a UI: the client answers its dialogs) against a daemon
// that was never asked for consent: pi-pond asks once, the answer is recorded for Pi through the
// daemon (and becomes the global one, which was not asked), Pi's adapter is enabled (piRPC
// waits for it, within its bound), and the
// footer says pond is ready. A second start finds the answer and asks nothing.
func TestPiConsent(t *testing.T) {
	pi := piCLI(t)
	s := daemontest.Start(t, "")
	piServeMCP(t, s)
	hs := httptest.NewServer(fakemodel.New(fakemodel.Script{}))
	t.Cleanup(hs.Close)
	home := piHome(t, hs.URL)
	ctx := context.Background()

	asked, statuses := piRPC(t, pi, home, s.Dirs.Runtime.Path, func() bool { return piEnabled(t, s) })
	if len(asked) != 1 || asked[0] != "Capture Pi sessions into your Pond archive?" {
		t.Fatalf("pi-pond asked %q, want the consent question once", asked)
	}
	if !slices.Contains(statuses, "pond ready") {
		t.Errorf("footer statuses %q, want pond ready", statuses)
	}
	c, err := s.Client.Consent(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Agents["pi-coding-agent"] != "granted" || c.Capture != "granted" {
		t.Errorf("consent after the answer: %+v, want granted for Pi and globally (it was not asked)", c)
	}

	again, _ := piRPC(t, pi, home, s.Dirs.Runtime.Path, func() bool { return true })
	if len(again) != 0 {
		t.Errorf("asked again after an answer: %q", again)
	}
}

// piEnabled says whether the daemon captures Pi's sessions: its adapter enabled.
func piEnabled(t *testing.T, s *daemontest.Served) bool {
	ad, err := s.Client.Adapters(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range ad.Adapters {
		if a.Name == "pi-coding-agent" {
			return a.Enabled
		}
	}
	return false
}

// piRPC runs `pi --mode rpc`, answers yes to every confirm, and stops it once done holds (or,
// at the latest, when a get_state command has been answered after done held). It returns the
// titles of the confirms and the footer statuses pi-pond set.
func piRPC(t *testing.T, pi, home, runtime string, done func() bool) (asked, statuses []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a bound on a hang
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", pi, "--offline", "--no-session", "--provider", "pond-fake", "--model", "fake", "--mode", "rpc")
	cmd.Dir = t.TempDir()
	cmd.Env = piEnv(home, runtime)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Process.Kill(); cmd.Wait() }()
	send := func(v any) {
		b, _ := json.Marshal(v)
		in.Write(append(b, '\n'))
	}
	// get_state is answered once Pi's session has started; each answer asks again until done.
	send(map[string]any{"type": "get_state", "id": "state"})
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m struct {
			Type, ID, Method, Title, StatusKey, StatusText string
			Command                                        string `json:"command"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Type == "extension_ui_request" && m.Method == "confirm":
			asked = append(asked, m.Title)
			send(map[string]any{"type": "extension_ui_response", "id": m.ID, "confirmed": true})
		case m.Type == "extension_ui_request" && m.Method == "setStatus" && m.StatusKey == "pond":
			statuses = append(statuses, m.StatusText)
		case m.Type == "response" && m.ID == "state":
			if done() {
				return asked, statuses
			}
			time.Sleep(100 * time.Millisecond) // polling the daemon, not a measure of speed
			send(map[string]any{"type": "get_state", "id": "state"})
		}
	}
	t.Fatalf("pi's RPC output ended before the test was done: %v\n%s", sc.Err(), stderr.String())
	return nil, nil
}
