package openclaw

import (
	"path/filepath"

	"github.com/pondhq/pond/adapters"
)

// Describe implements adapters.Describer.
func (Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root: "the state dir holding agents/ ($OPENCLAW_STATE_DIR, else ~/.openclaw)",
		// OpenClaw resumes nothing from files: the restore is a legacy index and transcript,
		// which its doctor imports into the agent's database.
		Restore: "a legacy sessions.json and transcript under ROOT/agents/<agent>/sessions/, which `openclaw doctor --session-sqlite import` takes into the agent's database",
		Fixture: adapters.Fixture{
			Dir:       "adapters/openclaw/testdata/openclaw",
			Databases: map[string]string{"agents/main/agent/" + dbName: "agents/main/agent/openclaw-agent.sql"},
		},
		// OpenClaw gets Pond's plugin (openclaw.plugin.json, `openclaw plugins install`), never
		// an MCP entry as well; its skills folder is <state dir>/skills.
		Integration: adapters.Integration{
			Plugin: true,
			Skills: func(env adapters.Env) string {
				if roots := (Adapter{}).Roots(env); len(roots) > 0 {
					return filepath.Join(roots[0], "skills")
				}
				return ""
			},
		},
	}
}
