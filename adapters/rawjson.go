package adapters

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Field is one key of a JSON object built with Object.
type Field struct {
	Key   string
	Value json.RawMessage
}

// Object writes the fields that have a value, in order, values byte for byte: adapters keep raw
// source records this way, because encoding/json would re-encode (and HTML-escape) them. Keys
// are written as encoding/json writes them.
func Object(fields ...Field) json.RawMessage {
	n := 2
	for _, f := range fields {
		n += len(f.Key) + len(f.Value) + 4
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for _, f := range fields {
		if len(f.Value) == 0 {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		if plain(f.Key) && !strings.ContainsAny(f.Key, "<>&") {
			b = append(append(append(b, '"'), f.Key...), '"')
		} else {
			k, _ := json.Marshal(f.Key)
			b = append(b, k...)
		}
		b = append(b, ':')
		b = append(b, f.Value...)
	}
	return append(b, '}')
}

// plain reports whether s is printable ASCII that needs no escape in a JSON string.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// String encodes s as a JSON string without HTML escaping, so that text reads as it was written
// (as the store writes it).
func String(s string) json.RawMessage {
	if plain(s) {
		b := make([]byte, 0, len(s)+2)
		return append(append(append(b, '"'), s...), '"')
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// OptString is String(s), or nothing (a Field Object leaves out) for "".
func OptString(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return String(s)
}
