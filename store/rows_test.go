package store

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/pondhq/pond/store/sqlite"
)

// TestTextKeepsItsEscapesVerbatim stores texts holding the characters json.Marshal escapes for
// HTML and the literal escapes of them, and wants each part's variant_data valid JSON and every
// text read back as it was written.
func TestTextKeepsItsEscapesVerbatim(t *testing.T) {
	texts := []string{
		`if a < b && c > d { return }`,
		`json.Marshal writes "<" as \u003c, ">" as \u003e and "&" as \u0026`,
		`a backslash before it: \\u003c, and at the end \`,
		"line\nbreak, tab\t, quote \" and \u2028",
	}
	for _, text := range texts {
		b := sqlite.AppendJSONString(nil, text)
		var back string
		if err := json.Unmarshal(b, &back); err != nil || back != text {
			t.Errorf("AppendJSONString(%q) = %s: reads back %q, %v", text, b, back, err)
		}
	}

	s := openTestStore(t, t.TempDir())
	ctx := context.Background()
	upsert(t, s, chat("esc", "claude-code", "/p", "", time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), texts...))
	db, err := s.searchDB()
	if err != nil {
		t.Fatal(err)
	}
	bodies, err := sqlite.QueryStrings(ctx, db, `SELECT variant_data FROM parts WHERE session_id = 'esc' ORDER BY message_id`)
	if err != nil {
		t.Fatal(err)
	}
	for i, body := range bodies {
		if !json.Valid([]byte(body)) {
			t.Errorf("message %d: variant_data is not JSON: %s", i, body)
		}
	}
	tr, err := s.ReadTranscript(ctx, "esc")
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range tr.Messages {
		if got := tr.Parts[m.ID][0].Text; got != texts[i] {
			t.Errorf("message %d: text read back %q, want %q", i, got, texts[i])
		}
	}
}
