package adapters

import (
	"encoding/json"
	"testing"
	"time"
)

func TestAccessors(t *testing.T) {
	m := Members{}
	if err := json.Unmarshal([]byte(`{"s":"a\u00e9\n","n":5,"f":1.9,"q":"12","big":1e300,"t":true,"z":null,`+
		`"at":"2026-01-02T03:04:05.5Z","o":{"k":1}}`), &m); err != nil {
		t.Fatal(err)
	}
	type got struct {
		S, O                 string
		IsStr, HasZ, HasS    bool
		N, F, Q, Big, SInt   int64
		NOK, QOK, BigOK, TOK bool
		T, TV                bool
		At                   time.Time
		Kind                 byte
		FloatF               float64
		FloatQOK, ValueZ     bool
	}
	var g got
	g.S, g.O, g.IsStr, g.HasZ, g.HasS = m.Str("s"), m.Str("o"), m.IsStr("s"), m.Has("z"), m.Has("s")
	g.N, g.NOK = m.Int("n")
	g.F, _ = m.Int("f")
	g.Q, g.QOK = m.Int("q")
	g.Big, g.BigOK = m.Int("big")
	g.SInt, _ = m.Int("s")
	g.TV, g.TOK = m.Bool("t")
	g.T, _ = m.Bool("n")
	g.At, g.Kind = m.Time("at"), Kind(m["o"])
	g.FloatF, _ = Float(m["f"])
	_, g.FloatQOK = Float(m["q"])
	g.ValueZ = Value(m["z"]) == nil
	want := got{S: "a\u00e9\n", IsStr: true, HasS: true, N: 5, F: 1, Q: 12, NOK: true, QOK: true, TOK: true, TV: true,
		At: time.Date(2026, 1, 2, 3, 4, 5, 5e8, time.UTC), Kind: '{', FloatF: 1.9, ValueZ: true}
	if g != want {
		t.Errorf("got %+v\nwant %+v", g, want)
	}
}

func TestString(t *testing.T) {
	for s, want := range map[string]string{
		"":                 `""`,
		"plain <&> text":   `"plain <&> text"`,
		"q\"\\\n\t\u00e9":  `"q\"\\\n\t` + "\u00e9" + `"`,
		"\u2028 \x01 \xff": `"\u2028 \u0001 \ufffd"`,
	} {
		if got := string(String(s)); got != want {
			t.Errorf("String(%q) = %s, want %s", s, got, want)
		}
	}
	if OptString("") != nil || string(OptString("x")) != `"x"` {
		t.Error("OptString: want nothing for \"\", else String")
	}
}

// FuzzStr: a JSON string decodes as encoding/json decodes it, and String encodes as
// encoding/json does without HTML escaping.
func FuzzStr(f *testing.F) {
	for _, s := range []string{`"x"`, `"a\nb\u00e9\ud83d\ude00"`, `"\ud800"`, `"\ud83d\u0041"`, "\"\xff\xe2\x82\"", `"\udc00\ud800x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want string
		if json.Unmarshal(raw, &want) != nil || Kind(raw) != '"' {
			return
		}
		if got := Str(raw); got != want {
			t.Errorf("Str(%q) = %q; want %q", raw, got, want)
		}
		var back string
		if json.Unmarshal(String(want), &back) != nil || back != want {
			t.Errorf("String(%q) = %s does not decode back", want, String(want))
		}
	})
}
