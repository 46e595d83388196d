package gemini

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// keys lists what a collection emitted: "S <id>", "M <session>/<id>", "P <session>/<message>/<id>".
func keys(c *adaptertest.Collector) []string {
	var out []string
	for _, e := range c.Events {
		switch e.Kind() {
		case session.KindSession:
			out = append(out, "S "+e.Key().String())
		case session.KindMessage:
			out = append(out, "M "+e.Key().String())
		case session.KindPart:
			out = append(out, "P "+e.Key().String())
		}
	}
	return out
}

func TestIncrementalJSONL(t *testing.T) {
	home := copyTree(t, testHome)
	path := filepath.Join(home, mainRel)
	_, cursors := readHome(t, home, nil)

	// New lines, the last one half-written.
	const u4 = "44444444-0000-4000-8000-000000000004"
	const g4 = "55555555-0000-4000-8000-000000000005"
	appendTo(t, path, `{"id":"`+u4+`","timestamp":"2026-05-02T10:03:00.000Z","type":"user","content":[{"text":"Run the tests again"}]}`+"\n"+
		`{"id":"`+g4+`","timestamp":"2026-05-02T10:03:02.000Z","type":"gemini","content":"","toolCalls":[{"id":"run_1","name":"run_shell_command","args":{"command":"npm test"},"status":"executing","timestamp":"2026-05-02T10:03:02.100Z"}],"thoughts":[],"model":"gemini-3-flash-preview"}`+"\n"+
		`{"$set":{"lastUpd`)
	c, cursors := readHome(t, home, cursors)
	want := []string{
		"S " + mainID,
		"M " + mainID + "/" + u4,
		"P " + mainID + "/" + u4 + "/" + u4 + ":0",
		"M " + mainID + "/" + g4,
		"P " + mainID + "/" + g4 + "/" + g4 + ":0", // the call; its result's slot (1) waits
	}
	if diff := cmp.Diff(want, keys(c)); diff != "" {
		t.Errorf("after appending (-want +got):\n%s", diff)
	}
	if len(c.Bad) != 0 {
		t.Errorf("the half-written line was reported: %v", c.Bad)
	}

	// The half-written line completes; the call's result arrives in a replacing line.
	appendTo(t, path, `ated":"2026-05-02T10:03:02.200Z"}}`+"\n"+
		`{"id":"`+g4+`","timestamp":"2026-05-02T10:03:02.000Z","type":"gemini","content":"","toolCalls":[{"id":"run_1","name":"run_shell_command","args":{"command":"npm test"},"result":[{"functionResponse":{"id":"run_1","name":"run_shell_command","response":{"output":"1 passing"}}}],"status":"success","timestamp":"2026-05-02T10:03:02.100Z"}],"thoughts":[],"model":"gemini-3-flash-preview"}`+"\n")
	c, cursors = readHome(t, home, cursors)
	got := keys(c)
	if len(got) != 4 || got[0] != "S "+mainID || !strings.HasPrefix(got[1], "M "+mainID+"/rec-") ||
		got[2] != "M "+mainID+"/"+g4 || got[3] != "P "+mainID+"/"+g4+"/"+g4+":1" {
		t.Errorf("after the result arrived: got %q, want the session, the $set record, the re-emitted message and only its result", got)
	}
	res := c.PartsOf(mainID, g4)
	if len(res) != 1 || res[0].Type != session.PartToolResult || res[0].CallID != "run_1" ||
		!strings.Contains(string(sourceOf(t, res[0].Options)["record"]), `"1 passing"`) {
		t.Errorf("result part: got %+v, want the run_1 result carrying the replacing record", res)
	}
	if len(c.Bad) != 0 {
		t.Errorf("malformed: %v", c.Bad)
	}

	// Nothing new: the stamp is unchanged, nothing is read.
	c, cursors = readHome(t, home, cursors)
	if len(c.Events) != 0 {
		t.Errorf("unchanged sources: got %q, want nothing", keys(c))
	}
	// Touched but not grown: read, nothing emitted.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	c, _ = readHome(t, home, cursors)
	if len(c.Events) != 0 || len(c.Bad) != 0 {
		t.Errorf("touched source: got %q, %v; want nothing", keys(c), c.Bad)
	}
}

