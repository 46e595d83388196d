package openclaw

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

// FuzzRead feeds arbitrary bytes to Read as a legacy transcript (whole, then in two appends
// split at a line break), as a compressed archive, and as one database event compressed or not:
// it must never fail or panic, every event must pass the model's validator, and the split
// read must produce no message the whole read does not.
func FuzzRead(f *testing.F) {
	for _, p := range []string{
		"testdata/openclaw/agents/work/sessions/" + workID + ".jsonl",
		"testdata/openclaw/agents/work/sessions/" + workSubID + ".jsonl",
		"/work/shared/fixtures/openclaw/agent-sessions/large.jsonl",
		"/work/shared/fixtures/openclaw/agent-sessions/schema_drift.jsonl",
	} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, uint16(3))
		}
	}
	f.Add([]byte("{\"type\":\"session\",\"id\":\"../x\"}\n{}\nnull\n[]\n{\"id\":\"x\"}\n{\"id\":\"x\"}\n"), uint16(2))
	for _, v := range adaptertest.Hostile() {
		f.Add([]byte(`{"type":"session","id":"s","cwd":"/w","version":3}`+"\n"+
			`{"type":"message","id":"e1","message":{"role":"user","content":[{"type":"text","text":`+v+`}]}}`+"\n"), uint16(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		env := adapters.Env{Limits: adaptertest.FuzzLimits}
		dir := filepath.Join(t.TempDir(), "agents", "main", "sessions")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "fuzz.jsonl")
		write := func(b []byte) adapters.Source {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			return adapters.Source{Key: "agents/main/sessions/fuzz.jsonl", Path: path, Stamp: adapters.FileStamp(info), ModTime: info.ModTime()}
		}
		var whole adaptertest.Collector
		if _, err := New().Read(context.Background(), env, write(data), adapters.Cursor{}, &whole); err != nil {
			t.Fatalf("whole read: %v", err)
		}
		keys := map[session.Key]bool{}
		for _, e := range whole.Events {
			keys[e.Key()] = true
		}
		if breaks := bytes.Count(data, []byte{'\n'}); breaks > 0 {
			at := 0
			for i := 0; i <= int(split)%breaks; i++ {
				at += bytes.IndexByte(data[at:], '\n') + 1
			}
			var parts adaptertest.Collector
			cur, err := New().Read(context.Background(), env, write(data[:at]), adapters.Cursor{}, &parts)
			if err != nil {
				t.Fatalf("first part: %v", err)
			}
			src := write(data)
			src.Stamp += "+"
			if _, err := New().Read(context.Background(), env, src, cur, &parts); err != nil {
				t.Fatalf("second part: %v", err)
			}
			for _, e := range parts.Events {
				if e.Message != nil && !keys[e.Key()] {
					t.Errorf("split read made message %s, which the whole read did not", e.Key())
				}
			}
		}

		// The same bytes as a compressed archive, and as the bytes of an archive (any stream).
		enc, _ := zstd.NewWriter(nil)
		for i, b := range [][]byte{enc.EncodeAll(data, nil), data} {
			name := []string{"fuzz.jsonl.deleted.2026-01-02T03-04-05.006Z.zst", "raw.jsonl.reset.2026-01-02T03-04-05.006Z.zst"}[i]
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			var c adaptertest.Collector
			if _, err := New().Read(context.Background(), env, adapters.Source{Key: "agents/main/sessions/" + name, Path: p, Stamp: "x"}, adapters.Cursor{}, &c); err != nil {
				t.Fatalf("archive %s: %v", name, err)
			}
		}
		// One database event from the bytes as zstd, within the line cap.
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(env.Limits.Line())+1))
		if err != nil {
			t.Fatal(err)
		}
		defer dec.Close()
		if out, err := inflate(dec, data, env.Limits.Line()); err == nil && int64(len(out)) > env.Limits.Line() {
			t.Errorf("inflate gave %d bytes over the cap %d", len(out), env.Limits.Line())
		}
	})
}
