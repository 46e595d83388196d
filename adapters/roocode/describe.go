package roocode

import (
	"os"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/cline"
)

// Describe implements adapters.Describer.
func (Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root:    "the extension's folder holding tasks/ in a VS Code family editor's globalStorage (~/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline, and Kilo Code's kilocode.kilo-code)",
		Restore: "a task folder in ROOT/tasks/ that the extension adopts; `code <project>` opens the workspace, the task is in Roo Code's history",
		Fixture: adapters.Fixture{Dir: "adapters/roocode/testdata/" + ExtensionID},
		Integration: adapters.Integration{
			// Roo Code's global MCP servers: settings/mcp_settings.json in its folder of the
			// editor it is installed in, key mcpServers, a stdio server {command, args}. It has
			// no command of its own. The editors where the extension's folder exists come first,
			// so the installer creates the file in one of those rather than in an editor
			// without Roo Code.
			MCP: &adapters.MCP{
				Configs: func(env adapters.Env) []string {
					var have, rest []string
					for _, dir := range cline.GlobalStorage(env, ExtensionID) {
						p := dir + sep(env) + "settings" + sep(env) + "mcp_settings.json"
						if _, err := os.Stat(dir); err == nil {
							have = append(have, p)
						} else {
							rest = append(rest, p)
						}
					}
					return append(have, rest...)
				},
				Format:  adapters.JSON,
				Servers: "mcpServers",
				Entry: func(argv []string) map[string]any {
					return map[string]any{"command": argv[0], "args": argv[1:]}
				},
			},
		},
	}
}

func sep(env adapters.Env) string {
	if env.GOOS == "windows" {
		return `\`
	}
	return "/"
}