// TestResumeAnywhere reads each JSONL fixture in two steps, cut after every line, and checks the
// archive ends up with exactly what one read produces.
func TestResumeAnywhere(t *testing.T) {
	for _, rel := range []string{mainRel, ".gemini/tmp/webapp/chats/" + mainID + "/" + subID + ".jsonl"} {
		data, err := os.ReadFile(filepath.Join(testHome, rel))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "chats", "s.jsonl")
		whole := readFile(t, path, data, adapters.Cursor{})
		for cut := 0; cut < len(data); cut++ {
			if cut > 0 && data[cut-1] != '\n' && cut%97 != 0 {
				continue // every line end, and some cuts inside lines
			}
			if cut < len(data) && data[cut] == '\n' {
				// A complete record still missing its line break is read, and adapters/jsonl
				// then counts the break as a line of its own: line numbers after it shift by one.
				continue
			}
			var c adaptertest.Collector
			cur := readInto(t, path, data[:cut], adapters.Cursor{}, &c)
			readInto(t, path, data, cur, &c)
			if diff := cmp.Diff(archive(whole), archive(&c)); diff != "" {
				t.Fatalf("%s cut at byte %d (-whole +two reads):\n%s", filepath.Base(rel), cut, diff)
			}
		}
	}
}

// archive is what the store keeps of a collection: the first emission of every key.
func archive(c *adaptertest.Collector) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range c.Events {
		if e.Session != nil {
			continue
		}
		k := e.Key().String()
		if seen[k] {
			continue
		}
		seen[k] = true
		var s string
		if e.Message != nil {
			s = fmt.Sprintf("%s %s %s %q %s", k, e.Message.Role, e.Message.Timestamp.Format(time.RFC3339Nano), e.Message.Content, e.Message.Options["source"])
		} else {
			s = k + " " + describe(*e.Part) + " " + string(e.Part.Options["source"])
		}
		out = append(out, s)
	}
	return out
}

// readInto writes data to path and reads it from cur into c.
func readInto(t *testing.T, path string, data []byte, cur adapters.Cursor, c *adaptertest.Collector) adapters.Cursor {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	src := adapters.Source{Key: filepath.Base(path), Path: path, Stamp: adapters.FileStamp(info), Size: info.Size(), ModTime: info.ModTime()}
	next, err := New().Read(context.Background(), adapters.Env{Limits: adaptertest.FuzzLimits}, src, cur, c)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return next
}

func readFile(t *testing.T, path string, data []byte, cur adapters.Cursor) *adaptertest.Collector {
	t.Helper()
	var c adaptertest.Collector
	readInto(t, path, data, cur, &c)
	return &c
}

