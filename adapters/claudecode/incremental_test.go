package claudecode

import (
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

// eventKeys lists a collection's events as kind:key, in order.
func eventKeys(c *adaptertest.Collector) []string {
	var out []string
	for _, e := range c.Events {
		out = append(out, string(e.Kind())+":"+e.Key().String())
	}
	return out
}

func TestReadIncremental(t *testing.T) {
	root := copyTree(t)
	path := filepath.Join(root, filepath.FromSlash(mainKey))
	a := Adapter{}
	seen := map[session.Key]bool{}
	read := func(cur map[string]adapters.Cursor) (*adaptertest.Collector, map[string]adapters.Cursor) {
		t.Helper()
		var c adaptertest.Collector
		next := adaptertest.ReadRoot(t, a, testEnv, root, cur, &c)
		for k := range keys(&c) {
			seen[k] = true
		}
		return &c, next
	}
	first, cur := read(nil)
	if n := len(first.Sessions()); n != 6 {
		t.Fatalf("first read: %d sessions, want 6", n)
	}

	// The API response of a-0007 goes on, a prompt follows, and the next line is half written.
	appendFile(t, path, `{"parentUuid":"a-0007","isSidechain":false,"cwd":"/srv/demo","sessionId":"`+mainID+`","type":"assistant","message":{"id":"msg_01D","role":"assistant","content":[{"type":"text","text":"Anything else?"}]},"uuid":"a-0008","timestamp":"2026-03-02T09:34:00.000Z"}`+"\n"+
		`{"parentUuid":"a-0008","isSidechain":false,"cwd":"/srv/demo","sessionId":"`+mainID+`","type":"user","message":{"role":"user","content":"Thanks!"},"uuid":"u-0007","timestamp":"2026-03-02T09:34:30.000Z"}`+"\n"+
		`{"parentUuid":"u-0007","isSidechain":false,"type":"assistant","message":{"role":`)
	second, cur := read(cur)
	want := []string{
		"session:" + mainID,
		"message:" + mainID + "/a-0007", // re-emitted before the part it gains
		"part:" + mainID + "/a-0007/a-0008:0",
		"message:" + mainID + "/u-0007",
		"part:" + mainID + "/u-0007/u-0007:0",
	}
	if diff := cmp.Diff(want, eventKeys(second)); diff != "" {
		t.Fatalf("after append (-want +got):\n%s", diff)
	}
	if p := second.PartsOf(mainID, "a-0007"); len(p) != 1 || p[0].Ordinal != 1 {
		t.Errorf("continued message: parts %+v, want a-0008:0 at ordinal 1", p)
	}

	// The half-written line is completed.
	appendFile(t, path, `"assistant","content":[{"type":"text","text":"Bye."}]},"uuid":"a-0009","timestamp":"2026-03-02T09:35:00.000Z"}`+"\n")
	third, cur := read(cur)
	want = []string{"session:" + mainID, "message:" + mainID + "/a-0009", "part:" + mainID + "/a-0009/a-0009:0"}
	if diff := cmp.Diff(want, eventKeys(third)); diff != "" {
		t.Fatalf("after completing the line (-want +got):\n%s", diff)
	}

	// Touched but not grown: nothing new, nothing emitted.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	fourth, cur := read(cur)
	if len(fourth.Events) != 0 {
		t.Errorf("after a touch: %v, want no events", eventKeys(fourth))
	}

	// Rewritten (the last line edited in place): read from the start, to the same keys.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), `"Bye."`, `"Bye!"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	before := len(seen)
	fifth, _ := read(cur)
	if len(seen) != before {
		t.Errorf("rewritten file: %d new keys, want none", len(seen)-before)
	}
	var full adaptertest.Collector
	readFile(t, mainKey, path, adapters.Cursor{}, &full)
	if diff := cmp.Diff(keys(&full), keys(fifth)); diff != "" {
		t.Errorf("rewritten file: keys differ from a fresh read (-fresh +got):\n%s", diff)
	}
	if len(fifth.PartsOf(mainID, "a-0009")) != 1 || fifth.PartsOf(mainID, "a-0009")[0].Text != "Bye!" {
		t.Errorf("rewritten file: a-0009 parts %+v, want the edited text", fifth.PartsOf(mainID, "a-0009"))
	}

	// The incremental reads gave exactly the keys a single read of the final file gives.
	mainKeys := map[session.Key]bool{}
	for k := range seen {
		if k.SessionID == mainID {
			mainKeys[k] = true
		}
	}
	if diff := cmp.Diff(keys(&full), mainKeys); diff != "" {
		t.Errorf("incremental keys differ from a full read (-full +incremental):\n%s", diff)
	}
}

// TestReadResumedIDs checks that ids made unique by the repeat rule come out the same whether the
// file is read at once or line by line.
func TestReadResumedIDs(t *testing.T) {
	lines := testdataLines(t, mainKey)
	path := filepath.Join(t.TempDir(), mainID+".jsonl")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var cur adapters.Cursor
	var inc adaptertest.Collector
	for _, l := range append(lines, lines[24], lines[2]) { // the mode line and u-meta again
		appendFile(t, path, l+"\n")
		cur = readFile(t, mainKey, path, cur, &inc)
	}
	var full adaptertest.Collector
	readFile(t, mainKey, path, adapters.Cursor{}, &full)
	if diff := cmp.Diff(keys(&full), keys(&inc)); diff != "" {
		t.Errorf("keys (-full +line by line):\n%s", diff)
	}
	for _, id := range []string{recordID("", []byte(lines[24])) + "-3", "u-meta-2"} {
		if !keys(&full)[session.Key{SessionID: mainID, MessageID: id}] {
			t.Errorf("no message %s for the repeated line", id)
		}
	}
}

// TestReadWaitsForCwd: a file holding only the queue line Claude Code writes first is left until
// the prompt line (with its cwd) arrives.
func TestReadWaitsForCwd(t *testing.T) {
	const id = "61d0a2b4-77c1-4e0f-9a53-2b8e4c6d1f00"
	path := filepath.Join(t.TempDir(), id+".jsonl")
	key := "projects/-srv-demo/" + id + ".jsonl"
	if err := os.WriteFile(path, []byte(`{"type":"queue-operation","operation":"dequeue","timestamp":"2026-04-01T10:00:00.000Z","sessionId":"`+id+`"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var c adaptertest.Collector
	cur := readFile(t, key, path, adapters.Cursor{}, &c)
	if len(c.Events) != 0 || cur.Offset != 0 || cur.Stamp == "" {
		t.Fatalf("metadata only: %d events, cursor %+v; want none, offset 0 and the stamp", len(c.Events), cur)
	}
	appendFile(t, path, `{"parentUuid":null,"cwd":"/srv/demo","sessionId":"`+id+`","type":"user","message":{"role":"user","content":"go"},"uuid":"u1","timestamp":"2026-04-01T10:00:00.200Z"}`+"\n")
	readFile(t, key, path, cur, &c)
	s := c.Sessions()[id]
	if s.Project != "/srv/demo" || !s.CreatedAt.Equal(time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)) || len(c.Messages()) != 2 {
		t.Errorf("after the prompt: project %q created %v, %d messages; want /srv/demo, the queue line's time, 2", s.Project, s.CreatedAt, len(c.Messages()))
	}
}

// TestReadBadState: a cursor whose state cannot be used is read from the start.
func TestReadBadState(t *testing.T) {
	path := filepath.Join("testdata", mainKey)
	var c adaptertest.Collector
	cur := readFile(t, mainKey, path, adapters.Cursor{}, &c)
	for _, tc := range []struct {
		name  string
		state string
	}{
		{"garbage", `{"v":`},
		{"other_version", `{"v":99,"session":{"id":"` + mainID + `"}}`},
		{"other_session", `{"v":1,"session":{"id":"someone-else"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := cur
			bad.Stamp, bad.State = "", []byte(tc.state)
			var again adaptertest.Collector
			readFile(t, mainKey, path, bad, &again)
			if got, want := again.Counts(), c.Counts(); got != want {
				t.Errorf("got %v, want a full read's %v", got, want)
			}
		})
	}
}
