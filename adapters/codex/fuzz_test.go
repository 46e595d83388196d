package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

// FuzzRead feeds arbitrary rollouts to Read: it never fails or panics, every event passes the
// validator, every line is kept once or reported, and a read split at a line boundary gives
// the keys of a whole read (and the same messages and parts when it decided the same session).
func FuzzRead(f *testing.F) {
	for _, key := range []string{mainKey, subKey, forkKey, legacyKey, mismKey} {
		data, err := os.ReadFile(filepath.Join(testRoot, filepath.FromSlash(key)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint16(len(data)/2))
	}
	for _, s := range []string{
		"",
		"\n\n \n",
		"{}\n",
		"null\n[]\n\"x\"\n1\n",
		`{"timestamp":"x","type":"session_meta","payload":null}` + "\n",
		`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"` + mainID + `","parent_thread_id":"` + mainID + `","source":{"subagent":"review"}}}` + "\n",
		`{"id":"a","timestamp":"2025-01-01T00:00:00Z"}` + "\n" + `{"type":"message","role":"user","content":"hi"}` + "\n",
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"Exit code: 9"}}` + "\n",
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,@@"}]}}` + "\n",
	} {
		f.Add([]byte(s), uint16(3))
	}
	for _, v := range adaptertest.Hostile() { // bounds: depth, a long line, invalid UTF-8
		f.Add([]byte(`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"`+mainID+`","cwd":"/w"}}`+"\n"+
			`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":`+v+`}]}}`+"\n"+
			`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":`+v+`}}`+"\n"+
			`{"type":"event_msg","payload":{"type":"mcp_tool_call_end","result":{"Ok":`+v+`}}}`+"\n"), uint16(90))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, '\n') // a half-written last line is left for later by design
		}
		dir := t.TempDir()
		name := "rollout-2026-01-01T00-00-00-" + mainID + ".jsonl"
		whole := filepath.Join(dir, "whole", name)
		writeFile(t, whole, data)
		var want adaptertest.Collector
		if _, err := New().Read(t.Context(), adapters.Env{Limits: adaptertest.FuzzLimits}, sourceOf(t, whole), adapters.Cursor{}, &want); err != nil {
			t.Fatalf("whole read: %v", err)
		}
		checkLossless(t, whole, &want)

		// Split after the first line break at or after cut.
		i := 0
		if len(data) > 0 {
			i = bytes.IndexByte(data[int(cut)%len(data):], '\n')
			if i >= 0 {
				i += int(cut)%len(data) + 1
			} else {
				i = len(data)
			}
		}
		split := filepath.Join(dir, "split", name)
		writeFile(t, split, data[:i])
		var first, second adaptertest.Collector
		cur, err := New().Read(t.Context(), adapters.Env{Limits: adaptertest.FuzzLimits}, sourceOf(t, split), adapters.Cursor{}, &first)
		if err != nil {
			t.Fatalf("first read: %v", err)
		}
		appendFile(t, split, data[i:])
		if _, err := New().Read(t.Context(), adapters.Env{Limits: adaptertest.FuzzLimits}, sourceOf(t, split), cur, &second); err != nil {
			t.Fatalf("second read: %v", err)
		}
		msgs := append(first.Messages(), second.Messages()...)
		parts := append(first.Parts(), second.Parts()...)
		if diff := cmp.Diff(messageKeys(want.Messages()), messageKeys(msgs)); diff != "" {
			t.Fatalf("message keys (-whole +split):\n%s", diff)
		}
		if diff := cmp.Diff(partKeys(want.Parts()), partKeys(parts)); diff != "" {
			t.Fatalf("part keys (-whole +split):\n%s", diff)
		}
		if !cmp.Equal(want.Sessions(), first.Sessions()) && len(first.Sessions()) > 0 {
			return // the first read decided the session from fewer lines
		}
		if diff := cmp.Diff(want.Messages(), msgs); diff != "" {
			t.Fatalf("messages (-whole +split):\n%s", diff)
		}
		if diff := cmp.Diff(want.Parts(), parts); diff != "" {
			t.Fatalf("parts (-whole +split):\n%s", diff)
		}
	})
}
