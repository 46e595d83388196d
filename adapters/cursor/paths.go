package cursor

import (
	"strings"

	"github.com/pondhq/pond/adapters"
)

// ideUserDir is the Cursor IDE's user-data folder for env's OS, the folder Electron's
// app.getPath("appData") gives plus "Cursor": $XDG_CONFIG_HOME/Cursor (else ~/.config/Cursor)
// on Linux and the BSDs, ~/Library/Application Support/Cursor on macOS, %APPDATA%\Cursor (else
// ~\AppData\Roaming\Cursor) on Windows. It is chosen by env.GOOS, not by build tags, so that
// every OS's discovery is tested on any machine.
func ideUserDir(env adapters.Env) string {
	get := func(k string) string {
		if env.Getenv == nil {
			return ""
		}
		return env.Getenv(k)
	}
	switch env.GOOS {
	case "windows":
		if d := get("APPDATA"); d != "" {
			return joinFor(env.GOOS, d, "Cursor")
		}
		if env.Home == "" {
			return ""
		}
		return joinFor(env.GOOS, env.Home, `AppData\Roaming\Cursor`)
	case "darwin":
		if env.Home == "" {
			return ""
		}
		return joinFor(env.GOOS, env.Home, "Library/Application Support/Cursor")
	default:
		if d := get("XDG_CONFIG_HOME"); d != "" {
			return joinFor(env.GOOS, d, "Cursor")
		}
		if env.Home == "" {
			return ""
		}
		return joinFor(env.GOOS, env.Home, ".config/Cursor")
	}
}

// cliDir is cursor-agent's folder, ~/.cursor on every OS (it also holds the IDE's mcp.json).
func cliDir(env adapters.Env) string {
	if env.Home == "" {
		return ""
	}
	return joinFor(env.GOOS, env.Home, ".cursor")
}

// joinFor joins name under dir with env's separator, so that a Windows path built in a test on
// Linux reads as Windows writes it.
func joinFor(goos, dir, name string) string {
	if goos == "windows" {
		return strings.TrimRight(dir, `\/`) + `\` + strings.ReplaceAll(name, "/", `\`)
	}
	return strings.TrimRight(dir, "/") + "/" + name
}
