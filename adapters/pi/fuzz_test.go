package pi

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

// FuzzRead feeds arbitrary files to Read, whole and in two appends split at a line break: it
// must never fail or panic, every event must pass the model's validator, and the split read
// must produce no message the whole read does not.
func FuzzRead(f *testing.F) {
	for _, key := range []string{mainKey, forkKey, v2Key, v1Key} {
		b, err := os.ReadFile(filepath.Join(testRoot, key))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(7))
	}
	for _, path := range []string{
		"/work/shared/fixtures/pi/agent-sessions/small.jsonl",
		"/work/shared/fixtures/pi/lazyagents/0.87.1/home/.pi/agent/sessions/--work-proj--/2026-09-30T11-37-32-309Z_01a0f21b-0595-72a7-84dc-df0fc0d0de3f.jsonl",
	} {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b, uint16(3))
		}
	}
	f.Add([]byte(`{"type":"session","id":"s","parentSession":"s"}`+"\n"+`{"type":"message","message":{"role":"assistant","content":[{"type":"image"}]}}`), uint16(1))
	f.Add([]byte("{\"type\":\"session\"}\n{}\n{}\nnull\n[]\n{\"id\":\"x\"}\n{\"id\":\"x\"}\n"), uint16(2))
	f.Add([]byte(`{"type":"session","id":" ","cwd":"  ","timestamp":5,"version":"3"}`+"\n"+`{"type":"session","id":" "}`+"\n"), uint16(0))

	f.Add([]byte(`{"type":"session","id":"s","cwd":"/w"}`+"\n"+`{"type":"message","id":"x","message":{"role":"system"}}`+"\n"), uint16(0)) // no content
	for _, v := range adaptertest.Hostile() {                                                                                              // bounds: depth, a long line, invalid UTF-8
		f.Add([]byte(`{"type":"session","id":"s","cwd":"/w","version":3}`+"\n"+
			`{"type":"message","id":"e1","message":{"role":"user","content":[{"type":"text","text":`+v+`}]}}`+"\n"+
			`{"type":"message","id":"e2","message":{"role":"toolResult","toolCallId":"t","content":`+v+`}}`+"\n"), uint16(1))
	}

	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		dir := filepath.Join(t.TempDir(), "sessions", "--p--")
		path := filepath.Join(dir, "2026-01-02T03-04-05-006Z_fuzz.jsonl")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}

		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var whole adaptertest.Collector
		if _, err := New().Read(context.Background(), adapters.Env{Limits: adaptertest.FuzzLimits}, source(t, path), adapters.Cursor{}, &whole); err != nil {
			t.Fatalf("whole read: %v", err)
		}
		keys := map[session.Key]bool{}
		for _, e := range whole.Events {
			keys[e.Key()] = true
		}

		// Split after the split-th line break (mod their number).
		breaks := bytes.Count(data, []byte{'\n'})
		if breaks == 0 {
			return
		}
		n := int(split) % breaks
		at := 0
		for i := 0; i <= n; i++ {
			at += bytes.IndexByte(data[at:], '\n') + 1
		}
		if err := os.WriteFile(path, data[:at], 0o644); err != nil {
			t.Fatal(err)
		}
		var parts adaptertest.Collector
		cur, err := New().Read(context.Background(), adapters.Env{Limits: adaptertest.FuzzLimits}, source(t, path), adapters.Cursor{}, &parts)
		if err != nil {
			t.Fatalf("first part: %v", err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		src := source(t, path)
		src.Stamp += "+" // the stamp may not change within the clock's resolution
		if _, err := New().Read(context.Background(), adapters.Env{Limits: adaptertest.FuzzLimits}, src, cur, &parts); err != nil {
			t.Fatalf("second part: %v", err)
		}
		for _, e := range parts.Events {
			if e.Message != nil && !keys[e.Key()] {
				t.Errorf("split read made message %s, which the whole read did not", e.Key())
			}
		}
	})
}
