package restore

import (
	"encoding/json"
	"testing"
)

// TestReplayLines: records go back on their lines, a line not kept becomes an empty line, and
// the pieces of a line that held several objects are glued again in their order.
func TestReplayLines(t *testing.T) {
	recs := []Record{
		{Line: 1, Record: json.RawMessage(`{"a":1}`)},
		{Line: 3, Piece: 1, Record: json.RawMessage(`{"b":1}`)},
		{Line: 3, Piece: 2, Record: json.RawMessage(`{"b":2}`)},
		{Line: 4, Record: json.RawMessage(`{"c":1}`)},
	}
	want := "{\"a\":1}\n\n{\"b\":1}{\"b\":2}\n{\"c\":1}\n"
	if got := string(ReplayLines(recs)); got != want {
		t.Errorf("ReplayLines = %q, want %q", got, want)
	}
}
