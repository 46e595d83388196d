package copilot

import (
	"github.com/pondhq/pond/adapters"
)

// Describe implements adapters.Describer.
func (a Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root:    "the Copilot CLI home holding session-state/ ($COPILOT_HOME, else ~/.copilot)",
		Fixture: adapters.Fixture{Dir: "adapters/copilot/testdata"},
		Integration: adapters.Integration{
			// User scope is mcpServers in mcp-config.json of COPILOT_HOME (else ~/.copilot), read
			// with comments and trailing commas allowed (1.0.102 reads them, and drops them when
			// its own `mcp add` rewrites the file); `copilot mcp add NAME -- CMD ARGS…` writes
			// there, as {"type":"local","command","args","tools":["*"]}.
			MCP: &adapters.MCP{
				CLI: "copilot",
				Add: func(name string, argv []string) []string {
					return append([]string{"mcp", "add", name, "--"}, argv...)
				},
				Remove: func(name string) []string { return []string{"mcp", "remove", name} },
				List:   []string{"mcp", "list"},
				Configs: func(env adapters.Env) []string {
					if dir := home(env); dir != "" {
						return []string{joinFor(env.GOOS, dir, "mcp-config.json")}
					}
					return nil
				},
				Format:  adapters.JSONC,
				Servers: "mcpServers",
				Entry: func(argv []string) map[string]any {
					return map[string]any{"type": "local", "command": argv[0], "args": argv[1:], "tools": []string{"*"}}
				},
			},
			// Personal skills: skills/ of COPILOT_HOME, one folder per skill with a SKILL.md
			// (`copilot skill --help`: "Personal ~/.copilot/skills/").
			Skills: func(env adapters.Env) string {
				if dir := home(env); dir != "" {
					return joinFor(env.GOOS, dir, "skills")
				}
				return ""
			},
		},
	}
}
