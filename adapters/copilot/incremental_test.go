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

// canonicalEvents renders each key's first emission as JSON, the way the store keeps it.
func canonicalEvents(t *testing.T, events []session.Event) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, e := range events {
		k := e.Key().String()
		if _, ok := out[k]; ok {
			continue
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = string(b)
	}
	return out
}

// growAt writes the first n lines of lines to path, reads it from cur into c, and returns the
// next cursor.
func growAt(t *testing.T, path, key string, lines [][]byte, n int, cur adapters.Cursor, c *adaptertest.Collector) adapters.Cursor {
	t.Helper()
	if err := os.WriteFile(path, bytes.Join(lines[:n], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	return readFile(t, key, path, cur, c)
}

// TestGrowingFile: a session file read after every line it gains (a live session, a sub-agent
// running inline, a resume appending its segment, a model call's chunks written apart) yields
// the events one read of the whole file yields, each object as that read has it; a read resumed
// in the middle of a sub-agent or a chunked message re-emits that session or message before
// adding to it.
func TestGrowingFile(t *testing.T) {
	for _, key := range []string{liveKey, demoKey} {
		t.Run(filepath.Base(filepath.Dir(key)), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", key))
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(data, []byte("\n"))
			lines = lines[:len(lines)-1]
			path := filepath.Join(t.TempDir(), "events.jsonl")

			var whole adaptertest.Collector
			growAt(t, path, key, lines, len(lines), adapters.Cursor{}, &whole)
			want := canonicalEvents(t, whole.Events)

			var grown adaptertest.Collector
			var cur adapters.Cursor
			for n := 1; n <= len(lines); n++ {
				before := len(grown.Events)
				cur = growAt(t, path, key, lines, n, cur, &grown)
				// Every read stands on its own: a session before its messages, a message
				// before its parts.
				seen := map[string]bool{}
				for _, e := range grown.Events[before:] {
					k := e.Key()
					switch {
					case e.Message != nil && !seen[session.Key{SessionID: k.SessionID}.String()]:
						t.Fatalf("line %d: message %s comes before its session in the read", n, k)
					case e.Part != nil && !seen[session.Key{SessionID: k.SessionID, MessageID: k.MessageID}.String()]:
						t.Fatalf("line %d: part %s comes before its message in the read", n, k)
					}
					seen[k.String()] = true
				}
			}
			if diff := cmp.Diff(want, canonicalEvents(t, grown.Events)); diff != "" {
				t.Errorf("read line by line (-whole +grown):\n%s", diff)
			}
			if len(grown.Bad) != len(whole.Bad) {
				t.Errorf("%d malformed reports line by line, %d whole", len(grown.Bad), len(whole.Bad))
			}
		})
	}
}

// TestResumeSegment: a session read before it was resumed, then after `copilot --resume`
// appended its segment, gains the segment's messages and keeps what it had.
func TestResumeSegment(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", liveKey))
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, []byte(`{"type":"session.resume"`))
	if at < 0 {
		t.Fatal("the genuine session has no session.resume")
	}
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, data[:at], 0o644); err != nil {
		t.Fatal(err)
	}
	var before adaptertest.Collector
	cur := readFile(t, liveKey, path, adapters.Cursor{}, &before)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var after adaptertest.Collector
	readFile(t, liveKey, path, cur, &after)
	var texts []string
	for _, p := range after.Parts() {
		if p.Type == session.PartText {
			texts = append(texts, p.Text)
		}
	}
	if diff := cmp.Diff([]string{"Show me notes.txt", "There is no notes.txt in the project."}, texts); diff != "" {
		t.Errorf("texts the resume added (-want +got):\n%s", diff)
	}
	for _, m := range after.Messages() {
		for _, old := range before.Messages() {
			if m.ID == old.ID {
				t.Errorf("message %s read again after the resume", m.ID)
			}
		}
	}
	var failed int
	for _, p := range after.Parts() {
		if p.Type == session.PartToolResult && p.IsFailure && p.Name == "view" {
			failed++
		}
	}
	if failed != 1 {
		t.Errorf("%d failed view results in the resumed segment, want 1", failed)
	}
}
