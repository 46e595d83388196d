package hermes_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/hermes"
	"github.com/pondhq/pond/session"
)

// TestGatewayTranscriptIncremental: Hermes appends to a gateway transcript, and a read goes on
// from the cursor: a line appended is the only message the next read emits, under the id and
// in the session a read of the whole file gives it; a file rewritten is read again whole.
func TestGatewayTranscriptIncremental(t *testing.T) {
	root := fixtureRoot(t)
	path := filepath.Join(root, "sessions", "20260502_070000_c0ffee.jsonl")
	key := "sessions/20260502_070000_c0ffee.jsonl"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := testEnv(t)
	// Through Scan's source, which names the session (Hint) as a sync does.
	srcs, err := hermes.New().Scan(t.Context(), env, root)
	if err != nil {
		t.Fatal(err)
	}
	var src adapters.Source
	for _, s := range srcs {
		if s.Key == key {
			src = s
		}
	}
	if src.Path == "" {
		t.Fatalf("Scan lists no %s", key)
	}
	readSrc := func(cur adapters.Cursor) (*adaptertest.Collector, adapters.Cursor) {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		src.Stamp, src.Size, src.ModTime = adapters.FileStamp(info), info.Size(), info.ModTime()
		var c adaptertest.Collector
		next, err := hermes.New().Read(t.Context(), env, src, cur, &c)
		if err != nil {
			t.Fatal(err)
		}
		return &c, next
	}
	first, cur := readSrc(adapters.Cursor{})
	if len(first.Messages()) == 0 || cur.Offset == 0 {
		t.Fatalf("the first read: %d messages, cursor %+v", len(first.Messages()), cur)
	}
	line := `{"role":"user","content":"And the checkpoint modes?","timestamp":"2026-05-02T07:01:00"}` + "\n"
	if err := os.WriteFile(path, append(append([]byte{}, data...), line...), 0o644); err != nil {
		t.Fatal(err)
	}
	grown, cur2 := readSrc(cur)
	msgs := grown.Messages()
	if len(msgs) != 1 || len(grown.Sessions()) > 0 {
		t.Fatalf("the read after one appended line emitted %d messages and %d sessions, want the one message", len(msgs), len(grown.Sessions()))
	}
	whole, _ := readSrc(adapters.Cursor{})
	all := whole.Messages()
	want := all[len(all)-1]
	if msgs[0].ID != want.ID || msgs[0].SessionID != want.SessionID || !msgs[0].Timestamp.Equal(want.Timestamp) {
		t.Errorf("the appended message read on: %s in %s at %s; read whole: %s in %s at %s",
			msgs[0].ID, msgs[0].SessionID, msgs[0].Timestamp, want.ID, want.SessionID, want.Timestamp)
	}
	if msgs[0].Role != session.RoleUser {
		t.Errorf("the appended message's role is %s", msgs[0].Role)
	}
	// Rewritten (not grown): read again from the start.
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	again, _ := readSrc(cur2)
	if len(again.Sessions()) != 1 || len(again.Messages()) != 1 {
		t.Errorf("a rewritten transcript: %d sessions and %d messages, want it read whole (1 and 1)", len(again.Sessions()), len(again.Messages()))
	}
}
