package claudecode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

// FuzzRead feeds arbitrary files to Read, whole and cut in two (the second half appended and
// read from the first read's cursor): no panic, and every stream passes the store's validator.
func FuzzRead(f *testing.F) {
	for _, key := range []string{
		mainKey,
		"projects/-srv-demo/agent-5e6f7a8b.jsonl",
		"projects/-legacy-nocwd/3b2a1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d.jsonl",
	} {
		b, err := os.ReadFile(filepath.Join("testdata", key))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(len(b)/2))
	}
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use"},{"type":"image","source":{"type":"base64","data":"%%%"}}]}}`+"\n"+`{"type":"assistant","message":{"id":"m","content":[7,null,{"type":"text"}]}}`), uint16(40))
	f.Add([]byte(`{"type":"user","cwd":" ","timestamp":"0001-01-01T00:00:00Z","message":{"content":{}}}`+"\n[]\nnull\n{}"), uint16(3))
	f.Add([]byte(`{"type":"user","uuid":"x","cwd":"/w","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"a"}}`+"\n"+`{"type":"user","uuid":"x"`), uint16(100))

	for _, v := range adaptertest.Hostile() { // bounds: depth, a long line, invalid UTF-8
		f.Add([]byte(`{"type":"user","uuid":"u","cwd":"/w","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}`+"\n"+
			`{"type":"user","uuid":"h","message":{"role":"user","content":[{"type":"text","text":`+v+`}]}}`+"\n"+
			`{"type":"assistant","uuid":"a","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"n","input":`+v+`}]}}`+"\n"), uint16(120))
	}

	layouts := []string{
		"projects/-p/0f0e0d0c-0b0a-4909-8807-060504030201.jsonl",
		"projects/-p/0f0e0d0c-0b0a-4909-8807-060504030201/subagents/agent-a1.jsonl",
		"projects/-p/agent-b2.jsonl",
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		key := layouts[int(cut)%len(layouts)]
		path := filepath.Join(t.TempDir(), filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var whole adaptertest.Collector
		readFile(t, key, path, adapters.Cursor{}, &whole)

		n := min(int(cut), len(data))
		if err := os.WriteFile(path, data[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		var first, second adaptertest.Collector
		cur := readFile(t, key, path, adapters.Cursor{}, &first)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		readFile(t, key, path, cur, &second)

		// Read in two goes, a session gives the keys one read gives. (Not when a line is not JSON:
		// the first go may take a JSON prefix of it for a whole line, as a live read must.)
		if key != layouts[0] || !jsonLines(data) {
			return
		}
		split := keys(&first)
		for k := range keys(&second) {
			split[k] = true
		}
		if diff := cmp.Diff(keys(&whole), split); diff != "" {
			t.Errorf("keys read in two goes (cut at %d) differ from one read (-one +two):\n%s", n, diff)
		}
	})
}

// jsonLines reports whether every non-blank line of data is JSON.
func jsonLines(data []byte) bool {
	for _, l := range bytes.Split(data, []byte("\n")) {
		if l = bytes.TrimRight(l, "\r"); len(bytes.TrimSpace(l)) > 0 && !json.Valid(l) {
			return false
		}
	}
	return true
}
