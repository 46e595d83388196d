package cursor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
)

const (
	c1 = "0b5e6c1a-1111-4a4a-8a8a-000000000001"
	c2 = "0b5e6c1a-1111-4a4a-8a8a-000000000002"
	c5 = "0b5e6c1a-1111-4a4a-8a8a-000000000005"
	c6 = "0b5e6c1a-1111-4a4a-8a8a-000000000006"
)

// readIDESource reads the IDE source alone from cur (the sync engine's way: skipped when its
// stamp is the cursor's).
func readIDESource(t *testing.T, root string, cur adapters.Cursor, out adapters.Emitter) adapters.Cursor {
	t.Helper()
	src, err := scanIDE(root)
	if err != nil || src == nil {
		t.Fatalf("scan: %v, %v", src, err)
	}
	if cur.Stamp == src.Stamp {
		return cur
	}
	next, err := New().Read(context.Background(), testEnv(t), *src, cur, out)
	if err != nil {
		t.Fatal(err)
	}
	return next
}

func emittedSessions(c *adaptertest.Collector) []string {
	var ids []string
	for id := range c.Sessions() {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func stateComposers(t *testing.T, cur adapters.Cursor) int {
	t.Helper()
	st, m := decodeIDEState(cur.State)
	if st.V != ideStateVersion {
		t.Fatalf("cursor state %s does not decode", cur.State)
	}
	return len(m)
}

// TestIDEIncremental: a pass after one chat changed reads that chat alone, and the cursor
// keeps every chat it did not read (a peer's incremental pass forgot them, so the next pass
// took them for new or, worse, for gone); a commit that touches no chat reads none.
func TestIDEIncremental(t *testing.T) {
	root := fixture(t)
	db := globalDB(root)
	var first adaptertest.Collector
	cur := readIDESource(t, root, adapters.Cursor{}, &first)
	if got := emittedSessions(&first); len(got) != 6 {
		t.Fatalf("first pass read %v, want the fixture's six composers", got)
	}
	if n := stateComposers(t, cur); n != 6 {
		t.Fatalf("cursor keeps %d composers, want 6", n)
	}

	steps := []struct {
		name  string
		stmts []string
		want  []string // sessions emitted
		kept  int      // composers in the cursor afterwards
	}{
		{"ui-state-only", []string{`INSERT INTO ItemTable VALUES('workbench.view.state','{"x":1}')`}, nil, 6},
		{"new-bubble", []string{
			`INSERT INTO cursorDiskKV VALUES('bubbleId:` + c2 + `:b2-more','{"_v":3,"type":1,"bubbleId":"b2-more","text":"And in tests?","createdAt":"2025-12-01T12:01:00Z"}')`,
		}, []string{c2}, 6},
		{"bubble-rewritten", []string{ // INSERT OR REPLACE, as Cursor writes: a new rowid
			`INSERT INTO cursorDiskKV VALUES('bubbleId:` + c6 + `:b6-task','{"_v":3,"type":1,"bubbleId":"b6-task","text":"Which tests cover checkout and refunds?","createdAt":"2025-12-01T12:05:01.000Z"}')`,
		}, []string{c6}, 6},
		{"updated-in-place", []string{ // an UPDATE keeps rowids; the record's new time shows
			`UPDATE cursorDiskKV SET value = '{"_v":3,"type":1,"bubbleId":"b2-more","text":"And in the tests too?","createdAt":"2025-12-01T12:01:00Z"}' WHERE key = 'bubbleId:` + c2 + `:b2-more'`,
			`UPDATE cursorDiskKV SET value = replace(value, '"createdAt":1764590420000', '"createdAt":1764590420000,"lastUpdatedAt":1764590461000') WHERE key = 'composerData:` + c2 + `'`,
		}, []string{c2}, 6},
		{"record-same-size", []string{ // a new lastUpdatedAt of the same length, in place
			`UPDATE cursorDiskKV SET value = replace(value, '1764590461000', '1764590462000') WHERE key = 'composerData:` + c2 + `'`,
		}, []string{c2}, 6},
		{"composer-gone", []string{`DELETE FROM cursorDiskKV WHERE key LIKE 'bubbleId:` + c5 + `:%'`}, nil, 5},
	}
	for _, s := range steps {
		write(t, db, s.stmts...)
		var c adaptertest.Collector
		cur = readIDESource(t, root, cur, &c)
		if got := emittedSessions(&c); !slices.Equal(got, s.want) {
			t.Errorf("%s: emitted sessions %v, want %v", s.name, got, s.want)
		}
		if n := stateComposers(t, cur); n != s.kept {
			t.Errorf("%s: cursor keeps %d composers, want %d", s.name, n, s.kept)
		}
		// A changed chat is emitted whole, so the store's copy is complete.
		for _, id := range s.want {
			var whole adaptertest.Collector
			readIDESource(t, root, adapters.Cursor{}, &whole)
			if got, want := countMessages(&c, id), countMessages(&whole, id); got != want {
				t.Errorf("%s: %s emitted with %d messages, a full read has %d", s.name, id, got, want)
			}
		}
	}
	// Nothing changed since: the source is fresh, and a read anyway finds nothing to emit.
	var again adaptertest.Collector
	src, _ := scanIDE(root)
	if _, err := New().Read(context.Background(), testEnv(t), *src, cur, &again); err != nil {
		t.Fatal(err)
	}
	if len(again.Events) != 0 {
		t.Errorf("a read with nothing changed emitted %d events", len(again.Events))
	}
}

func countMessages(c *adaptertest.Collector, id string) int {
	n := 0
	for _, m := range c.Messages() {
		if m.SessionID == id {
			n++
		}
	}
	return n
}

// TestIDELinks: a window opened on a folder links a chat to it, and only that chat is read
// again; a sub-agent read before its parent named it is read again with its parent.
func TestIDELinks(t *testing.T) {
	root := fixture(t)
	var first adaptertest.Collector
	cur := readIDESource(t, root, adapters.Cursor{}, &first)
	if p := first.Sessions()[c5].Project; p != noWorkspace {
		t.Fatalf("c5's project is %q before any workspace lists it", p)
	}
	ws := filepath.Join(root, "User", "workspaceStorage", "ws-new")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "workspace.json"), []byte(`{"folder":"file:///home/dev/tools"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, "state.vscdb"),
		`CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)`,
		`INSERT INTO ItemTable VALUES('composer.composerData','{"allComposers":[{"composerId":"`+c5+`"}]}')`)
	var c adaptertest.Collector
	cur = readIDESource(t, root, cur, &c)
	if got := emittedSessions(&c); !slices.Equal(got, []string{c5}) {
		t.Errorf("after a workspace listed c5, emitted %v, want c5 alone", got)
	}
	if p := c.Sessions()[c5].Project; p != "/home/dev/tools" {
		t.Errorf("c5's project is %q, want /home/dev/tools", p)
	}

	// A new sub-agent whose id sorts before its parent's: read first, without a parent, then
	// again once the parent's record names it.
	const kid = "0a000000-0000-4000-8000-000000000007"
	write(t, globalDB(root),
		`INSERT INTO cursorDiskKV VALUES('composerData:`+kid+`','{"composerId":"`+kid+`","createdAt":1764590430000}')`,
		`INSERT INTO cursorDiskKV VALUES('bubbleId:`+kid+`:k1','{"type":1,"text":"Check invoice.go too.","createdAt":"2025-12-01T12:00:31Z"}')`,
		`INSERT INTO cursorDiskKV SELECT key, replace(value, '"subComposerIds":["`+c2+`"]', '"subComposerIds":["`+c2+`","`+kid+`"]') FROM cursorDiskKV WHERE key = 'composerData:`+c1+`'`)
	var sub adaptertest.Collector
	cur = readIDESource(t, root, cur, &sub)
	s := sub.Sessions()[kid]
	if s.ParentSessionID != c1 || s.SourceAgent != SubagentKind {
		t.Errorf("sub-agent %s: parent %q, agent %q; want %s, %s", kid, s.ParentSessionID, s.SourceAgent, c1, SubagentKind)
	}
	var after adaptertest.Collector
	write(t, globalDB(root), `INSERT INTO ItemTable VALUES('x','y')`)
	readIDESource(t, root, cur, &after)
	if len(after.Events) != 0 {
		t.Errorf("the pass after emitted %v: the sub-agent's link was not kept", emittedSessions(&after))
	}
}

// TestIDECheckpoints: a read stopped after any composer (the cursor the sync engine stores
// with a batch) and resumed from there emits the rest, and together the keys of a whole read.
func TestIDECheckpoints(t *testing.T) {
	root := fixture(t)
	var whole checkpointing
	readIDESource(t, root, adapters.Cursor{}, &whole)
	if len(whole.cursors) == 0 {
		t.Fatal("no checkpoint offered")
	}
	all := keys(whole.Events)
	for i, cur := range whole.cursors {
		if cur.Stamp != "" {
			t.Fatalf("checkpoint %d has a stamp", i)
		}
		var rest adaptertest.Collector
		readIDESource(t, root, cur, &rest)
		got := keys(whole.Events[:whole.at[i]])
		for k := range keys(rest.Events) {
			got[k] = true
		}
		for k := range all {
			if !got[k] {
				t.Errorf("resumed from checkpoint %d: %s missing", i, k)
			}
		}
		if n := len(emittedSessions(&rest)); n != 6-(i+1) {
			t.Errorf("resumed from checkpoint %d: %d composers read again, want %d", i, n, 6-(i+1))
		}
	}
}

type checkpointing struct {
	adaptertest.Collector
	cursors []adapters.Cursor
	at      []int
}

func (c *checkpointing) WantCheckpoint() bool { return true }

func (c *checkpointing) Checkpoint(cur adapters.Cursor) {
	c.cursors, c.at = append(c.cursors, cur), append(c.at, len(c.Events))
}

func keys(events []session.Event) map[string]bool {
	out := map[string]bool{}
	for _, e := range events {
		out[e.Key().String()] = true
	}
	return out
}

// TestIDEStateVersion: a cursor of another shape is a read from the start.
func TestIDEStateVersion(t *testing.T) {
	root := fixture(t)
	for _, st := range []string{`{"v":99}`, `[]`, `{"v":1,"c":"AAAA"}`} {
		var c adaptertest.Collector
		readIDESource(t, root, adapters.Cursor{Stamp: "old", State: json.RawMessage(st)}, &c)
		if n := len(emittedSessions(&c)); n != 6 {
			t.Errorf("from state %s: %d composers read, want 6", st, n)
		}
	}
}
