package kilo

import (
	"path/filepath"

	"github.com/pondhq/pond/adapters"
)

// Describe implements adapters.Describer.
func (Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root:    "Kilo CLI's data dir holding kilo.db (~/.local/share/kilo)",
		Restore: "the document `kilo import` reads, in ROOT/pond-import/; the command imports it",
		Fixture: adapters.Fixture{Dir: "adapters/kilo/testdata", Databases: map[string]string{"kilo.db": "kilo.sql"}},
		Integration: adapters.Integration{
			// OpenCode's global config under Kilo's name: XDG_CONFIG_HOME/kilo (else
			// ~/.config/kilo), the first of kilo.jsonc, kilo.json and config.json that exists;
			// key "mcp", a local server's command one array.
			MCP: &adapters.MCP{
				CLI:     "kilo",
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
	dir = filepath.Join(dir, "kilo")
	return []string{filepath.Join(dir, "kilo.jsonc"), filepath.Join(dir, "kilo.json"), filepath.Join(dir, "config.json")}
}
