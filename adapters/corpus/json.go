package corpus

import (
	"bytes"
	"encoding/json"
)

// Field is one key of a JSON object written in a given order: the agents write their keys in a
// fixed order, and a map would sort them.
type Field struct {
	key   string
	value any
}

// KV is the field k: v.
func KV(k string, v any) Field { return Field{k, v} }

// Obj encodes an ordered JSON object. Values are encoded with encoding/json; a json.RawMessage
// (such as a nested Obj) is taken as it is.
func Obj(fields ...Field) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(f.value)
		if err != nil {
			panic("corpus: encode " + f.key + ": " + err.Error()) // only our own literal values reach here
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Arr encodes a JSON array of values.
func Arr(vs ...any) json.RawMessage {
	b, err := json.Marshal(vs)
	if err != nil {
		panic("corpus: encode array: " + err.Error())
	}
	return b
}
