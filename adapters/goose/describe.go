package goose

import (
	"path/filepath"

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
		Integration: adapters.Integration{MCP: &adapters.MCP{
			// goose has no command that adds an extension without asking (goose configure is
			// interactive): the command only tells the installer goose is here.
			CLI:     "goose",
			Configs: configs,
			Format:  adapters.YAML,
			Servers: "extensions",
			Entry:   extension,
		}},
	}
}

// configs is goose's user config, config.yaml in its config folder: the last of the files
// goose merges, and the one it writes.
func configs(env adapters.Env) []string {
	if d := gooseDir(env, "config"); d != "" {
		return []string{filepath.Join(d, "config.yaml")}
	}
	return nil
}

// extension is goose's entry for a command-line MCP server (see the package doc for the
// evidence); goose finds it under the key name_to_key("pond") gives, "pond". The timeout is
// goose's default, in seconds.
func extension(argv []string) map[string]any {
	return map[string]any{
		"enabled":     true,
		"type":        "stdio",
		"name":        "pond",
		"description": "Search and read past coding-agent sessions kept by Pond",
		"cmd":         argv[0],
		"args":        argv[1:],
		"envs":        map[string]any{},
		"timeout":     300,
	}
}