// TestForgottenMessage replaces a message the cursor no longer remembers in detail: all its
// parts are emitted again (the store keeps the ones it has) and its record is kept apart.
func TestForgottenMessage(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"sessionId":"s-1","projectHash":"abc","startTime":"2026-01-01T00:00:00Z"}` + "\n")
	call := func(i int, done bool) string {
		result := ""
		status := "executing"
		if done {
			result = `,"result":[{"functionResponse":{"id":"c` + fmt.Sprint(i) + `","name":"ls","response":{"output":"ok"}}}]`
			status = "success"
		}
		return fmt.Sprintf(`{"id":"m%d","timestamp":"2026-01-01T00:%02d:00Z","type":"gemini","content":"","toolCalls":[{"id":"c%d","name":"ls","args":{}%s,"status":"%s"}]}`+"\n", i, i, i, result, status)
	}
	for i := range maxRecent + 5 {
		b.WriteString(call(i, false))
	}
	b.WriteString(call(0, true))
	data := []byte(b.String())

	c := readFile(t, filepath.Join(t.TempDir(), "chats", "s.jsonl"), data, adapters.Cursor{})
	parts := c.PartsOf("s-1", "m0")
	if len(parts) != 2 || parts[1].Type != session.PartToolResult || sourceOf(t, parts[1].Options)["record"] != nil {
		t.Errorf("parts of m0: got %v, want the call and the result, the result without the record", parts)
	}
	var kept []string
	for _, m := range c.Messages() {
		if src := sourceOf(t, m.Options); string(src["replaces"]) == `"m0"` {
			kept = append(kept, m.ID)
		}
	}
	if len(kept) != 1 || !strings.HasPrefix(kept[0], "rec-") {
		t.Errorf("got %v, want one system record replacing m0", kept)
	}
}

func TestIncrementalLegacy(t *testing.T) {
	home := copyTree(t, testHome)
	path := filepath.Join(home, oldRel)
	first, cursors := readHome(t, home, nil)

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The CLI rewrites the file whole: one more message and a new lastUpdated.
	const added = `,
    {
      "id": "old-u2",
      "timestamp": "2025-11-03T09:18:00.000Z",
      "type": "user",
      "content": "Thanks"
    }
  ],
  "directories"`
	rewritten := strings.Replace(string(data), "\n  ],\n  \"directories\"", added, 1)
	rewritten = strings.Replace(rewritten, `"lastUpdated": "2025-11-03T09:17:30.000Z"`, `"lastUpdated": "2025-11-03T09:18:00.000Z"`, 1)
	if rewritten == string(data) {
		t.Fatal("fixture did not change")
	}
	if err := os.WriteFile(path, []byte(rewritten), 0o644); err != nil {
		t.Fatal(err)
	}
	second, _ := readHome(t, home, cursors)
	got := keys(second)
	if len(got) != 4 || got[0] != "S "+oldID || !strings.HasPrefix(got[1], "M "+oldID+"/rec-") ||
		got[2] != "M "+oldID+"/old-u2" || got[3] != "P "+oldID+"/old-u2/old-u2:0" {
		t.Errorf("after the rewrite: got %q, want the session, the changed metadata and the new message", got)
	}
	if src := sourceOf(t, second.Messages()[0].Options); string(src["metadata"]) != "true" || !strings.Contains(string(src["record"]), "09:18:00") {
		t.Errorf("metadata record: got %v, want the new metadata marked metadata:true", src)
	}

	// Read from scratch, the rewritten file gives the same keys plus the new message.
	fresh := readFile(t, filepath.Join(t.TempDir(), "chats", "x.json"), []byte(rewritten), adapters.Cursor{})
	var before, after []string
	for _, k := range keys(first) {
		if strings.Contains(k, oldID) {
			before = append(before, k)
		}
	}
	for _, k := range keys(fresh) {
		after = append(after, k)
	}
	want := append(append([]string{}, before...), "M "+oldID+"/old-u2", "P "+oldID+"/old-u2/old-u2:0")
	if diff := cmp.Diff(want, after); diff != "" {
		t.Errorf("fresh read of the rewritten file (-want +got):\n%s", diff)
	}
}

// TestLegacyChangedMessage rewrites a legacy file whose last message gained a tool result.
func TestLegacyChangedMessage(t *testing.T) {
	const head = `{"sessionId":"s-2","projectHash":"abc","startTime":"2025-10-01T00:00:00Z","messages":[{"id":"u","timestamp":"2025-10-01T00:00:01Z","type":"user","content":"go"},`
	before := head + `{"id":"g","timestamp":"2025-10-01T00:00:02Z","type":"gemini","content":"","toolCalls":[{"id":"c","name":"ls","args":{},"status":"executing"}]}]}`
	after := head + `{"id":"g","timestamp":"2025-10-01T00:00:02Z","type":"gemini","content":"","toolCalls":[{"id":"c","name":"ls","args":{},"result":[{"functionResponse":{"id":"c","name":"ls","response":{"output":"a b"}}}],"status":"success"}]}]}`
	path := filepath.Join(t.TempDir(), "chats", "session-x.json")
	var c1 adaptertest.Collector
	cur := readInto(t, path, []byte(before), adapters.Cursor{}, &c1)
	var c2 adaptertest.Collector
	readInto(t, path, []byte(after), cur, &c2)
	want := []string{"S s-2", "M s-2/g", "P s-2/g/g:1"}
	if diff := cmp.Diff(want, keys(&c2)); diff != "" {
		t.Errorf("second read (-want +got):\n%s", diff)
	}
	if src := sourceOf(t, c2.Parts()[0].Options); string(src["replaces"]) != `"g"` || string(src["status"]) != `"success"` || src["record"] == nil {
		t.Errorf("result part options.source: got %v, want record, replaces g, status success", src)
	}
	// Rewritten with the same records (here: only a trailing space): nothing new.
	var c3 adaptertest.Collector
	cur = readInto(t, path, []byte(after), adapters.Cursor{}, &c3)
	var c4 adaptertest.Collector
	readInto(t, path, []byte(after+" "), cur, &c4)
	if len(c4.Events) != 0 {
		t.Errorf("re-read of an unchanged legacy file: got %q, want nothing", keys(&c4))
	}
}
