package copilot

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

// FuzzRead feeds arbitrary files to Read, whole and cut in two (the second half appended and
// read from the first read's cursor): no panic, every stream passes the store's validator (the
// collector checks), and a file of JSON lines read in two goes gives the keys one read gives.
func FuzzRead(f *testing.F) {
	for _, key := range []string{liveKey, demoKey, flatKey} {
		b, err := os.ReadFile(filepath.Join("testdata", key))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(len(b)/2))
	}
	f.Add([]byte(`{"type":"assistant.message","data":{"content":7,"toolRequests":[null,3,{"toolCallId":[]}],"chunkIndex":"x","chunkCount":2,"apiCallId":"a"}}`+"\n"+
		`{"type":"assistant.message","agentId":"a/b","data":{"apiCallId":"a","chunkIndex":1,"chunkCount":2,"content":"x"}}`), uint16(40))
	f.Add([]byte(`{"type":"session.info","data":{"infoType":"pond_restored_from","message":"{\"session\":\"s\",\"parent\":\"../x\"}"}}`+"\n"+
		`{"type":"user.message","id":"u","agentId":"","data":{"attachments":[{"type":"blob","data":"!!"},7]}}`), uint16(60))
	for _, v := range adaptertest.Hostile() { // bounds: depth, a long line, invalid UTF-8
		f.Add([]byte(`{"type":"session.start","data":{"sessionId":"s","context":{"cwd":"/w"}},"id":"i","timestamp":"2026-01-01T00:00:00Z"}`+"\n"+
			`{"type":"assistant.message","id":"a","data":{"content":"c","toolRequests":[{"toolCallId":"c","name":"n","arguments":`+v+`}]}}`+"\n"+
			`{"type":"tool.execution_complete","id":"r","data":{"toolCallId":"c","success":true,"result":{"content":`+v+`}}}`+"\n"), uint16(120))
	}

	layouts := []string{
		"session-state/0f0e0d0c-0b0a-4909-8807-060504030201/events.jsonl",
		"session-state/0f0e0d0c-0b0a-4909-8807-060504030202.jsonl",
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
		// Not when a line is not JSON: the first go may take a JSON prefix of it for a whole
		// line, as a live read must.
		if !jsonLines(data) {
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

// keys are the distinct archive keys of a collection's events.
func keys(c *adaptertest.Collector) map[session.Key]bool {
	out := map[session.Key]bool{}
	for _, e := range c.Events {
		out[e.Key()] = true
	}
	return out
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
