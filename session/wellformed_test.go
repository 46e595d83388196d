package session

import (
	"encoding/json"
	"strings"
	"testing"
)

// wellFormed must decide as encoding/json's Valid does: a value Valid accepts and wellFormed
// refused would reject a captured row that was stored before.
func TestWellFormedAgreesWithValid(t *testing.T) {
	cases := []string{
		``, ` `, `{}`, `[]`, `null`, `true`, `0`, `-0`, `01`, `1.`, `.5`, `-`, `1e5`, `1E+5`, `1e`, `"x"`, `"x`,
		` {"a":1} `, "\t[1,2]\n", `{"a":1}x`, `{"a":1}{}`, `{"a":1,}`, `[1,]`, `{"a" 1}`, `{a:1}`,
		`{"a":1,"a":2}`, `{"a":{"b":1,"b":1}}`,
		"\"\xff\xfe\"", "{\"k\xff\":1}", `"\ud800"`, `"\udc00x"`, `"\ud83d\ude00"`, `"\u00e9"`, `"\x"`, `"\u12"`,
		"\"tab\there\"", "\"nl\nhere\"", `"\/"`, `'x'`, `NaN`, `Infinity`, `nul`, `[true false]`,
		strings.Repeat("[", 9999) + strings.Repeat("]", 9999),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		`{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"command":"ls"}}]}}`,
	}
	for _, c := range cases {
		if got, want := wellFormed([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("wellFormed(%.40q) = %v, encoding/json's Valid says %v", c, got, want)
		}
	}
}

func FuzzWellFormedAgreesWithValid(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b",null]}`, `"\ud800"`, "\"\xff\"", `{"a":1,"a":2}`, `1e9`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := wellFormed(b), json.Valid(b); got != want {
			t.Errorf("wellFormed(%q) = %v, encoding/json's Valid says %v", b, got, want)
		}
	})
}
