package gemini

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

// TestOldCursor: a cursor of state version 1 (the last id-less records' digests as a list) is
// read again from the start, with the keys of a whole read.
func TestOldCursor(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testHome, mainRel))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tmp", "p", "chats", "session-x.jsonl")
	var whole adaptertest.Collector
	cur := readInto(t, path, data, adapters.Cursor{}, &whole)
	cur.State, cur.Stamp = []byte(`{"v":1,"session":{"id":"x"},"recs":["rec-0011223344556677"]}`), "changed"
	again := readFile(t, path, data, cur)
	if diff := cmp.Diff(keys(&whole), keys(again)); diff != "" {
		t.Errorf("old cursor: keys (-whole +read); want a read from the start:\n%s", diff)
	}
}
