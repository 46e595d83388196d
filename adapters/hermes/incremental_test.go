package hermes_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/hermes"
	"github.com/pondhq/pond/session"
)

// syncRoot reads root from cursors the way the sync engine does: a source listed with Skip is
// not read and keeps its cursor, an unchanged one is fresh, any other is read from its cursor.
func syncRoot(t *testing.T, env adapters.Env, root string, cursors map[string]adapters.Cursor) (*adaptertest.Collector, map[string]adapters.Cursor) {
	t.Helper()
	srcs, err := hermes.New().Scan(context.Background(), env, root)
	if err != nil {
		t.Fatal(err)
	}
	next := map[string]adapters.Cursor{}
	var c adaptertest.Collector
	for _, src := range srcs {
		cur := cursors[src.Key]
		if src.Skip != "" || cur.Stamp == src.Stamp {
			next[src.Key] = cur
			continue
		}
		if next[src.Key], err = hermes.New().Read(context.Background(), env, src, cur, &c); err != nil {
			t.Fatalf("read %s: %v", src.Key, err)
		}
	}
	return &c, next
}

// write replaces path's content, its modification time moved on so that the stamp changes
// even within one clock tick.
func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mt := time.Now().Add(time.Duration(len(data)) * time.Millisecond)
	if err := os.Chtimes(path, mt, mt); err != nil {
		t.Fatal(err)
	}
}

func keysOf(c *adaptertest.Collector, sid string) []string {
	var out []string
	for _, m := range c.Messages() {
		if m.SessionID == sid {
			out = append(out, m.ID)
		}
	}
	return out
}

