package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

// A message applied again (the store replaying Lance after a crash) changes only when it carries
// a newer sequence number; the full-text index and the search-scope counts follow the change.
func TestApplyAgainKeepsTheNewestMessage(t *testing.T) {
	ctx := context.Background()
	m := tempMirror(t)
	row := func(text string, seq int64) *Rows {
		return &Rows{Messages: []MessageRow{{SessionID: "s", MessageID: "m", Timestamp: "2026-06-01T09:00:01.000000Z",
			Role: "user", SourceAgent: "codex-cli", Project: "/p", SearchText: text, IngestSeq: seq}}}
	}
	check := func(when, wantText string, wantSeq int64) {
		t.Helper()
		var text string
		var seq, rows, scope, oldHits, hits int64
		q := `SELECT coalesce(search_text, ''), ingest_seq, (SELECT count(*) FROM messages), (SELECT coalesce(sum(n), 0) FROM _pond_search_scope),
			(SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'walrus'), (SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'pelican')
			FROM messages WHERE message_id = 'm'`
		if err := m.db.QueryRowContext(ctx, q).Scan(&text, &seq, &rows, &scope, &oldHits, &hits); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		wantScope, wantOld, wantNew := int64(0), int64(0), int64(0)
		if wantText != "" {
			wantScope = 1
		}
		switch wantText {
		case "the walrus":
			wantOld = 1
		case "the pelican":
			wantNew = 1
		}
		if text != wantText || seq != wantSeq || rows != 1 || scope != wantScope || oldHits != wantOld || hits != wantNew {
			t.Fatalf("%s: text %q seq %d rows %d scope %d hits %d/%d; want %q seq %d scope %d hits %d/%d",
				when, text, seq, rows, scope, oldHits, hits, wantText, wantSeq, wantScope, wantOld, wantNew)
		}
	}
	steps := []struct {
		name    string
		text    string
		seq     int64
		want    string
		wantSeq int64
	}{
		{"first apply", "the walrus", 2, "the walrus", 2},
		{"newer text", "the pelican", 5, "the pelican", 5},
		{"older text", "the walrus", 3, "the pelican", 5},
		{"same sequence", "", 5, "the pelican", 5},
		{"newer, no text", "", 7, "", 7},
		{"text again", "the walrus", 9, "the walrus", 9},
	}
	for _, st := range steps {
		if err := m.Apply(ctx, row(st.text, st.seq)); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		check(st.name, st.want, st.wantSeq)
	}
	if w, _ := m.Watermark(ctx, "messages"); w != 9 {
		t.Fatalf("watermark %d, want 9", w)
	}
}

// tempMirror opens a new mirror in a test's temporary directory, closed when the test ends.
func tempMirror(t *testing.T) *Mirror {
	t.Helper()
	m, err := OpenMirror(context.Background(), filepath.Join(t.TempDir(), "mirror.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}
