package hermes_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/hermes"
)

// FuzzRead feeds arbitrary session files to the adapter, as a gateway transcript and as a
// legacy snapshot: no panic, and every stream passes the store's validator (the collector
// checks). The stores' rows take the same mapping (emit.go), which the transcript exercises.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"20260502_070000_c0ffee.jsonl", "session_20260429_hermes_schema_drift.json", "session_20260429_hermes_large.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "hermes", "sessions", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false)
		f.Add(b, true)
	}
	f.Add([]byte(`{"role":"assistant","content":[7,{"type":"image_url","image_url":{}}],"tool_calls":[null,{"function":{"arguments":7}}]}`+"\n"+
		`{"role":"user","content":"\u0000json:[{\"type\":\"text\"}]","timestamp":1e300}`), false)
	f.Add([]byte(`{"session_id":"../x","model_config":{"pond_restored_from":{"session":"a/../b"}},"messages":[1,{"role":"tool"}]}`), true)
	for _, v := range adaptertest.Hostile() {
		f.Add([]byte(`{"role":"session_meta"}`+"\n"+`{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"n","arguments":`+v+`}}]}`+"\n"), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, snapshot bool) {
		root := t.TempDir()
		name := "20260101_000000_abcdef.jsonl"
		if snapshot {
			name = "session_20260101_000000_abcdef.json"
		}
		dir := filepath.Join(root, "sessions")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		var c adaptertest.Collector
		adaptertest.ReadRoot(t, hermes.New(), adaptertest.FakeEnv("linux", t.TempDir(), nil), root, nil, &c)
	})
}
