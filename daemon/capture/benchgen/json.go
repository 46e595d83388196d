package benchgen

import (
	"bytes"
	"encoding/json"
)

// kv is one key of a JSON object written in a given order: the agents write their keys in a
// fixed order, and a map would sort them.
type kv struct {
	k string
	v any
}

// obj encodes an ordered JSON object. Values are encoded with encoding/json; a json.RawMessage
// (such as a nested obj) is taken as it is.
func obj(fields ...kv) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(f.v)
		if err != nil {
			panic("benchgen: encode " + f.k + ": " + err.Error()) // only our own literal values reach here
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// arr encodes a JSON array of values.
func arr(vs ...any) json.RawMessage {
	b, err := json.Marshal(vs)
	if err != nil {
		panic("benchgen: encode array: " + err.Error())
	}
	return b
}
