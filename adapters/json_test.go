package adapters

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tree is a JSON document as a canonical tree: objects as maps, arrays as lists, every value as
// written, strings decoded.
type tree struct {
	Obj map[string]*tree
	Arr []*tree
	Raw string
	Str *string
}

// treeOf is what ReadNode read of n, down to the members read along.
func treeOf(n *Node, sh *Shape) *tree {
	t := &tree{Raw: string(n.Raw)}
	if n.IsText {
		s := n.Text
		t.Str = &s
	}
	switch {
	case n.Members != nil:
		t.Obj = map[string]*tree{}
		for k, v := range n.Members {
			if kid := n.Kids[k]; kid != nil {
				t.Obj[k] = treeOf(kid, sh.Members[k])
				continue
			}
			t.Obj[k] = &tree{Raw: string(v)}
		}
	case n.Elems != nil:
		t.Arr = []*tree{}
		for _, el := range n.Elems {
			t.Arr = append(t.Arr, treeOf(el, sh))
		}
	}
	return t
}

// treeUnmarshal reads the same tree level by level with json.Unmarshal, down to the members sh
// names.
func treeUnmarshal(raw json.RawMessage, sh *Shape) *tree {
	t := &tree{Raw: string(raw)}
	var obj map[string]json.RawMessage
	var arr []json.RawMessage
	var s string
	switch {
	case raw[0] == '{' && json.Unmarshal(raw, &obj) == nil:
		t.Obj = map[string]*tree{}
		for k, v := range obj {
			if ksh := sh.Members[k]; ksh != nil {
				t.Obj[k] = treeUnmarshal(v, ksh)
				continue
			}
			t.Obj[k] = &tree{Raw: string(v)}
		}
	case raw[0] == '[' && json.Unmarshal(raw, &arr) == nil:
		t.Arr = []*tree{}
		for _, v := range arr {
			t.Arr = append(t.Arr, treeUnmarshal(v, sh))
		}
	case raw[0] == '"' && sh.Text && json.Unmarshal(raw, &s) == nil:
		t.Str = &s
	}
	return t
}

// deepShape reads keys "a" and "l" along, at any depth.
var deepShape = func() *Shape {
	sh := &Shape{Text: true}
	sh.Members = map[string]*Shape{"a": sh, "l": sh, "s": {Text: true}}
	return sh
}()

// checkNode checks that ReadNode reads data as json.Unmarshal does: the same tree when it is
// valid JSON, an error (in encoding/json's words) when it is not.
func checkNode(t *testing.T, data []byte, sh *Shape) {
	t.Helper()
	n, err := ReadNode(data, sh)
	if sh == nil {
		sh = noShape
	}
	var v json.RawMessage
	uerr := json.Unmarshal(data, &v)
	if uerr != nil {
		if err == nil {
			t.Errorf("%.80q: no error reading invalid JSON", data)
		} else if err.Error() != uerr.Error() {
			t.Errorf("%.80q: error %q, want encoding/json's %q", data, err, uerr)
		}
		return
	}
	if err != nil {
		t.Fatalf("%.80q: %v", data, err)
	}
	if len(data) > 4096 {
		return // reading it level by level would take as long as the fuzzer waits
	}
	if diff := cmp.Diff(treeUnmarshal(bytes.TrimSpace(data), sh), treeOf(n, sh)); diff != "" {
		t.Errorf("%.80q: read differs from json.Unmarshal's (-Unmarshal +ReadNode):\n%s", data, diff)
	}
}

var nodeDocs = []string{
	`{}`, `[]`, `"s"`, `7`, `-1.5e3`, `true`, `null`, ` { "a" : [ 1 , { } , "x" ] } `,
	`{"type":"a","Type":"b","TYPE":{"x":[1,2,{"y":null}]}}`, // keys match exactly
	`{"a":1,"a":{"b":2},"a":"last"}`,                        // the last of a repeated key
	`{"a":{"s":"x"},"a":7}`,                                 // a repeated key read along, then not an object
	`{"\u0074ype":"escaped key","s":"\"q\" \\ \u00e9 \ud83d\ude00","n":[[],[[]],{"":""}]}`,
	`{"s":"lone \ud800 surrogate, \udc00 low, \ud83d\u0041 unpaired, \ud83d"}`,
	"{\"s\":\"bad utf8 \xff\xfe, cut \xe2\x82\",\"k\xff\":1}",
	"{\"s\":\"\u2028\u2029 \\u2028\"}",
	`{"a":{"a":{"a":{"l":[{"a":"deep"}]}}}}`,
	`{"a":1}{"b":2}`, `{"a":1} x`, `{"a":}`, `{"a":1`, `[1,2`, `{"a" 1}`, `{1:2}`, `"open`, ``, ` `,
	`{"a":01}`, `{"a":1.}`, `{"a":+1}`, `{"a":.5}`, `[1,]`, `{"a":1,}`, `{"a":tru}`, `nul`, `{"s":"tab	in"}`,
	"\ufeff{}", `{"a":"\x"}`, `{"a":"\u12"}`,
}

