package codex

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

// longRollout is a rollout of n items whose ids repeat, some close by and some further back
// than adapters.SeenCap, with id-less lines that recur verbatim.
func longRollout(n int) []string {
	lines := []string{`{"timestamp":"2026-03-14T12:00:00.000Z","type":"session_meta","payload":{"id":"` + mainID + `","cwd":"/work","timestamp":"2026-03-14T12:00:00.000Z"}}`}
	for i := range n {
		id := fmt.Sprintf("msg_%d", i%(adapters.SeenCap+300))
		if i%7 == 0 && i > 0 {
			id = fmt.Sprintf("msg_%d", (i-1)%(adapters.SeenCap+300)) // a repeat close by
		}
		lines = append(lines, `{"timestamp":"2026-03-14T12:01:00.000Z","type":"response_item","payload":{"type":"message","id":"`+id+`","role":"user","content":[{"type":"input_text","text":"t"}]}}`)
		if i%50 == 0 {
			lines = append(lines, `{"type":"turn_context","payload":{"cwd":"/work"}}`) // no time, no id: rec-…
		}
	}
	return lines
}

// TestStateBounded: a long rollout read in steps gives the keys of one whole read, though the
// cursor forgets ids beyond adapters.SeenCap, and its state stays within the bound.
func TestStateBounded(t *testing.T) {
	lines := longRollout(3 * adapters.SeenCap)
	path := filepath.Join(t.TempDir(), "rollout-2026-03-14T12-00-00-"+mainID+".jsonl")
	writeFile(t, path, []byte(strings.Join(lines, "\n")+"\n"))
	whole, _ := readFile(t, path)

	writeFile(t, path, nil)
	var cur adapters.Cursor
	var steps adaptertest.Collector
	for i := 0; i < len(lines); i += 401 {
		appendFile(t, path, []byte(strings.Join(lines[i:min(i+401, len(lines))], "\n")+"\n"))
		next, err := New().Read(t.Context(), adapters.Env{}, sourceOf(t, path), cur, &steps)
		if err != nil {
			t.Fatal(err)
		}
		if len(next.State) > 16<<10 {
			t.Errorf("after line %d: state of %d bytes", i, len(next.State))
		}
		cur = next
	}
	if diff := cmp.Diff(messageKeys(whole.Messages()), messageKeys(steps.Messages())); diff != "" {
		t.Errorf("keys (-whole +in steps):\n%s", diff)
	}
	suffixed := 0
	for _, m := range whole.Messages() {
		if strings.HasSuffix(m.ID, "-2") {
			suffixed++
		}
	}
	if suffixed < adapters.SeenCap/7 {
		t.Errorf("%d ids suffixed -2, want the close repeats' (%d or more)", suffixed, adapters.SeenCap/7)
	}
}

// TestStateOldCursor: a cursor of the first state shape (a digest of every id given) is read
// again from the start, with the keys of a whole read, never resumed with other ids.
func TestStateOldCursor(t *testing.T) {
	path := filepath.Join(testRoot, filepath.FromSlash(mainKey))
	whole, cur := readFile(t, path)
	var st struct {
		Session json.RawMessage `json:"session"`
		Last    json.RawMessage `json:"last"`
		Calls   json.RawMessage `json:"calls,omitempty"`
		Seen    []byte          `json:"seen"`
	}
	if err := json.Unmarshal(cur.State, &st); err != nil {
		t.Fatal(err)
	}
	for _, m := range whole.Messages() {
		h := fnv.New32a()
		h.Write([]byte(m.ID))
		st.Seen = binary.LittleEndian.AppendUint32(st.Seen, h.Sum32())
	}
	old, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	cur.State, cur.Stamp = old, "changed"
	var again adaptertest.Collector
	if _, err := New().Read(t.Context(), adapters.Env{}, sourceOf(t, path), cur, &again); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(messageKeys(whole.Messages()), messageKeys(again.Messages())); diff != "" {
		t.Errorf("old cursor: keys (-whole +read) differ; want a read from the start:\n%s", diff)
	}
}
