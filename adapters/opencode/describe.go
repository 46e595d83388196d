package opencode

import (
	"path/filepath"

	"github.com/pondhq/pond/adapters"
)

// Describe implements adapters.Describer.
func (Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root: "the data dir holding opencode.db or storage/ (~/.local/share/opencode)",
		// OpenCode's database belongs to the running app, so a restore never writes into it.
		Restore: "the document `opencode import` reads, in ROOT/pond-import/; the command imports it",
		Fixture: adapters.Fixture{Dir: "adapters/opencode/testdata", Databases: map[string]string{"opencode.db": "opencode.sql"}},
		Integration: adapters.Integration{
			// The global config in XDG_CONFIG_HOME/opencode on every OS, the first of
			// opencode.jsonc, opencode.json and config.json that exists (the CLI's own order);
			// key "mcp", a local server's command one array (the schema forbids "args").
			// `opencode mcp add` only asks questions, so the installer edits the file.
			MCP: &adapters.MCP{
				CLI:     "opencode",
				List:    []string{"mcp", "list"},
				Configs: globalConfigs,
				Format:  adapters.JSONC,
				Servers: "mcp",
				Entry: func(argv []string) map[string]any {
					return map[string]any{"type": "local", "command": argv, "enabled": true}
				},
			},
		},
	}
}

func globalConfigs(env adapters.Env) []string {
	dir := ""
	if env.Getenv != nil {
		dir = env.Getenv("XDG_CONFIG_HOME")
	}
	if dir == "" {
		if env.Home == "" {
			return nil
		}
		dir = filepath.Join(env.Home, ".config")
	}
	dir = filepath.Join(dir, "opencode")
	return []string{filepath.Join(dir, "opencode.jsonc"), filepath.Join(dir, "opencode.json"), filepath.Join(dir, "config.json")}
}
