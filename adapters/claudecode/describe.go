package claudecode

import (
	"strings"

	"github.com/pondhq/pond/adapters"
)

// Describe implements adapters.Describer.
func (a Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root:    "the config dir holding projects/ (~/.claude)",
		Fixture: adapters.Fixture{Dir: "adapters/claudecode/testdata"},
		Integration: adapters.Integration{
			// User scope is the top-level mcpServers of the global config (the default, local
			// scope is projects[path].mcpServers); `claude mcp add` takes its options before
			// the name (code.claude.com/docs/en/mcp). Claude rewrites that file while it runs,
			// so its own command is preferred whenever it is on PATH.
			MCP: &adapters.MCP{
				CLI: "claude",
				Add: func(name string, argv []string) []string {
					return append([]string{"mcp", "add", "--scope", "user", name, "--"}, argv...)
				},
				Remove:  func(name string) []string { return []string{"mcp", "remove", "--scope", "user", name} },
				List:    []string{"mcp", "list"},
				Configs: globalConfig,
				Format:  adapters.JSON,
				Servers: "mcpServers",
				Entry: func(argv []string) map[string]any {
					return map[string]any{"type": "stdio", "command": argv[0], "args": argv[1:], "env": map[string]any{}}
				},
			},
			Skills: func(env adapters.Env) string {
				if roots := a.Roots(env); len(roots) > 0 {
					return joinFor(env.GOOS, roots[0], "skills")
				}
				return ""
			},
		},
	}
}

// globalConfig is Claude Code's global config file: .claude.json in CLAUDE_CONFIG_DIR when it
// is set, else in the home folder (not in ~/.claude): the CLI's own
// `join(CLAUDE_CONFIG_DIR || homedir(), ".claude.json")`.
func globalConfig(env adapters.Env) []string {
	if env.Getenv != nil {
		if dir := strings.TrimSpace(env.Getenv("CLAUDE_CONFIG_DIR")); dir != "" {
			return []string{joinFor(env.GOOS, dir, ".claude.json")}
		}
	}
	if env.Home == "" {
		return nil
	}
	return []string{joinFor(env.GOOS, env.Home, ".claude.json")}
}
