package main

// hermes-pond (installer/plugins) in Hermes Agent itself, against a real daemon: here, where a
// test may link the store, beside pi-pond's host tests.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pondhq/pond/daemon/daemontest"
	"github.com/pondhq/pond/installer/plugins"
	"github.com/pondhq/pond/ipc/apitype"
)

// hermesPython is the Python of the venv Hermes Agent is installed in (scripts/hermes-venv.sh;
// scripts/verify-agents.sh sets POND_HERMES_VENV to it).
func hermesPython(t *testing.T) string {
	dir := os.Getenv("POND_HERMES_VENV")
	if dir == "" {
		t.Skip("POND_HERMES_VENV is not set: make verify-agents makes Hermes's venv (scripts/hermes-venv.sh) and runs this")
	}
	py := filepath.Join(dir, "bin", "python")
	if _, err := os.Stat(py); err != nil {
		t.Fatalf("POND_HERMES_VENV=%s has no bin/python: %v", dir, err)
	}
	return py
}

// hermesDriver runs inside Hermes's venv: Hermes's own plugin manager discovers and loads the
// user plugins of HERMES_HOME (only those its config.yaml enables), then each call on stdin
// goes through Hermes's tool registry, with POND_RUNTIME_DIR set for it. It prints one marked
// JSON line: the plugin as Hermes loaded it, and each call's answer.
const hermesDriver = `
import json, os, sys
from hermes_cli.plugins import get_plugin_manager
m = get_plugin_manager()
m.discover_and_load()
p = m._plugins.get("pond")
out = {"loaded": bool(p and p.enabled), "error": (p.error if p else "no plugin named pond was found"),
       "tools": sorted(p.tools_registered) if p else []}
from tools.registry import registry
out["toolset"] = registry.get_toolset_for_tool("pond_search")
out["answers"] = []
for name, args, runtime in json.load(sys.stdin):
    os.environ["POND_RUNTIME_DIR"] = runtime
    out["answers"].append(registry.dispatch(name, args, task_id="pond-test"))
print("POND-HERMES " + json.dumps(out))
`

type hermesCall struct {
	name    string
	args    map[string]any
	runtime string
}

type hermesRun struct {
	Loaded  bool
	Error   *string
	Tools   []string
	Toolset *string
	Answers []string
}

// hermesHome is a fresh HOME whose Hermes home holds hermes-pond as pond install writes it:
// the plugin's folder, and config.yaml enabling it (installer's golden testdata/hermes/new).
func hermesHome(t *testing.T) (home, hermes string) {
	home = t.TempDir()
	hermes = filepath.Join(home, ".hermes")
	if err := plugins.Write(plugins.Hermes, plugins.HermesDir(hermes)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hermes, "config.yaml"), []byte("plugins:\n  enabled:\n  - pond\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, hermes
}

// runHermes loads the plugins of the Hermes home in Hermes and makes the calls through its
// registry.
func runHermes(t *testing.T, py, home, hermes string, calls []hermesCall) hermesRun {
	var in [][]any
	for _, c := range calls {
		in = append(in, []any{c.name, c.args, c.runtime})
	}
	stdin, _ := json.Marshal(in)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a bound on a hang
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "-c", hermesDriver)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + hermes, "PATH=" + os.Getenv("PATH"),
		"PYTHONDONTWRITEBYTECODE=1", "HERMES_PLUGINS_DEBUG=1", "NO_COLOR=1"}
	cmd.Stdin = strings.NewReader(string(stdin))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hermes: %v\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if j, ok := strings.CutPrefix(l, "POND-HERMES "); ok {
			var r hermesRun
			if err := json.Unmarshal([]byte(j), &r); err != nil {
				t.Fatalf("%v: %s", err, j)
			}
			if !r.Loaded {
				t.Fatalf("Hermes did not load hermes-pond (%v); its output:\n%s", r.Error, out)
			}
			return r
		}
	}
	t.Fatalf("no answer from the driver:\n%s", out)
	return hermesRun{}
}

// hermesAnswer is a tool's answer as hermes-pond gives it to Hermes.
type hermesAnswer struct {
	Status, Text, Error string
}

func decodeAnswer(t *testing.T, raw string) hermesAnswer {
	t.Helper()
	var a hermesAnswer
	if err := json.Unmarshal([]byte(raw), &a); err != nil || a.Status != "ok" && a.Status != "error" {
		t.Fatalf("not hermes-pond's JSON (%v): %s", err, raw)
	}
	return a
}

