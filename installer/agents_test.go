package installer

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/assets"
	"github.com/pondhq/pond/installer/service"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/mcp")

const testExe = "/opt/pond/bin/pond"

// fakeEnv is a home of its own with no agent command on PATH, so the installer edits files.
func fakeEnv(t *testing.T) (*Options, string) {
	t.Helper()
	home := t.TempDir()
	o := &Options{Exe: testExe, MCP: true,
		Env:      adapters.Env{GOOS: "linux", Home: home, Getenv: func(string) string { return "" }},
		LookPath: func(string) (string, error) { return "", errors.New("not on PATH") }}
	return o, home
}

func targetOf(t *testing.T, o *Options, agent string) target {
	t.Helper()
	ts, err := o.targets([]string{agent})
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}

// TestConfigGolden registers Pond in each agent's config file by editing it, from the files in
// testdata/mcp/<agent>-<case>.txtar: "before" (none: no file), then after install, a second
// install (which must change nothing) and uninstall, the outcomes and the files. A case ending
// in -crlf is run with its before file's line endings made CRLF, and must keep them; one ending
// in -windows registers a Windows path to pond.exe; one ending in -nonewline has its before
// file's final newline taken off.
func TestConfigGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "mcp", "*.txtar"))
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			sections := readTxtar(t, file)
			crlf := strings.HasSuffix(name, "-crlf")
			o, _ := fakeEnv(t)
			if strings.HasSuffix(name, "-windows") {
				// The command as Windows spells it: backslashes and a drive, escaped by each format.
				o.Exe, o.Env.GOOS = `C:\Users\Ada Lovelace\AppData\Local\Programs\Pond\pond.exe`, "windows"
			}
			agent, _, _ := strings.Cut(name, "-")
			agent = map[string]string{"claude": "claude-code", "codex": "codex-cli", "copilot": "copilot-cli", "gemini": "gemini-cli", "opencode": "opencode", "qwen": "qwen-code", "cline": "cline", "roo": "roo-code", "kilo": "kilo", "cursor": "cursor", "goose": "goose"}[agent]
			tg := targetOf(t, o, agent)
			path, _ := configFile(o.env(), tg.in.MCP)
			before, hasBefore := sections["before"]
			if hasBefore {
				if crlf {
					before = strings.ReplaceAll(before, "\n", "\r\n")
				}
				if strings.HasSuffix(name, "-nonewline") {
					before = strings.TrimSuffix(before, "\n")
				}
				os.MkdirAll(filepath.Dir(path), 0o700)
				if err := os.WriteFile(path, []byte(before), 0o640); err != nil {
					t.Fatal(err)
				}
			}
			got := map[string]string{}
			var outcomes []string
			readBack := func() string {
				b, err := os.ReadFile(path)
				if err != nil {
					return "(no file)\n"
				}
				if crlf {
					if bytes.Contains(bytes.ReplaceAll(b, []byte("\r\n"), nil), []byte("\n")) {
						t.Errorf("a bare LF in a CRLF file:\n%q", b)
					}
					b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
				}
				return string(b)
			}
			step := func(label string, argv []string) {
				a := o.setEntry(context.Background(), tg, argv)
				line := label + ": " + a.Outcome
				if a.Error != "" {
					line += ": " + strings.ReplaceAll(a.Error, path, "$CONFIG")
				}
				outcomes = append(outcomes, line)
			}
			step("install", o.argv())
			got["install"] = readBack()
			step("reinstall", o.argv())
			if again := readBack(); again != got["install"] {
				t.Errorf("a second install changed the file:\n%s", again)
			}
			step("uninstall", nil)
			got["uninstall"] = readBack()
			got["outcomes"] = strings.Join(outcomes, "\n") + "\n"
			if hasBefore && got["install"] != strings.ReplaceAll(before, "\r\n", "\n") {
				if bak, err := os.ReadFile(path + ".bak"); err != nil {
					t.Errorf("no backup after an edit: %v", err)
				} else if !strings.HasPrefix(got["outcomes"], "install: failed") && len(bak) == 0 && len(before) > 0 {
					t.Error("empty backup")
				}
			}
			if hasBefore && strings.HasPrefix(got["outcomes"], "install: failed") && readBack() != strings.ReplaceAll(before, "\r\n", "\n") {
				t.Error("a refused config was changed")
			}
			if st, err := os.Stat(path); err == nil && hasBefore && st.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want the file's own 0640", st.Mode().Perm())
			}

			if *update {
				sections["install"], sections["uninstall"], sections["outcomes"] = got["install"], got["uninstall"], got["outcomes"]
				writeTxtar(t, file, sections)
				return
			}
			for _, k := range []string{"outcomes", "install", "uninstall"} {
				if diff := cmp.Diff(sections[k], got[k]); diff != "" {
					t.Errorf("%s (-want +got; go test -update rewrites):\n%s", k, diff)
				}
			}
		})
	}
}

