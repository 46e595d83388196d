package goose

import (
	"github.com/pondhq/pond/adapters"
)

// Describe implements adapters.Describer.
func (Adapter) Describe() adapters.Description {
	return adapters.Description{
		Root:    "goose's data folder holding sessions/sessions.db ($GOOSE_PATH_ROOT/data, else ~/.local/share/goose; %APPDATA%\\Block\\goose\\data on Windows)",
		Restore: "rows inserted into ROOT/sessions/sessions.db in one transaction, never replacing a row (quit goose first)",
		Fixture: adapters.Fixture{Dir: "adapters/goose/testdata/goose", Databases: map[string]string{
			"sessions/sessions.db": "sessions/sessions.sql",
		}},
		// goose keeps its MCP servers as "extensions" in its config folder's config.yaml
		// ($GOOSE_PATH_ROOT/config/config.yaml, else $XDG_CONFIG_HOME/goose/config.yaml or
		// ~/.config/goose/config.yaml; %APPDATA%\Block\goose\config\config.yaml on Windows),
		// one entry per server: {name, type: stdio, cmd, args, enabled, timeout, envs}. The
		// installer has no YAML editor yet and goose no command that adds one without asking
		// (goose configure is interactive), so Pond registers nothing here for now; gooseDir
		// resolves that folder for the day it does.
		Integration: adapters.Integration{None: "goose keeps MCP servers as extensions in its config.yaml, which Pond does not edit yet: " +
			"add a command-line extension running `pond mcp` with `goose configure`"},
	}
}
