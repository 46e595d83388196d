package claudecode

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

// version1Seen packs the seen ids of lines as version 1 cursors did: per id met, least
// recently met first, its whole FNV-64a digest (big-endian) and how often it was met.
func version1Seen(lines []string) []byte {
	var order []uint64
	count := map[uint64]int{}
	for _, l := range lines {
		r, err := parseRecord([]byte(l))
		if err != nil {
			continue // reported, not a record
		}
		h := fnv.New64a()
		h.Write([]byte(recordID(r.uuid, r.raw)))
		k := h.Sum64()
		count[k]++
		order = append(slices.DeleteFunc(order, func(x uint64) bool { return x == k }), k)
	}
	var b []byte
	for _, k := range order {
		b = binary.AppendUvarint(binary.BigEndian.AppendUint64(b, k), uint64(count[k]))
	}
	return b
}

// TestReadVersion1Cursor: a cursor of state version 1 resumes with the ids a whole read gives.
func TestReadVersion1Cursor(t *testing.T) {
	lines := testdataLines(t, mainKey)
	lines = append(lines, lines[24], lines[2]) // the mode line and u-meta again
	cut := len(lines) - 1
	path := filepath.Join(t.TempDir(), mainID+".jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines[:cut], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var first adaptertest.Collector
	cur := readFile(t, mainKey, path, adapters.Cursor{}, &first)
	var st map[string]json.RawMessage
	if err := json.Unmarshal(cur.State, &st); err != nil {
		t.Fatal(err)
	}
	seen, _ := json.Marshal(version1Seen(lines[:cut]))
	delete(st, "ids")
	st["v"], st["seen"] = json.RawMessage("1"), seen
	old, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	cur.State = old
	appendFile(t, path, lines[cut]+"\n")
	var rest adaptertest.Collector
	readFile(t, mainKey, path, cur, &rest)

	var whole adaptertest.Collector
	readFile(t, mainKey, path, adapters.Cursor{}, &whole)
	got := keys(&first)
	for k := range keys(&rest) {
		got[k] = true
	}
	if diff := cmp.Diff(keys(&whole), got); diff != "" {
		t.Errorf("keys (-whole +resumed from version 1):\n%s", diff)
	}
	if n := len(rest.Messages()); n != 1 {
		t.Errorf("resumed read: %d messages, want the one new line's", n)
	}
}