// TestHermesHost loads hermes-pond, as pond install writes it, with Hermes's own plugin manager
// from a temporary home, and calls its tools through Hermes's registry.dispatch against a real
// daemon serving the Claude Code fixtures on its MCP socket: pond_search finds the fixture
// session, pond_get_session and pond_sql answer, a call past the bounds is refused by the plugin,
// a message larger than the response budget comes back clipped on a character boundary with
// the note, and with no daemon the answer says how to start it. A home whose config does not
// enable pond loads no tool of Pond's.
func TestHermesHost(t *testing.T) {
	py := hermesPython(t)
	s := daemontest.Start(t, "adapters/claudecode/testdata/projects")
	ctx := context.Background()
	if _, err := s.Client.SetConsent(ctx, &apitype.Consent{Capture: "granted"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client.Sync(ctx, &apitype.SyncRequest{}); err != nil {
		t.Fatal(err)
	}
	// A message past the 32 KiB budget, in three-byte characters so a cut may land mid-character.
	big := strings.Repeat("€", 20_000)
	ev := func(v any) json.RawMessage { b, _ := json.Marshal(v); return b }
	resp, err := s.Client.Ingest(ctx, &apitype.IngestRequest{Events: []json.RawMessage{
		ev(map[string]any{"kind": "session", "id": "hermes-big", "source_agent": "api-test", "project": "/p", "created_at": "2026-01-02T03:04:05Z"}),
		ev(map[string]any{"kind": "message", "session_id": "hermes-big", "id": "hermes-big-m1", "role": "user", "timestamp": "2026-01-02T03:04:06Z"}),
		ev(map[string]any{"kind": "part", "session_id": "hermes-big", "message_id": "hermes-big-m1", "id": "p1", "ordinal": 0, "type": "text", "provenance": "conversational", "text": big}),
	}})
	if err != nil || resp.Accepted != 3 {
		t.Fatalf("ingest: %+v, %v", resp, err)
	}
	piServeMCP(t, s)

	home, hermes := hermesHome(t)
	rt, down := s.Dirs.Runtime.Path, t.TempDir()
	start := time.Now()
	r := runHermes(t, py, home, hermes, []hermesCall{
		{"pond_search", map[string]any{"query": piFixtureWords}, rt},
		{"pond_get_session", map[string]any{"id": piFixtureSession, "from": "end", "limit": 5}, rt},
		{"pond_sql", map[string]any{"query": "SELECT count(*) AS n FROM sessions"}, rt},
		{"pond_search", map[string]any{"query": "x", "limit": 26}, rt},
		{"pond_get_message", map[string]any{"id": "hermes-big-m1", "context_before": 0, "context_after": 0}, rt},
		{"pond_search", map[string]any{"query": piFixtureWords}, down},
	})
	t.Logf("Hermes loaded hermes-pond and made 6 calls in %v", time.Since(start).Round(time.Millisecond))
	if got := strings.Join(r.Tools, " "); got != "pond_get_message pond_get_session pond_search pond_sql" {
		t.Errorf("tools Hermes registered for pond: %q", got)
	}
	if r.Toolset == nil || *r.Toolset != "pond" {
		t.Errorf("pond_search's toolset: %v, want pond", r.Toolset)
	}
	if len(r.Answers) != 6 {
		t.Fatalf("%d answers, want 6", len(r.Answers))
	}
	a := make([]hermesAnswer, len(r.Answers))
	for i, raw := range r.Answers {
		a[i] = decodeAnswer(t, raw)
	}
	t.Logf("pond_search in Hermes:\n%s", a[0].Text)
	if a[0].Status != "ok" || !strings.Contains(a[0].Text, piFixtureSession) {
		t.Errorf("pond_search does not name %s: %+v", piFixtureSession, a[0])
	}
	if a[1].Status != "ok" || a[1].Text == "" {
		t.Errorf("pond_get_session: %+v", a[1])
	}
	if a[2].Status != "ok" || !strings.Contains(a[2].Text, "(1 rows") {
		t.Errorf("pond_sql: %+v", a[2])
	}
	if a[3].Status != "error" || !strings.Contains(a[3].Error, "limit must be a whole number from 1 to 25") {
		t.Errorf("pond_search past its bounds: %+v", a[3])
	}
	note := "[pond: response truncated to 32768 bytes; narrow the query or lower limit]"
	if m := a[4]; m.Status != "ok" || len(m.Text) > 32*1024 || len(m.Text) < 32*1024-200 || !strings.HasSuffix(m.Text, "\n"+note) || !utf8.ValidString(m.Text) || !strings.Contains(m.Text, "€€€") {
		t.Errorf("a message past the budget: %d bytes, valid UTF-8 %v, ends %q", len(m.Text), utf8.ValidString(m.Text), m.Text[max(0, len(m.Text)-120):])
	}
	if d := a[5]; d.Status != "error" || !strings.Contains(d.Error, "daemon is not running") || !strings.Contains(d.Error, "pond service start") {
		t.Errorf("with no daemon, the answer does not say how to start it: %+v", d)
	}

	// Not named in plugins.enabled: Hermes loads the folder's plugin not at all.
	os.WriteFile(filepath.Join(hermes, "config.yaml"), []byte("plugins:\n  enabled: []\n"), 0o600)
	cmd := exec.Command(py, "-c", `from hermes_cli.plugins import get_plugin_manager
m = get_plugin_manager(); m.discover_and_load()
from tools.registry import registry
print("POND-TOOLSET", registry.get_toolset_for_tool("pond_search"), m._plugins["pond"].enabled)`)
	cmd.Dir, cmd.Env = t.TempDir(), []string{"HOME=" + home, "HERMES_HOME=" + hermes, "PATH=" + os.Getenv("PATH"), "PYTHONDONTWRITEBYTECODE=1"}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprint("POND-TOOLSET None False")) {
		t.Errorf("with pond not enabled (%v):\n%s", err, out)
	}
}
