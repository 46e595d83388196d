package codex

import (
	"path/filepath"

	"github.com/pondhq/pond/adapters"
)

// Describe implements adapters.Describer.
func (a *Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root:    "CODEX_HOME, holding sessions/ (~/.codex)",
		Fixture: adapters.Fixture{Dir: "adapters/codex/testdata/codex"},
		Integration: adapters.Integration{
			// $CODEX_HOME/config.toml, one [mcp_servers.<name>] table per server; Codex has no
			// project scope for them (openai/codex docs/config.md).
			MCP: &adapters.MCP{
				CLI:    "codex",
				Add:    func(name string, argv []string) []string { return append([]string{"mcp", "add", name, "--"}, argv...) },
				Remove: func(name string) []string { return []string{"mcp", "remove", name} },
				List:   []string{"mcp", "list"},
				Configs: func(env adapters.Env) []string {
					if roots := a.Roots(env); len(roots) > 0 {
						return []string{filepath.Join(roots[0], "config.toml")}
					}
					return nil
				},
				Format:  adapters.TOML,
				Servers: "mcp_servers",
				Entry: func(argv []string) map[string]any {
					return map[string]any{"command": argv[0], "args": argv[1:]}
				},
			},
		},
	}
}
