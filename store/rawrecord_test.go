package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store/lance"
	"github.com/pondhq/pond/store/sqlite"
)

// storedRecord is messages.options of one row as Lance holds it.
func storedRecord(t *testing.T, s *Store, id string) string {
	t.Helper()
	var got string
	q := lance.Query{Columns: []string{"options"}, Filter: "id = " + lanceQuote(id)}
	err := s.Table(TableMessages).Scan(context.Background(), q, func(r arrow.Record) error {
		for i := 0; i < int(r.NumRows()); i++ {
			got = r.Column(0).(*array.String).Value(i)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestRawRecordsAreStoredAgainstTheirSearchText: a record that holds its message's text is kept
// in Lance as its envelope and copies of the row's search text, and every reader gets it back
// whole: a transcript, the SQL surface, a rebuilt mirror, and after the search text changed.
func TestRawRecordsAreStoredAgainstTheirSearchText(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	text := strings.Repeat("The test \"TestParse\" failed:\n\tparse.go:42: want 3, got 4 — ünïcode too\n", 30)
	raw, _ := json.Marshal(map[string]any{"type": "assistant", "uuid": "u-1", "message": map[string]any{"role": "assistant", "text": text}})
	sess := &session.Session{ID: "s", SourceAgent: "claude-code", Project: "/p", CreatedAt: base}
	msg := &session.Message{SessionID: "s", ID: "m", Role: session.RoleAssistant, Timestamp: base, Options: session.Options{"source": raw}}
	part := &session.Part{SessionID: "s", MessageID: "m", ID: "a", Ordinal: 1, Type: session.PartText, Provenance: session.Conversational, Text: text}
	// A second part that the capture gave first: the message's first search text takes the
	// parts in the order they came, a later one in stored order (by ordinal).
	aside := &session.Part{SessionID: "s", MessageID: "m", ID: "z", Ordinal: 2, Type: session.PartText, Provenance: session.Conversational, Text: "an aside"}
	upsert(t, s, []session.Event{{Session: sess}, {Message: msg}, {Part: aside}, {Part: part}})

	check := func(when string) {
		t.Helper()
		stored := storedRecord(t, s, "m")
		if !strings.HasPrefix(stored, "\x00") || len(stored) > len(raw)/4 {
			t.Errorf("%s: Lance holds the record in %d bytes (%q…), want it encoded against the text (%d bytes)", when, len(stored), stored[:min(len(stored), 40)], len(raw))
		}
		tr, err := s.ReadTranscript(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if got := string(tr.Messages[0].Options["source"]); got != string(raw) {
			t.Errorf("%s: transcript record %q, want %q", when, got, raw)
		}
		r, err := sqlite.OpenReader(s.MirrorPath(), s.MirrorArchive())
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		// (The SQL surface shortens long values in its answer: compare lengths and an end.)
		res, err := r.Query(ctx, `SELECT length(json_extract(options, '$.source.message.text')) AS n,
			substr(json_extract(options, '$.source.message.text'), -12) AS tail FROM messages WHERE message_id = 'm'`, sqlite.Options{})
		if err != nil || len(res.Rows) != 1 || fmt.Sprint(res.Rows[0]["n"]) != fmt.Sprint(utf8.RuneCountInString(text)) || res.Rows[0]["tail"] != "ünïcode too\n" {
			t.Errorf("%s: the record through SQL: %v, %v", when, res.Rows, err)
		}
	}
	check("stored")

	// The message gains a part: its search text is made again in stored order, so it does not
	// begin with the first one, and the record is written again, encoded against it. Then
	// another: the text grows at its end, and the record reads as it was stored.
	for _, late := range []*session.Part{
		{SessionID: "s", MessageID: "m", ID: "b", Ordinal: 3, Type: session.PartText, Provenance: session.Conversational, Text: "and one more line"},
		{SessionID: "s", MessageID: "m", ID: "c", Ordinal: 4, Type: session.PartText, Provenance: session.Conversational, Text: "and the last line"},
	} {
		if out := upsert(t, s, []session.Event{{Session: sess}, {Message: msg}, {Part: late}}); out.Reindexed != 1 {
			t.Fatalf("reindexed %d messages, want 1", out.Reindexed)
		}
		check("reindexed with part " + late.ID)
	}
	if _, err := s.RebuildMirror(ctx); err != nil {
		t.Fatal(err)
	}
	check("mirror rebuilt")
}
