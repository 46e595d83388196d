package hermes

import (
	"path/filepath"

	"github.com/pondhq/pond/adapters"
)

// Describe implements adapters.Describer.
func (Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root:    "the Hermes home holding state.db, profiles/ and sessions/ ($HERMES_HOME, else ~/.hermes)",
		Restore: "rows inserted into ROOT/state.db (the profile's store the session came from, for a native restore), in one transaction; a session captured from a legacy transcript or snapshot goes back to its file and is rebuilt as a new session in the store, which is what Hermes resumes",
		Fixture: adapters.Fixture{Dir: "adapters/hermes/testdata/hermes", Databases: map[string]string{
			"state.db":               "state.sql",
			"profiles/work/state.db": "profiles/work/state.sql",
		}},
		// Hermes gets Pond's plugin, hermes-pond (installer/plugins), rather than an MCP entry:
		// pond install writes it to ROOT/plugins/pond/ and names it in plugins.enabled in
		// ROOT/config.yaml, the only plugins Hermes loads.
		Integration: adapters.Integration{
			Plugin: true,
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
