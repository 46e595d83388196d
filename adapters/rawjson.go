package adapters

import (
	"bytes"
	"encoding/json"
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
