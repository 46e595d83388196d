package cline

import (
	"strings"

	"github.com/pondhq/pond/adapters"
)

// ExtensionID is the Cline extension's id: its folder under an editor's globalStorage.
const ExtensionID = "saoudrizwan.claude-dev"

// editors are the VS Code family's user folders (the product names they keep their state
// under), in which the Cline extension and its forks run.
var editors = []string{"Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"}

// GlobalStorage lists the folders an editor of the VS Code family gives the extension ext
// (publisher.name) on env's platform: <user dir>/User/globalStorage/<ext>, the user dir being
// $XDG_CONFIG_HOME (else ~/.config)/<product> on Linux, ~/Library/Application
// Support/<product> on macOS and %APPDATA%\<product> on Windows. They need not exist.
func GlobalStorage(env adapters.Env, ext string) []string {
	getenv := func(k string) string {
		if env.Getenv == nil {
			return ""
		}
		return strings.TrimSpace(env.Getenv(k))
	}
	var base string
	switch env.GOOS {
	case "windows":
		base = getenv("APPDATA")
		if base == "" && env.Home != "" {
			base = joinFor(env.GOOS, env.Home, "AppData", "Roaming")
		}
	case "darwin":
		if env.Home != "" {
			base = joinFor(env.GOOS, env.Home, "Library", "Application Support")
		}
	default:
		base = getenv("XDG_CONFIG_HOME")
		if base == "" && env.Home != "" {
			base = joinFor(env.GOOS, env.Home, ".config")
		}
	}
	if base == "" {
		return nil
	}
	out := make([]string, 0, len(editors))
	for _, e := range editors {
		out = append(out, joinFor(env.GOOS, base, e, "User", "globalStorage", ext))
	}
	return out
}

// DataDir is Cline's data folder (resolveClineDataDir in @cline/shared): CLINE_DATA_DIR, else
// CLINE_DIR/data, else ~/.cline/data on every platform; "" without a home.
func DataDir(env adapters.Env) string {
	if env.Getenv != nil {
		if d := strings.TrimSpace(env.Getenv("CLINE_DATA_DIR")); d != "" {
			return d
		}
		if d := strings.TrimSpace(env.Getenv("CLINE_DIR")); d != "" {
			return joinFor(env.GOOS, d, "data")
		}
	}
	if env.Home == "" {
		return ""
	}
	return joinFor(env.GOOS, env.Home, ".cline", "data")
}

// joinFor joins a folder and names with the separator of goos, so that a test can ask for
// another platform's roots.
func joinFor(goos, dir string, names ...string) string {
	sep := "/"
	if goos == "windows" {
		sep = `\`
	}
	out := strings.TrimRight(dir, `\/`)
	for _, n := range names {
		out += sep + n
	}
	return out
}