func TestReadNode(t *testing.T) {
	for _, doc := range nodeDocs {
		for _, sh := range []*Shape{nil, deepShape} {
			checkNode(t, []byte(doc), sh)
		}
	}
}

// TestReadNodeDepth: nesting up to MaxDepth is read, a deeper document is malformed (as
// encoding/json has it), however deep.
func TestReadNodeDepth(t *testing.T) {
	nest := func(depth int, open, close string) []byte {
		return []byte(strings.Repeat(open, depth) + strings.Repeat(close, depth))
	}
	for _, tc := range []struct {
		name string
		doc  []byte
		ok   bool
	}{
		{"lists_at_limit", nest(MaxDepth, "[", "]"), true},
		{"lists_beyond", nest(MaxDepth+1, "[", "]"), false},
		{"objects_at_limit", []byte(strings.Repeat(`{"a":`, MaxDepth-1) + "{}" + strings.Repeat("}", MaxDepth-1)), true},
		{"objects_beyond", []byte(strings.Repeat(`{"a":`, MaxDepth) + "{}" + strings.Repeat("}", MaxDepth)), false},
		{"skipped_beyond", []byte(`{"x":` + string(nest(MaxDepth, "[", "]")) + `}`), false},
		{"million_open", []byte(strings.Repeat(`{"a":[`, 1_000_000)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, sh := range []*Shape{nil, deepShape} {
				_, err := ReadNode(tc.doc, sh)
				if (err == nil) != tc.ok {
					t.Errorf("error %v, want ok %t", err, tc.ok)
				}
				if json.Valid(tc.doc) != tc.ok {
					t.Errorf("encoding/json: valid %t, want %t", !tc.ok, tc.ok)
				}
			}
		})
	}
}

func TestReadObject(t *testing.T) {
	for _, doc := range []string{`[1]`, `null`, `"s"`, `1`} {
		if _, err := ReadObject([]byte(doc), nil); err != ErrNotObject {
			t.Errorf("%s: got %v, want ErrNotObject", doc, err)
		}
	}
	if _, err := ReadObject([]byte(`{"a":`), nil); err == nil || err.Error() != "unexpected end of JSON input" {
		t.Errorf("truncated: got %v, want encoding/json's words", err)
	}
}

func TestEachMember(t *testing.T) {
	doc := []byte("{\n  \"a\": [1, 2],\n  \"b\" :\"x\",\"a\":null }")
	var got []string
	err := EachMember(doc, func(key string, val json.RawMessage, at int) error {
		if string(doc[at:at+len(val)]) != string(val) {
			t.Errorf("%s: at %d is not its value", key, at)
		}
		got = append(got, key+"="+string(val))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a=[1, 2]", `b="x"`, "a=null"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var elems []string
	if err := EachElem([]byte(` [ {"a":1}, "s" ,3]`), func(v json.RawMessage, at int) error {
		elems = append(elems, string(v))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{`{"a":1}`, `"s"`, "3"}, elems); diff != "" {
		t.Errorf("elements (-want +got):\n%s", diff)
	}
	for _, bad := range []string{`[1]`, `{"a":1`, `{"a":1} {}`} {
		if EachMember([]byte(bad), func(string, json.RawMessage, int) error { return nil }) == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func FuzzReadNode(f *testing.F) {
	for _, doc := range nodeDocs {
		f.Add([]byte(doc))
	}
	f.Add([]byte(strings.Repeat("[", MaxDepth+1)))
	f.Add([]byte(strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth)))
	f.Add([]byte(`{"s":"` + strings.Repeat(`\u00e9\n`, 1<<13) + `"}`)) // a long line with escapes
	f.Add([]byte("{\"s\":\"\xed\xa0\x80\xc0\xaf\"}"))                  // UTF-8 surrogates, overlong
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, sh := range []*Shape{nil, deepShape} {
			checkNode(t, data, sh)
		}
	})
}
