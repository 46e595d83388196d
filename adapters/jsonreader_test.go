package adapters

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// walked is a JSON document as a canonical tree: objects as maps, arrays as lists, literals as
// written.
type walked struct {
	Obj map[string]*walked
	Arr []*walked
	Raw string
}

// walkReader reads a document with a JSONReader, every value as written too.
func walkReader(r *JSONReader) (*walked, error) {
	w := &walked{}
	start := r.Start()
	var err error
	switch r.Next() {
	case '{':
		w.Obj = map[string]*walked{}
		_, err = r.Object(func(key string) error {
			v, err := walkReader(r)
			w.Obj[key] = v
			return err
		})
	case '[':
		w.Arr = []*walked{}
		_, err = r.Array(func() error {
			v, err := walkReader(r)
			w.Arr = append(w.Arr, v)
			return err
		})
	default:
		err = r.Skip()
	}
	w.Raw = string(r.Since(start))
	return w, err
}

// walkUnmarshal reads the same tree level by level with json.Unmarshal.
func walkUnmarshal(raw json.RawMessage) *walked {
	w := &walked{Raw: string(raw)}
	var obj map[string]json.RawMessage
	var arr []json.RawMessage
	switch {
	case raw[0] == '{' && json.Unmarshal(raw, &obj) == nil:
		w.Obj = map[string]*walked{}
		for k, v := range obj {
			w.Obj[k] = walkUnmarshal(v)
		}
	case raw[0] == '[' && json.Unmarshal(raw, &arr) == nil:
		w.Arr = []*walked{}
		for _, v := range arr {
			w.Arr = append(w.Arr, walkUnmarshal(v))
		}
	}
	return w
}

// checkReader checks that a JSONReader reads data as json.Unmarshal does: the same tree when it
// is valid JSON, an error when it is not.
func checkReader(t *testing.T, data []byte) {
	t.Helper()
	r := NewJSONReader(data)
	got, err := walkReader(r)
	if err == nil {
		err = r.End()
	}
	if !json.Valid(data) {
		if err == nil {
			t.Errorf("%q: no error reading invalid JSON", data)
		}
		return
	}
	if err != nil {
		t.Fatalf("%q: %v", data, err)
	}
	if diff := cmp.Diff(walkUnmarshal(bytes.TrimSpace(data)), got); diff != "" {
		t.Errorf("%q: read differs from json.Unmarshal's (-Unmarshal +JSONReader):\n%s", data, diff)
	}
}

func TestJSONReader(t *testing.T) {
	for _, doc := range []string{
		`{}`, `[]`, `"s"`, `7`, `-1.5e3`, `true`, `null`, ` { "a" : [ 1 , { } , "x" ] } `,
		`{"type":"a","Type":"b","TYPE":{"x":[1,2,{"y":null}]}}`, // keys match exactly
		`{"a":1,"a":{"b":2},"a":"last"}`,                        // the last of a repeated key
		`{"\u0074ype":"escaped key","s":"\"q\" \\ \u00e9 \ud83d\ude00","n":[[],[[]],{"":""}]}`,
		"{\"bad utf8\":\"\xff\xfe\"}",
		`{"a":1}{"b":2}`, `{"a":1} x`, `{"a":}`, `{"a":1`, `[1,2`, `{"a" 1}`, `{1:2}`, `"open`, ``, ` `,
	} {
		checkReader(t, []byte(doc))
	}
}

func TestJSONReaderValues(t *testing.T) {
	r := NewJSONReader([]byte(`{"s":"a\nb","n":5,"o":{"k":[1]},"x":"y"}`))
	var s, n, o string
	var nok bool
	var raw json.RawMessage
	_, err := r.Object(func(key string) (err error) {
		switch key {
		case "s":
			s, _, err = r.String()
		case "n":
			n, nok, err = r.String()
		case "o":
			start := r.Start()
			err = r.Decode(&o) // an object into a string: left zero
			raw = r.Since(start)
		default:
			err = r.Skip()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if s != "a\nb" || n != "" || nok || o != "" || string(raw) != `{"k":[1]}` {
		t.Errorf("got s %q, n %q (%t), o %q, raw %s", s, n, nok, o, raw)
	}
}

func FuzzJSONReader(f *testing.F) {
	for _, doc := range []string{`{"a":[1,{"b":"c"}],"a":null}`, `[{"x":"\u00e9"}, 2, "s"]`, `{"a":1} `} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkReader(t, data) })
}
