package redact

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// unescape decodes what encoding/json decodes, the same way, and refuses what it refuses.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`plain`, `a\"b\\c\/d`, `\b\f\n\r\t`, `\u00e9\u4e2d`, `\ud83d\ude00`,
		`\ud83d`, `\ud83dx`, `\ude00\ud83d`, `\ud83d\u0041`, `\q`, `\u12`, `\u12G4`, `end\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, inner string) {
		var want string
		err := json.Unmarshal([]byte(`"`+inner+`"`), &want)
		got, ok := unescape([]byte(inner))
		if err != nil {
			// encoding/json also refuses control characters and a bare quote, which the
			// scan never hands over (it stops at a quote) or lets pass (a lenient reader).
			return
		}
		if !ok {
			t.Fatalf("%q: refused, encoding/json gives %q", inner, want)
		}
		if utf8.ValidString(inner) && string(got) != want {
			t.Fatalf("%q: %q, encoding/json gives %q", inner, got, want)
		}
	})
}

func TestUnescapeRefusesWhatJSONHasNot(t *testing.T) {
	for _, s := range []string{`\q`, `\u12`, `\u12G4`, `end\`, `\x41`} {
		if got, ok := unescape([]byte(s)); ok {
			t.Errorf("%q: decoded to %q, want refused", s, got)
		}
	}
}

// jsonStrings passes a valid document's string values, and only them, as encoding/json reads
// them, each with the key it belongs to.
func FuzzJSONStrings(f *testing.F) {
	for _, s := range []string{`{"a":"x","b":{"c":"y\"z","n":3},"d":["e",{"f":"g"}],"h":true}`,
		`"top"`, `["a\\","\\\"b\"",""]`, `{"k\"ey":"v\\\\"}`, `{"long":"` + strings.Repeat(`x\n\t\"y`, 50) + `"}`,
		`{ "spaced" : "v" , "arr" : [ "p" , 1 , "q" ] }`, `{"u":"\u00e9\ud83d\ude00"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if !json.Valid([]byte(doc)) || !utf8.ValidString(doc) {
			return
		}
		var got []string
		jsonStrings([]byte(doc), func(k, v []byte) { got = append(got, string(k)+"="+string(v)) })
		var want []string
		var walk func(key string, v any)
		walk = func(key string, v any) {
			switch x := v.(type) {
			case string:
				want = append(want, key+"="+x)
			case []any:
				for _, e := range x {
					walk("", e)
				}
			case map[string]any:
				// encoding/json's map loses the order; compare as sets below
				for k, e := range x {
					walk(k, e)
				}
			}
		}
		var v any
		dec := json.NewDecoder(strings.NewReader(doc))
		dec.UseNumber() // a number too large for a float64 is still valid JSON
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		walk("", v)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) && !hasDuplicateKeys(doc) {
			t.Fatalf("%s: passed %q, encoding/json reads %q", doc, got, want)
		}
	})
}

// hasDuplicateKeys: encoding/json keeps the last of an object's duplicate keys, jsonStrings
// passes every value (each may hold a secret).
func hasDuplicateKeys(doc string) bool {
	dec := json.NewDecoder(strings.NewReader(doc))
	var objects []map[string]bool
	var expectKey []bool
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch x := tok.(type) {
		case json.Delim:
			switch x {
			case '{':
				objects = append(objects, map[string]bool{})
				expectKey = append(expectKey, true)
			case '[':
				objects = append(objects, nil)
				expectKey = append(expectKey, false)
			default:
				objects, expectKey = objects[:len(objects)-1], expectKey[:len(expectKey)-1]
				if n := len(expectKey); n > 0 && objects[n-1] != nil {
					expectKey[n-1] = true
				}
				continue
			}
			continue
		case string:
			if n := len(objects); n > 0 && objects[n-1] != nil && expectKey[n-1] {
				if objects[n-1][x] {
					return true
				}
				objects[n-1][x] = true
				expectKey[n-1] = false
				continue
			}
		}
		if n := len(expectKey); n > 0 && objects[n-1] != nil {
			expectKey[n-1] = true
		}
	}
}