// TestGatewayTranscriptIncremental grows a gateway transcript the way Hermes appends to it and
// syncs after each write: every read that has new lines emits the session first, then only the
// new messages; together they are one read of the whole file, nothing repeated, nothing lost. A
// transcript rewritten (as /retry, /undo and /compress do) or cut short is read whole again.
func TestGatewayTranscriptIncremental(t *testing.T) {
	const sid = "20260502_070000_c0ffee"
	root := fixtureRoot(t)
	env := testEnv(t)
	path := filepath.Join(root, "sessions", sid+".jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, cursors := syncRoot(t, env, root, nil) // everything else, as read once before
	whole, _ := syncRoot(t, env, root, map[string]adapters.Cursor{})

	lines := bytes.SplitAfter(data, []byte("\n"))
	lines = lines[:len(lines)-1]
	lines = append(lines, []byte(`{"role":"user","content":"And the checkpoint modes?","timestamp":"2026-05-02T07:01:00"}`+"\n"))
	// Grown one line at a time, with a half-written line between, from an empty file.
	var grown []byte
	var reads []*adaptertest.Collector
	steps := [][]byte{nil}
	for _, l := range lines {
		steps = append(steps, l[:len(l)/2], l[len(l)/2:])
	}
	for _, step := range steps {
		grown = append(grown, step...)
		write(t, path, grown)
		var c *adaptertest.Collector
		c, cursors = syncRoot(t, env, root, cursors)
		if len(c.Bad) > 0 {
			t.Fatalf("after %d bytes: malformed %v", len(grown), c.Bad)
		}
		if len(c.Events) > 0 {
			if s := c.Events[0].Session; s == nil || s.ID != sid {
				t.Fatalf("after %d bytes: the read does not start with the session", len(grown))
			}
		}
		reads = append(reads, c)
	}
	all, _ := syncRoot(t, env, root, map[string]adapters.Cursor{})
	var msgs []session.Message
	var parts []session.Part
	seen := map[string]bool{}
	for i, c := range reads {
		for _, m := range c.Messages() {
			if seen[m.ID] {
				t.Errorf("read %d emitted %s again", i, m.ID)
			}
			seen[m.ID] = true
		}
		msgs, parts = append(msgs, c.Messages()...), append(parts, c.Parts()...)
		for _, s := range c.Sessions() {
			if diff := cmp.Diff(all.Sessions()[sid], s); diff != "" {
				t.Errorf("read %d: the session differs from a whole read's (-whole +read):\n%s", i, diff)
			}
		}
	}
	only := func(c *adaptertest.Collector) ([]session.Message, []session.Part) {
		var ms []session.Message
		var ps []session.Part
		for _, m := range c.Messages() {
			if m.SessionID == sid {
				ms = append(ms, m)
			}
		}
		for _, p := range c.Parts() {
			if p.SessionID == sid {
				ps = append(ps, p)
			}
		}
		return ms, ps
	}
	wantMsgs, wantParts := only(all)
	if diff := cmp.Diff(wantMsgs, msgs); diff != "" {
		t.Errorf("the reads' messages differ from a whole read (-whole +reads):\n%s", diff)
	}
	if diff := cmp.Diff(wantParts, parts); diff != "" {
		t.Errorf("the reads' parts differ from a whole read (-whole +reads):\n%s", diff)
	}
	// The fixture's own lines read as the fixture does (the appended one is new).
	if got, want := keysOf(all, sid)[:len(lines)-2], keysOf(whole, sid); !cmp.Equal(got, want) {
		t.Errorf("message ids %v, the fixture's %v", got, want)
	}

	// Touched, nothing new: nothing emitted.
	write(t, path, grown)
	if c, next := syncRoot(t, env, root, cursors); len(c.Events) > 0 {
		t.Errorf("a touched transcript emitted %d events", len(c.Events))
	} else {
		cursors = next
	}

	// Cut short (a /undo rewrite): read whole again, the same ids as a whole read of it.
	cut := bytes.Join(lines[:3], nil)
	write(t, path, cut)
	c, cursors := syncRoot(t, env, root, cursors)
	if got, want := keysOf(c, sid), keysOf(all, sid)[:2]; !cmp.Equal(got, want) {
		t.Errorf("a transcript cut short: messages %v, want %v", got, want)
	}
	// Rewritten past the cursor with other content (a /compress summary in front): read whole.
	summary := []byte(`{"role":"user","content":"[summary of the earlier turns]","_compressed_summary":true,"timestamp":"2026-05-02T07:02:00"}` + "\n")
	rewritten := append(append(append([]byte{}, lines[0]...), summary...), bytes.Join(lines[3:], nil)...)
	write(t, path, rewritten)
	c, _ = syncRoot(t, env, root, cursors)
	wholeAgain, _ := syncRoot(t, env, root, map[string]adapters.Cursor{})
	if got, want := keysOf(c, sid), keysOf(wholeAgain, sid); !cmp.Equal(got, want) || len(got) != len(lines)-2 {
		t.Errorf("a rewritten transcript: messages %v, want the whole file's %v", got, want)
	}
}

// TestGatewayTranscriptMerge: a session kept both in state.db and in a gateway transcript is
// read from the richer copy as each grows, the transcript on from its cursor: its new lines
// only, none of them lost across the turns the store's rows were the richer.
func TestGatewayTranscriptMerge(t *testing.T) {
	const sid = "20260430_100000_fedcba" // 2 rows in state.db, 1 message in its transcript
	root := fixtureRoot(t)
	env := testEnv(t)
	path := filepath.Join(root, "sessions", sid+".jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(root, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	line := func(text string) []byte {
		return []byte(`{"role":"user","content":"` + text + `","timestamp":"2026-04-30T10:01:00"}` + "\n")
	}
	addRows := func(n int) {
		for range n {
			if _, err := db.Exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', 'row', 1777536200.0)`, sid); err != nil {
				t.Fatal(err)
			}
		}
	}
	isFile := func(m session.Message) bool { return len(m.ID) > 7 && m.ID[6] == '-' }
	fileIDs := map[string]int{} // transcript message id → reads that emitted it
	var fromFile, fromDB []int  // per step: transcript messages, store rows read
	_, cursors := syncRoot(t, env, root, nil)
	for i, step := range []struct {
		lines int // lines appended to the transcript
		rows  int // rows added to the store
	}{
		{lines: 2},          // 3 messages against 2 rows: the transcript, read whole
		{lines: 1},          // 4 against 2: its new line only
		{rows: 3},           // 4 against 5: the store's rows
		{lines: 2},          // 6 against 5: the transcript again, on from its cursor
		{lines: 1, rows: 1}, // 7 against 6: its new line only
	} {
		for j := range step.lines {
			data = append(data, line(string(rune('a'+i))+string(rune('0'+j)))...)
		}
		if step.lines > 0 {
			write(t, path, data)
		}
		addRows(step.rows)
		var c *adaptertest.Collector
		c, cursors = syncRoot(t, env, root, cursors)
		f, d := 0, 0
		for _, m := range c.Messages() {
			switch {
			case m.SessionID != sid:
			case isFile(m):
				fileIDs[m.ID]++
				f++
			default:
				d++
			}
		}
		fromFile, fromDB = append(fromFile, f), append(fromDB, d)
	}
	if want := []int{3, 1, 0, 2, 1}; !cmp.Equal(fromFile, want) {
		t.Errorf("transcript messages read per sync %v, want %v", fromFile, want)
	}
	if want := []int{0, 0, 5, 0, 0}; !cmp.Equal(fromDB, want) {
		t.Errorf("store rows read per sync %v, want %v", fromDB, want)
	}
	for id, n := range fileIDs {
		if n != 1 {
			t.Errorf("transcript message %s read %d times", id, n)
		}
	}
	whole, _ := syncRoot(t, env, root, map[string]adapters.Cursor{})
	n := 0
	for _, m := range whole.Messages() {
		if m.SessionID == sid && isFile(m) {
			n++
			if fileIDs[m.ID] == 0 {
				t.Errorf("transcript message %s was never read", m.ID)
			}
		}
	}
	if n != len(fileIDs) || n != 7 {
		t.Errorf("read %d transcript messages, the file holds %d, want 7", len(fileIDs), n)
	}
}

