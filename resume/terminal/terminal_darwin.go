package terminal

import "strings"

// terminals on macOS: Terminal.app through AppleScript, which takes a shell line (every word
// quoted by ShellLine), then that line as an AppleScript string.
func terminals(func(string) string) []terminal {
	return []terminal{{"osascript", func(dir string, program []string) []string {
		line := ShellLine(dir, [][]string{program})
		quoted := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(line) + `"`
		return []string{"-e", `tell application "Terminal" to do script ` + quoted, "-e", `tell application "Terminal" to activate`}
	}}}
}