// readTxtar reads a txtar file: a comment, then "-- name --" lines each starting a file.
func readTxtar(t *testing.T, file string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	name := "comment"
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "-- ") && strings.HasSuffix(l, " --") {
			name = strings.TrimSuffix(strings.TrimPrefix(l, "-- "), " --")
			out[name] = ""
			continue
		}
		out[name] += line
	}
	return out
}

func writeTxtar(t *testing.T, file string, sections map[string]string) {
	t.Helper()
	var b strings.Builder
	b.WriteString(sections["comment"])
	order := []string{"before", "outcomes", "install", "uninstall"}
	for _, k := range order {
		if v, ok := sections[k]; ok {
			b.WriteString("-- " + k + " --\n" + v)
		}
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAgentsStep runs the whole step: only detected agents are registered, the skill goes into
// Claude Code's skills folder, a dry run writes nothing, uninstall leaves the user's entries.
func TestAgentsStep(t *testing.T) {
	o, home := fakeEnv(t)
	ctx := context.Background()
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	os.MkdirAll(filepath.Join(home, ".codex"), 0o700)
	user := "[mcp_servers.mine]\ncommand = \"mine\"\n"
	os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte(user), 0o600)
	os.MkdirAll(filepath.Join(home, ".pi", "agent"), 0o700)
	os.MkdirAll(filepath.Join(home, ".hermes"), 0o700)
	gooseUser := "# mine\nextensions:\n  developer:\n    enabled: true\n    name: developer\n    type: builtin\n"
	gooseConfig := filepath.Join(home, ".config", "goose", "config.yaml")
	os.MkdirAll(filepath.Dir(gooseConfig), 0o700)
	os.WriteFile(gooseConfig, []byte(gooseUser), 0o600)

	dry := *o
	dry.DryRun = true
	st := installAgents(ctx, &dry)
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); !os.IsNotExist(err) {
		t.Fatal("a dry run wrote .claude.json")
	}
	if st.Outcome != service.OutcomeInstalled {
		t.Errorf("dry run: %+v", st)
	}

	st = installAgents(ctx, o)
	want := map[string]string{"claude-code": "installed", "codex-cli": "installed", "copilot-cli": "absent", "gemini-cli": "absent", "opencode": "absent", "pi-coding-agent": "installed", "qwen-code": "absent", "cline": "absent", "roo-code": "absent", "kilo": "absent", "cursor": "absent", "openclaw": "absent", "hermes": "installed", "goose": "installed", "aider": "skipped"}
	if diff := cmp.Diff(want, agentOutcomes(st)); diff != "" {
		t.Errorf("install (-want +got):\n%s\n%+v", diff, st)
	}
	skill := filepath.Join(home, ".claude", "skills", skillName, "SKILL.md")
	if b, err := os.ReadFile(skill); err != nil || !bytes.Equal(b, assets.RecallSkill) {
		t.Errorf("recall skill: %v", err)
	}
	piPond := filepath.Join(home, ".pi", "agent", "extensions", "pond", "index.ts")
	if _, err := os.Stat(piPond); err != nil {
		t.Errorf("Pi's plugin: %v", err)
	}
	hermesPond := filepath.Join(home, ".hermes", "plugins", "pond", "__init__.py")
	if _, err := os.Stat(hermesPond); err != nil {
		t.Errorf("Hermes's plugin: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".hermes", "config.yaml")); string(b) != "plugins:\n  enabled:\n  - pond\n" {
		t.Errorf("Hermes's config after install:\n%s", b)
	}
	if got := installAgents(ctx, o); got.Outcome != service.OutcomeUnchanged {
		t.Errorf("second install: %+v", got)
	}
	doc := map[string]string{}
	for _, a := range Agents(o.env(), o.Exe) {
		doc[a.Agent] = a.Outcome
	}
	if diff := cmp.Diff(map[string]string{"claude-code": "wired", "codex-cli": "wired", "copilot-cli": "skipped", "gemini-cli": "skipped", "opencode": "skipped", "pi-coding-agent": "wired", "qwen-code": "skipped", "cline": "skipped", "roo-code": "skipped", "kilo": "skipped", "cursor": "skipped", "openclaw": "skipped", "hermes": "wired", "goose": "wired", "aider": "skipped"}, doc); diff != "" {
		t.Errorf("doctor (-want +got):\n%s", diff)
	}
	moved := *o
	moved.Exe = "/usr/local/bin/pond"
	for _, a := range Agents(moved.env(), moved.Exe) {
		if a.Agent == "claude-code" || a.Agent == "goose" {
			if a.Outcome != Stale || a.Detail != "runs "+testExe+" mcp" {
				t.Errorf("doctor after the binary moved: %+v", a)
			}
		}
	}

	st = uninstallAgents(ctx, o)
	want = map[string]string{"claude-code": "removed", "codex-cli": "removed", "copilot-cli": "absent", "gemini-cli": "absent", "opencode": "absent", "pi-coding-agent": "removed", "qwen-code": "absent", "cline": "absent", "roo-code": "absent", "kilo": "absent", "cursor": "absent", "openclaw": "absent", "hermes": "removed", "goose": "removed", "aider": "absent"}
	if diff := cmp.Diff(want, agentOutcomes(st)); diff != "" {
		t.Errorf("uninstall (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".codex", "config.toml")); string(b) != user {
		t.Errorf("uninstall did not leave the user's config as it was:\n%s", b)
	}
	if b, _ := os.ReadFile(gooseConfig); string(b) != gooseUser {
		t.Errorf("uninstall did not leave goose's config as it was:\n%s", b)
	}
	for _, a := range Agents(o.env(), o.Exe) {
		if a.Agent == "goose" && (a.Outcome != service.OutcomeAbsent || a.Via != gooseConfig) {
			t.Errorf("doctor after uninstall: %+v", a)
		}
	}
	if _, err := os.Stat(filepath.Dir(skill)); !os.IsNotExist(err) {
		t.Error("uninstall left the recall skill")
	}
	if _, err := os.Stat(filepath.Dir(piPond)); !os.IsNotExist(err) {
		t.Error("uninstall left Pi's plugin")
	}
	if _, err := os.Stat(filepath.Dir(hermesPond)); !os.IsNotExist(err) {
		t.Error("uninstall left Hermes's plugin")
	}

	o.Agents = []string{"gemini-cli", "nope"}
	if st := installAgents(ctx, o); st.Outcome != OutcomeFailed || !strings.Contains(st.Error, `unknown agent "nope"`) {
		t.Errorf("--agents with an unknown name: %+v", st)
	}
	o.Agents = []string{"gemini-cli"}
	if st := installAgents(ctx, o); len(st.Agents) != 1 || st.Agents[0].Outcome != service.OutcomeInstalled {
		t.Errorf("--agents gemini-cli, not installed here: %+v", st)
	}
}

func agentOutcomes(st Step) map[string]string {
	out := map[string]string{}
	for _, a := range st.Agents {
		out[a.Agent] = a.Outcome
	}
	return out
}

// TestAgentCommand uses the agent's own command when it is on PATH: a fake claude that records
// its argv and writes the entry as the real one does.
func TestAgentCommand(t *testing.T) {
	o, home := fakeEnv(t)
	bin := t.TempDir()
	log := filepath.Join(bin, "calls")
	cfg := filepath.Join(home, ".claude.json")
	script := `#!/bin/sh
echo "$*" >> ` + log + `
case "$2" in
add) printf '{"mcpServers":{"pond":{"type":"stdio","command":"%s","args":["mcp"]}}}' "$7" > ` + cfg + ` ;;
remove) printf '{"mcpServers":{}}' > ` + cfg + ` ;;
esac
`
	os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o755)
	o.LookPath = func(name string) (string, error) {
		if name == "claude" {
			return filepath.Join(bin, "claude"), nil
		}
		return "", errors.New("not on PATH")
	}
	os.WriteFile(cfg, []byte(`{"mcpServers":{"pond":{"command":"/old/pond","args":["mcp"]}}}`), 0o600)
	tg := targetOf(t, o, "claude-code")
	if a := o.setEntry(context.Background(), tg, o.argv()); a.Outcome != service.OutcomeUpdated || a.Via != "claude mcp add" {
		t.Errorf("stale entry through claude: %+v", a)
	}
	if a := o.setEntry(context.Background(), tg, nil); a.Outcome != service.OutcomeRemoved {
		t.Errorf("remove through claude: %+v", a)
	}
	b, _ := os.ReadFile(log)
	want := "mcp remove --scope user pond\nmcp add --scope user pond -- " + testExe + " mcp\nmcp remove --scope user pond\n"
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("claude's argv (-want +got):\n%s", diff)
	}

	// A claude that fails (a broken install): the file is edited instead.
	os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\necho broken >&2\nexit 1\n"), 0o755)
	if a := o.setEntry(context.Background(), tg, o.argv()); a.Outcome != service.OutcomeInstalled || a.Via != cfg || !strings.Contains(a.Detail, "edited the file instead") {
		t.Errorf("failing claude: %+v", a)
	}
	if got := Agents(o.env(), o.Exe)[0]; got.Outcome != Wired {
		t.Errorf("after the fallback edit: %+v", got)
	}
}

// TestEntryArgv reads the command line of every entry shape.
func TestEntryArgv(t *testing.T) {
	for _, c := range []struct {
		in   map[string]any
		want []string
	}{
		{map[string]any{"command": "/p", "args": []any{"mcp"}}, []string{"/p", "mcp"}},
		{map[string]any{"type": "local", "command": []any{"/p", "mcp"}}, []string{"/p", "mcp"}},
		{map[string]any{"url": "http://x"}, nil},
	} {
		got := entryArgv(c.in)
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%v (-want +got):\n%s", c.in, diff)
		}
	}
}

// TestConfigSymlink keeps a config linked from elsewhere (a dotfiles folder) linked: the edit
// goes to the file the link points at.
func TestConfigSymlink(t *testing.T) {
	o, home := fakeEnv(t)
	real := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(real, []byte("{}\n"), 0o600)
	link := filepath.Join(home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o700)
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	if a := o.setEntry(context.Background(), targetOf(t, o, "gemini-cli"), o.argv()); a.Outcome != service.OutcomeInstalled {
		t.Fatalf("%+v", a)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if b, _ := os.ReadFile(real); !strings.Contains(string(b), testExe) {
		t.Errorf("the linked file was not edited:\n%s", b)
	}
}
