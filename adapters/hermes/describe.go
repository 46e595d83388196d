package hermes

import (
	"path/filepath"

	"github.com/pondhq/pond/adapters"
)

// Describe implements adapters.Describer.
func (Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root:    "the Hermes home holding state.db, profiles/ and sessions/ ($HERMES_HOME, else ~/.hermes)",
		Restore: "rows inserted into ROOT/state.db (the profile's store the session came from, for a native restore), in one transaction",
		Fixture: adapters.Fixture{Dir: "adapters/hermes/testdata/hermes", Databases: map[string]string{
			"state.db":               "state.sql",
			"profiles/work/state.db": "profiles/work/state.sql",
		}},
		// Hermes keeps its MCP servers under mcp_servers in ROOT/config.yaml, a stdio server as
		// {command, args}. `hermes mcp add NAME --command CMD --args …` connects to the server
		// and asks which of its tools to enable, so it is not for an installer: no Add.
		Integration: adapters.Integration{
			MCP: &adapters.MCP{
				CLI:  "hermes",
				List: []string{"mcp", "list"},
				Configs: func(env adapters.Env) []string {
					roots := New().Roots(env)
					if len(roots) == 0 {
						return nil
					}
					return []string{filepath.Join(roots[0], "config.yaml")}
				},
				Format:  adapters.YAML,
				Servers: "mcp_servers",
				Entry: func(argv []string) map[string]any {
					return map[string]any{"command": argv[0], "args": argv[1:]}
				},
			},
			// Hermes loads skills from ROOT/skills/<name>/SKILL.md.
			Skills: func(env adapters.Env) string {
				roots := New().Roots(env)
				if len(roots) == 0 {
					return ""
				}
				return filepath.Join(roots[0], "skills")
			},
		},
	}
}
