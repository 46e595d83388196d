package sqlite

import (
	"context"
	"fmt"
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
	if w, _ := m.Watermarks(ctx, "messages"); w[0] != 9 || len(w) != 1 {
		t.Fatalf("watermarks %v, want writer 0 at 9", w)
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

// The writers' counts follow what is applied and erased, and name each writer's machine from
// its newest message's capture record.
func TestWritersCounted(t *testing.T) {
	ctx := context.Background()
	m := tempMirror(t)
	w7 := int64(7) << WriterShift
	ingest := func(host, at string) string {
		return `{"pond":{"ingest":{"host":{"hostname":"` + host + `","username":"u"},"at":"` + at + `"}}}`
	}
	rows := &Rows{}
	for i, sid := range []string{"s0", "s7"} {
		seq := int64(i) * w7
		rows.Sessions = append(rows.Sessions, SessionRow{SessionID: sid, SourceAgent: "a", CreatedAt: "2026-01-01T00:00:00Z", Project: "/p", IngestSeq: seq + 1})
		for j := range 3 {
			rows.Messages = append(rows.Messages, MessageRow{SessionID: sid, MessageID: fmt.Sprint(j), Timestamp: "2026-01-01T00:00:00Z",
				Role: "user", SourceAgent: "a", Project: "/p", Options: ingest(sid+"-host", fmt.Sprintf("2026-01-0%dT00:00:00Z", j+1)), IngestSeq: seq + 2 + int64(j)})
		}
	}
	if err := m.Apply(ctx, rows); err != nil {
		t.Fatal(err)
	}
	if err := m.Apply(ctx, rows); err != nil { // applied twice: counted once
		t.Fatal(err)
	}
	got, err := m.Writers(ctx)
	want := []Writer{{0, "s0-host", "u", "2026-01-03T00:00:00Z", 1, 3}, {7, "s7-host", "u", "2026-01-03T00:00:00Z", 1, 3}}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("writers %+v, %v; want %+v", got, err, want)
	}
	if err := m.Erase(ctx, []string{"s7"}); err != nil {
		t.Fatal(err)
	}
	if got, err = m.Writers(ctx); err != nil || len(got) != 1 || got[0].Writer != 0 {
		t.Errorf("after erasing writer 7's session: %+v, %v", got, err)
	}
}

// The summary (totals and per agent) follows what is applied and erased, however often it was
// read in between: it is kept only until the mirror's next commit.
func TestSummaryFollowsCommits(t *testing.T) {
	ctx := context.Background()
	m := tempMirror(t)
	summary := func() string {
		t.Helper()
		s, err := m.Summary(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%d/%d %v", s.Sessions, s.Messages, s.Agents)
	}
	if got := summary(); got != "0/0 []" {
		t.Fatalf("empty mirror: %s", got)
	}
	apply := func(sid, agent string, messages int) {
		t.Helper()
		rows := &Rows{Sessions: []SessionRow{{SessionID: sid, SourceAgent: agent, CreatedAt: "2026-01-01T00:00:00Z", IngestSeq: 1}}}
		for j := range messages {
			rows.Messages = append(rows.Messages, MessageRow{SessionID: sid, MessageID: fmt.Sprint(j), Timestamp: "2026-01-01T00:00:00Z",
				Role: "user", SourceAgent: agent, IngestSeq: 2 + int64(j)})
		}
		if err := m.Apply(ctx, rows); err != nil {
			t.Fatal(err)
		}
	}
	apply("s1", "codex", 2)
	if got := summary(); got != "1/2 [{codex 1 2}]" {
		t.Fatalf("after one session: %s", got)
	}
	apply("s2", "claude-code", 3)
	apply("s3", "claude-code", 1)
	want := "3/6 [{claude-code 2 4} {codex 1 2}]"
	if got := summary(); got != want {
		t.Fatalf("after three sessions: %s, want %s", got, want)
	}
	if got := summary(); got != want {
		t.Fatalf("read again: %s, want %s", got, want)
	}
	if err := m.Erase(ctx, []string{"s2"}); err != nil {
		t.Fatal(err)
	}
	if got := summary(); got != "2/3 [{claude-code 1 1} {codex 1 2}]" {
		t.Fatalf("after erasing s2: %s", got)
	}
}

// Rows are written under a context without cancellation (rowContext); cancelling the caller's
// context during the write still rolls the whole transaction back and is reported.
func TestApplyCancelledMidwayStoresNothing(t *testing.T) {
	m := tempMirror(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rows := &Rows{
		Sessions: []SessionRow{{SessionID: "s", SourceAgent: "codex-cli", CreatedAt: "2026-06-01T09:00:00.000000Z", Project: "/p", IngestSeq: 3}},
		Messages: []MessageRow{{SessionID: "s", MessageID: "m", Timestamp: "2026-06-01T09:00:01.000000Z",
			Role: "user", SourceAgent: "codex-cli", Project: "/p", SearchText: "the walrus", IngestSeq: 1}},
		Parts: []PartRow{{SessionID: "s", MessageID: "m", ID: "p", Type: "text", Provenance: "conversational", VariantData: `{"text":"the walrus"}`, IngestSeq: 2}},
	}
	err := m.ApplyWhen(ctx, rows, func() error {
		cancel()
		return nil
	})
	if err == nil {
		t.Fatal("a write whose context was cancelled before its commit reported success")
	}
	var n int
	if err := m.db.QueryRow(`SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM messages) + (SELECT count(*) FROM parts) + (SELECT count(*) FROM messages_fts)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d rows stored by a cancelled write", n)
	}
	if err := m.Apply(context.Background(), rows); err != nil {
		t.Fatalf("the same rows again: %v", err)
	}
}
