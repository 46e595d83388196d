package lance

import "strings"

// Quote returns s as an SQL string literal for a Lance filter. Every string that reaches a
// filter goes through here: Lance's SQL dialect ends a literal only at an unpaired single quote
// and gives backslashes no meaning, so doubling quotes is the whole escape.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