// TestGatewayCursorSmall: a transcript's cursor keeps a few facts, not its session, so a
// session_meta line carrying every tool's schema (tens of KB in Hermes) never lands in it; the
// session a read going on emits again is still the whole read's, record and all.
func TestGatewayCursorSmall(t *testing.T) {
	const sid = "20260502_070000_c0ffee"
	root := fixtureRoot(t)
	env := testEnv(t)
	path := filepath.Join(root, "sessions", sid+".jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tools := `{"type":"function","function":{"name":"web_search","description":"` + strings.Repeat("x", 64<<10) + `"}}`
	meta := `{"role":"session_meta","tools":[` + tools + `],"platform":"discord","timestamp":"2026-05-02T07:00:00"}` + "\n"
	lines := bytes.SplitAfter(data, []byte("\n"))
	big := append([]byte(meta), bytes.Join(lines[1:], nil)...)
	write(t, path, big)
	_, cursors := syncRoot(t, env, root, nil)
	key := "sessions/" + sid + ".jsonl"
	if n := len(cursors[key].State); n == 0 || n > 256 {
		t.Fatalf("the cursor's state is %d bytes, want a few facts", n)
	}
	write(t, path, append(big, `{"role":"user","content":"more","timestamp":"2026-05-02T07:01:00"}`+"\n"...))
	c, _ := syncRoot(t, env, root, cursors)
	whole, _ := syncRoot(t, env, root, map[string]adapters.Cursor{})
	if got := len(keysOf(c, sid)); got != 1 {
		t.Errorf("the read going on emitted %d messages, want the new one", got)
	}
	if diff := cmp.Diff(whole.Sessions()[sid], c.Sessions()[sid]); diff != "" {
		t.Errorf("the session emitted again differs from a whole read's (-whole +again):\n%s", diff)
	}
}
