package restore

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pondhq/pond/session"
)

// TestReplayLinesKeepsLineNumbers: lines that were not kept become blank lines, so every record
// sits on its own line again.
func TestReplayLinesKeepsLineNumbers(t *testing.T) {
	data, closed := ReplayLines([]Record{{Line: 1, Record: json.RawMessage(`{"a":1}`)}, {Line: 4, Record: json.RawMessage(`{"b":2}`)}})
	if got, want := string(data), "{\"a\":1}\n\n\n{\"b\":2}\n"; got != want || closed != 0 {
		t.Errorf("got %q (closed %d), want %q (closed 0)", got, closed, want)
	}
}

// TestReplayLinesBoundsGaps: a stored line number is untrusted; a huge one must not make the
// replay pad without limit (options.source.line of 10^12 ran the daemon out of memory).
func TestReplayLinesBoundsGaps(t *testing.T) {
	for _, far := range []int{3 * MaxBlankLines, 1e12} {
		recs := []Record{{Line: 1, Record: json.RawMessage(`{"a":1}`)}, {Line: far, Record: json.RawMessage(`{"b":2}`)}, {Line: far + 2, Record: json.RawMessage(`{"c":3}`)}}
		data, closed := ReplayLines(recs)
		if max := MaxBlankLines + 64; len(data) > max {
			t.Fatalf("line %d: %d bytes replayed, want at most %d", far, len(data), max)
		}
		if want := far - 2 - MaxBlankLines + 1; closed != want {
			t.Errorf("line %d: closed %d, want %d", far, closed, want)
		}
		if n := bytes.Count(data, []byte("\n")); n != 3+MaxBlankLines {
			t.Errorf("line %d: %d lines, want %d", far, n, 3+MaxBlankLines)
		}
	}
}

// TestNativeLinesSaysWhatAGapCost: a closed gap downgrades the file and says why.
func TestNativeLinesSaysWhatAGapCost(t *testing.T) {
	tr := &Transcript{Session: session.Session{ID: "s1", Options: session.Options{"source": json.RawMessage(`{"line":1000000000000,"record":{"x":1}}`)}}}
	f := NativeLines("/r/s1.jsonl", tr)
	if f.Fidelity != Downgraded || !strings.Contains(f.Reason, "blank line(s) were left out") {
		t.Errorf("fidelity %s reason %q, want downgraded with the closed gap", f.Fidelity, f.Reason)
	}
	if len(f.Data) > MaxBlankLines+64 {
		t.Errorf("%d bytes", len(f.Data))
	}
}

// TestReplayLinesGluesPieces: the pieces of a line that held several objects are glued again in
// their order, on their line.
func TestReplayLinesGluesPieces(t *testing.T) {
	recs := []Record{
		{Line: 1, Record: json.RawMessage(`{"a":1}`)},
		{Line: 3, Piece: 1, Record: json.RawMessage(`{"b":1}`)},
		{Line: 3, Piece: 2, Record: json.RawMessage(`{"b":2}`)},
		{Line: 4, Record: json.RawMessage(`{"c":1}`)},
	}
	want := "{\"a\":1}\n\n{\"b\":1}{\"b\":2}\n{\"c\":1}\n"
	if got, closed := ReplayLines(recs); string(got) != want || closed != 0 {
		t.Errorf("ReplayLines = %q (closed %d), want %q", got, closed, want)
	}
}
