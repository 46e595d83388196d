package adapters

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// The accessors below read one JSON value of a record leniently, the way every adapter reads
// fields: a value of another JSON type than the one asked for reads as absent (ok false, or
// zero), never as an error. A value is a member as written in a valid document (a Node's
// member, or a member encoding/json kept raw); white space around it is allowed.

// Kind is the first byte of a JSON value: '{', '[', '"', 't', 'f', 'n', '-' or a digit; 0 for
// no value.
func Kind(raw []byte) byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// IsNull reports whether raw is absent or JSON null.
func IsNull(raw []byte) bool {
	switch Kind(raw) {
	case 0:
		return true
	case 'n':
		return string(bytes.TrimSpace(raw)) == "null"
	}
	return false
}

// Value is raw unless it is absent or null.
func Value(raw json.RawMessage) json.RawMessage {
	if IsNull(raw) {
		return nil
	}
	return raw
}

// Str is raw's value when it is a JSON string; "" otherwise (Kind tells the two apart).
func Str(raw []byte) string {
	if Kind(raw) != '"' {
		return ""
	}
	return unquote(bytes.TrimSpace(raw))
}

// unquote is the value of a JSON string of a valid document as encoding/json decodes it
// (invalid UTF-8 and unpaired surrogates as U+FFFD).
func unquote(raw []byte) string {
	if len(raw) < 2 {
		return ""
	}
	body := raw[1 : len(raw)-1]
	plain := true
	for _, c := range body {
		if c == '\\' || c < ' ' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain || bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body)
	}
	// An error here only says that something was replaced by U+FFFD: the document is valid.
	b, _ := jsontext.AppendUnquote(make([]byte, 0, len(body)), raw)
	return string(b)
}

// Bool is raw's value when it is true or false.
func Bool(raw []byte) (v, ok bool) {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// Int is raw's value as an integer: a JSON number (a fraction truncated; beyond ±2⁶² none), or
// a string holding one, as encoding/json's json.Number reads it.
func Int(raw []byte) (int64, bool) {
	raw = bytes.TrimSpace(raw)
	switch Kind(raw) {
	case '"':
		var n json.Number
		if json.Unmarshal(raw, &n) != nil {
			return 0, false
		}
		raw = []byte(n)
	case 0, '{', '[', 't', 'f', 'n':
		return 0, false
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return n, true
	}
	if x, err := strconv.ParseFloat(string(raw), 64); err == nil && x >= -1<<62 && x <= 1<<62 {
		return int64(x), true
	}
	return 0, false
}

// Float is raw's value when it is a JSON number that a float64 holds.
func Float(raw []byte) (float64, bool) {
	raw = bytes.TrimSpace(raw)
	if k := Kind(raw); k != '-' && (k < '0' || k > '9') {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(raw), 64)
	return x, err == nil
}

// Time is raw's value when it is an RFC 3339 time string; zero otherwise.
func Time(raw []byte) time.Time {
	t, err := time.Parse(time.RFC3339Nano, Str(raw))
	if err != nil {
		return time.Time{}
	}
	return t
}

// Members are a JSON object's members as written, read with the accessors above.
type Members map[string]json.RawMessage

// Str is the member key's string value; "" when absent or not a string.
func (m Members) Str(key string) string { return Str(m[key]) }

// IsStr reports whether the member key is a string.
func (m Members) IsStr(key string) bool { return Kind(m[key]) == '"' }

// Has reports whether the member key is present and not null.
func (m Members) Has(key string) bool { return !IsNull(m[key]) }

// Bool is the member key's value when it is true or false.
func (m Members) Bool(key string) (v, ok bool) { return Bool(m[key]) }

// Int is the member key's value as an integer (see Int).
func (m Members) Int(key string) (int64, bool) { return Int(m[key]) }

// Time is the member key's value as an RFC 3339 time; zero when it is not one.
func (m Members) Time(key string) time.Time { return Time(m[key]) }

// Keys are the member keys, sorted.
func (m Members) Keys() []string { return slices.Sorted(maps.Keys(m)) }

// Kid is the member key as read along; nil when n is nil, the member absent or not in the
// shape.
func (n *Node) Kid(key string) *Node {
	if n == nil {
		return nil
	}
	return n.Kids[key]
}

// Object is n's members; nil when n is nil or not an object.
func (n *Node) Object() Members {
	if n == nil {
		return nil
	}
	return n.Members
}

// List is n's elements; nil when n is nil or not a list.
func (n *Node) List() []*Node {
	if n == nil {
		return nil
	}
	return n.Elems
}

// Kind is the first byte of n's value (see Kind); 0 for no value.
func (n *Node) Kind() byte {
	if n == nil {
		return 0
	}
	return Kind(n.Raw)
}

// Str is the member key's string value, as read along or else from the member as written; ""
// when absent or not a string.
func (n *Node) Str(key string) string {
	if k := n.Kid(key); k != nil && k.IsText {
		return k.Text
	}
	return n.Object().Str(key)
}
