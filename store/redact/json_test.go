package redact

import (
	"encoding/json"
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
		if utf8.ValidString(inner) && got != want {
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
