package redact

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonStrings calls f with each string value of the JSON document raw, unescaped, and the key
// it is the value of (empty in an array or at the top). Numbers, booleans and keys alone are
// not passed: they hold no secret a rule could find. Text that is not JSON is passed whole.
// Both slices are only valid during the call: they are raw's own bytes where the string has no
// escapes, so most strings cost no copy.
func jsonStrings(raw []byte, f func(key, value []byte)) {
	if !scanJSONStrings(raw, f) {
		f(nil, raw)
	}
}

// scanJSONStrings is jsonStrings' scan, bounds-checked instead of validating the document
// first (a second pass over every raw record): false when raw is not JSON it can walk, and
// the caller then scans raw whole.
func scanJSONStrings(raw []byte, f func(key, value []byte)) bool {
	var key []byte
	var stack []bool // per open container: is it an object
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '{', '[':
			stack = append(stack, c == '{')
			key = nil
		case '}', ']':
			if len(stack) == 0 {
				return false
			}
			stack = stack[:len(stack)-1]
			key = nil
		case '"':
			// To the closing quote: the next quote, unless a backslash comes before it.
			// IndexByte runs many bytes at a time; each byte is searched once for a quote
			// and once for a backslash, however many escapes the string holds.
			j, quote, escaped := i+1, -1, false
			for {
				if quote < j {
					q := bytes.IndexByte(raw[min(j, len(raw)):], '"')
					if q < 0 {
						return false // an unterminated string
					}
					quote = j + q
				}
				b := bytes.IndexByte(raw[j:quote], '\\')
				if b < 0 {
					j = quote
					break
				}
				escaped = true
				j += b + 2
			}
			s := raw[i+1 : j]
			if escaped {
				var ok bool
				if s, ok = unescape(s); !ok {
					return false
				}
			}
			k := j + 1
			for k < len(raw) && (raw[k] == ' ' || raw[k] == '\t' || raw[k] == '\n' || raw[k] == '\r') {
				k++
			}
			if k < len(raw) && raw[k] == ':' {
				key = s
			} else {
				if len(stack) == 0 || !stack[len(stack)-1] {
					key = nil
				}
				f(key, s)
			}
			i = j
		}
	}
	return len(stack) == 0
}

// unescape decodes the inside of a JSON string that holds escapes, as encoding/json does
// (a lone surrogate becomes U+FFFD), without its reflection: on a sync's raw records,
// json.Unmarshal of each escaped string was a fifth of redaction's gathering. False for an
// escape JSON does not have.
func unescape(b []byte) ([]byte, bool) {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(b) {
			return nil, false
		}
		switch b[i] {
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(b[i+1:])
			if !ok {
				return nil, false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if i+6 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
					if r2, ok := hex4(b[i+3:]); ok {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							out = utf8.AppendRune(out, d)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, false
		}
	}
	return out, true
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
