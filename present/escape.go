package present

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape makes text safe to print on a terminal. Archived text is untrusted (a fetched page, a
// file a tool read), and a terminal obeys what it prints: ESC ] retitles the window, ESC [ 2K
// and a carriage return erase a line and write another over it, so a stored tool output could
// forge the "continue with:" line of a restore. Escape writes every C0 control character but
// newline and tab, DEL, every C1 control character (U+0080-U+009F, which some terminals read
// as ESC-sequences of their own) and every byte that is not UTF-8 as a visible Go-style escape
// (\x1b, \r, \u009b). Everything else, backslashes included, is left as it is, so escaping
// twice changes nothing. Every text face (the CLI's text output and errors, MCP's text
// answers) prints through it; JSON output is exact and needs none.
func Escape(s string) string {
	first := unsafeAt(s)
	if first < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:first])
	for i := first; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r':
			b.WriteString(`\r`)
		case control(r):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeAt is the byte offset of s's first character Escape rewrites, or -1.
func unsafeAt(s string) int {
	for i, r := range s {
		if control(r) {
			return i
		}
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return -1
}

// control reports the characters a terminal may act on: C0 but newline and tab, DEL, C1.
func control(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f)
}
