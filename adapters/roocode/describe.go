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
		Fixture: adapters.Fixture{Dir: "adapters/roocode/testdata/" + ExtensionID},
		Integration: adapters.Integration{
			// Roo Code's global MCP servers: settings/mcp_settings.json in its folder of the
			// editor it is installed in, key mcpServers, a stdio server {command, args}. It has
			// no command of its own; only editors where the extension's folder exists are
			// candidates, so the installer never creates one for an editor without it.
			MCP: &adapters.MCP{
				Configs: func(env adapters.Env) []string {
					var out []string
					for _, dir := range cline.GlobalStorage(env, ExtensionID) {
						if _, err := os.Stat(dir); err == nil {
							out = append(out, dir+sep(env)+"settings"+sep(env)+"mcp_settings.json")
						}
					}
					return out
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
