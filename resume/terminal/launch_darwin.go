package terminal

import "strings"

// terminals on macOS: Terminal.app through AppleScript.
func terminals(func(string) string) []terminal {
	return []terminal{{"osascript", func(c string) []string {
		quoted := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(c) + `"`
		return []string{"-e", `tell application "Terminal" to do script ` + quoted, "-e", `tell application "Terminal" to activate`}
	}}}
}
