package gemini

import (
	"path/filepath"

	"github.com/pondhq/pond/adapters"
)

// Describe implements adapters.Describer.
func (a *Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root:    "the Gemini home holding tmp/ (~/.gemini)",
		Fixture: adapters.Fixture{Dir: "adapters/gemini/testdata/home/.gemini"},
		Integration: adapters.Integration{
			// The user settings file, settings.json in the Gemini home, read with comments
			// stripped; `gemini mcp add` writes the project's settings unless told -s user
			// (google-gemini/gemini-cli docs/tools/mcp-server.md).
			MCP: &adapters.MCP{
				CLI: "gemini",
				Add: func(name string, argv []string) []string {
					return append([]string{"mcp", "add", "-s", "user", name}, argv...)
				},
				Remove: func(name string) []string { return []string{"mcp", "remove", "-s", "user", name} },
				List:   []string{"mcp", "list"},
				Configs: func(env adapters.Env) []string {
					if roots := a.Roots(env); len(roots) > 0 {
						return []string{filepath.Join(roots[0], "settings.json")}
					}
					return nil
				},
				Format:  adapters.JSONC,
				Servers: "mcpServers",
				Entry: func(argv []string) map[string]any {
					return map[string]any{"command": argv[0], "args": argv[1:]}
				},
			},
			// User skills live in skills/ of the Gemini home, one folder per skill with a
			// SKILL.md (docs/cli/skills.md in the 0.61 package).
			Skills: func(env adapters.Env) string {
				if roots := a.Roots(env); len(roots) > 0 {
					return filepath.Join(roots[0], "skills")
				}
				return ""
			},
		},
	}
}
