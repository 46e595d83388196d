package qwen

import (
	"github.com/pondhq/pond/adapters"
)

// Describe implements adapters.Describer.
func (a Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root:    "the runtime folder holding projects/ ($QWEN_RUNTIME_DIR, else $QWEN_HOME, else ~/.qwen)",
		Fixture: adapters.Fixture{Dir: "adapters/qwen/testdata"},
		Integration: adapters.Integration{
			// User scope is mcpServers in settings.json of QWEN_HOME (else ~/.qwen), read with
			// comments stripped (Storage.getGlobalSettingsPath); `qwen mcp add` writes the user
			// scope by default and takes --scope before the name (the 0.24 bundle's mcp add).
			MCP: &adapters.MCP{
				CLI: "qwen",
				Add: func(name string, argv []string) []string {
					return append([]string{"mcp", "add", "--scope", "user", name}, argv...)
				},
				Remove: func(name string) []string { return []string{"mcp", "remove", "--scope", "user", name} },
				List:   []string{"mcp", "list"},
				Configs: func(env adapters.Env) []string {
					if dir := configDir(env); dir != "" {
						return []string{joinFor(env.GOOS, dir, "settings.json")}
					}
					return nil
				},
				Format:  adapters.JSONC,
				Servers: "mcpServers",
				Entry: func(argv []string) map[string]any {
					return map[string]any{"command": argv[0], "args": argv[1:]}
				},
			},
			// User skills: skills/ of QWEN_HOME, one folder per skill with a SKILL.md
			// (Storage.getUserSkillsDirs).
			Skills: func(env adapters.Env) string {
				if dir := configDir(env); dir != "" {
					return joinFor(env.GOOS, dir, "skills")
				}
				return ""
			},
		},
	}
}
