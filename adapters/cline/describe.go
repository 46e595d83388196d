package cline

import (
	"strings"

	"github.com/pondhq/pond/adapters"
)

// Describe implements adapters.Describer.
func (Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root:    "Cline's data dir holding sessions/ and tasks/ ($CLINE_DATA_DIR, else ~/.cline/data), and the extension's saoudrizwan.claude-dev folder in each VS Code family editor's globalStorage",
		Restore: "the SDK store's sessions/<id>/ in Cline's data dir (ROOT/sessions/), which `cline --id` resumes",
		Fixture: adapters.Fixture{Dir: "adapters/cline/testdata/data", Databases: map[string]string{"db/sessions.db": "db/sessions.sql"}},
		Integration: adapters.Integration{
			// The CLI's and the SDK's MCP settings: CLINE_MCP_SETTINGS_PATH, else
			// settings/cline_mcp_settings.json in the data dir (resolveMcpSettingsPath in
			// @cline/shared), key mcpServers, a stdio server {command, args}. `cline mcp add`
			// opens a wizard, so the installer edits the file.
			MCP: &adapters.MCP{
				CLI: "cline",
				Configs: func(env adapters.Env) []string {
					if env.Getenv != nil {
						if p := strings.TrimSpace(env.Getenv("CLINE_MCP_SETTINGS_PATH")); p != "" {
							return []string{p}
						}
					}
					if d := DataDir(env); d != "" {
						return []string{joinFor(env.GOOS, d, "settings", "cline_mcp_settings.json")}
					}
					return nil
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
