package cursor

import (
	"github.com/pondhq/pond/adapters"
)

// Describe implements adapters.Describer.
func (Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root: "the IDE's user-data folder holding User/globalStorage/state.vscdb (~/.config/Cursor, " +
			"~/Library/Application Support/Cursor, %APPDATA%\\Cursor), or cursor-agent's ~/.cursor (projects/, chats/)",
		NoRestore: Unsupported,
		Fixture: adapters.Fixture{Dir: "adapters/cursor/testdata/cursor", Databases: map[string]string{
			"User/globalStorage/state.vscdb":                                                       "User/globalStorage/state.sql",
			"User/workspaceStorage/ws-one/state.vscdb":                                             "User/workspaceStorage/ws-one/state.sql",
			"User/workspaceStorage/ws-two/state.vscdb":                                             "User/workspaceStorage/ws-two/state.sql",
			"chats/11e9fe063b91149eb10c6daf331adfaa/7c9e6679-7425-40de-944b-e07fc1f90ae7/store.db": "chats/11e9fe063b91149eb10c6daf331adfaa/7c9e6679-7425-40de-944b-e07fc1f90ae7/store.sql",
		}},
		Integration: adapters.Integration{
			// The global MCP config is ~/.cursor/mcp.json on every OS, servers under
			// "mcpServers" as {command, args}; the IDE and cursor-agent both read it.
			// cursor-agent lists servers (`cursor-agent mcp list`) but has no command that adds
			// one, so the installer edits the file (read as JSONC: a file the user commented is
			// kept as it is).
			MCP: &adapters.MCP{
				CLI:  "cursor-agent",
				List: []string{"mcp", "list"},
				Configs: func(env adapters.Env) []string {
					if d := cliDir(env); d != "" {
						return []string{joinFor(env.GOOS, d, "mcp.json")}
					}
					return nil
				},
				Format:  adapters.JSONC,
				Servers: "mcpServers",
				Entry: func(argv []string) map[string]any {
					return map[string]any{"command": argv[0], "args": argv[1:]}
				},
			},
			// User skills (Cursor ≥ 2.4): ~/.cursor/skills/<name>/SKILL.md.
			Skills: func(env adapters.Env) string {
				if d := cliDir(env); d != "" {
					return joinFor(env.GOOS, d, "skills")
				}
				return ""
			},
		},
	}
}
