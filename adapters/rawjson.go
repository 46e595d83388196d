package adapters

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// Field is one key of a JSON object built with Object.
type Field struct {
	Key   string
	Value json.RawMessage
}

// Object writes the fields that have a value, in order, values byte for byte: adapters keep raw
// source records this way, because encoding/json would re-encode (and HTML-escape) them.
func Object(fields ...Field) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for _, f := range fields {
		if len(f.Value) == 0 {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(f.Value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// String encodes s as a JSON string without HTML escaping, so that text reads as it was written
// (as the store writes it).
func String(s string) json.RawMessage {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
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
