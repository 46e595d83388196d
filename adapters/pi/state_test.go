package pi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

// TestOldCursor: a cursor of the first state shape (a count of rec- ids, no seen ids) is read
// again from the start, with the keys of a whole read.
func TestOldCursor(t *testing.T) {
	for _, key := range []string{mainKey, v1Key} {
		path := filepath.Join(testRoot, key)
		whole, cur := readFile(t, path)
		cur.State, cur.Stamp = []byte(`{"session":{"id":"x"},"version":1,"recs":3}`), "changed"
		var again adaptertest.Collector
		if _, err := New().Read(context.Background(), adapters.Env{}, source(t, path), cur, &again); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(whole.Counts(), again.Counts()); diff != "" {
			t.Errorf("%s: old cursor (-whole +read); want a read from the start:\n%s", key, diff)
		}
	}
}

// TestRepeatsResumed: a file whose records repeat (ids, and id-less lines) read one line at a
// time gives the keys of a whole read.
func TestRepeatsResumed(t *testing.T) {
	lines := fileLines(t, filepath.Join(testRoot, v1Key))
	lines = append(lines, lines[5], lines[5], lines[3])
	path := filepath.Join(t.TempDir(), filepath.Base(v1Key))
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var cur adapters.Cursor
	var steps adaptertest.Collector
	for _, l := range lines {
		appendTo(t, path, l+"\n")
		src := source(t, path)
		src.Stamp += "+"
		next, err := New().Read(context.Background(), adapters.Env{}, src, cur, &steps)
		if err != nil {
			t.Fatal(err)
		}
		cur = next
	}
	whole, _ := readFile(t, path)
	if diff := cmp.Diff(messageKeys(whole, v1ID), messageKeys(&steps, v1ID)); diff != "" {
		t.Errorf("keys (-whole +line by line):\n%s", diff)
	}
	if got := strings.Join(messageKeys(whole, v1ID), " "); !strings.Contains(got, "-3") {
		t.Errorf("keys %s: want the line met three times suffixed -3", got)
	}
}
