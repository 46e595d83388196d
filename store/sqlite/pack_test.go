package sqlite

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestPackedColumnsReadBackThroughTheViews: long JSON values are stored as zstd frames, short
// ones as text, and the views messages and parts give back exactly what was applied — to the
// writer's connection, the search pool and the read-only SQL surface alike.
func TestPackedColumnsReadBackThroughTheViews(t *testing.T) {
	ctx := context.Background()
	m := tempMirror(t)
	long := `{"source":{"record":{"type":"assistant","text":"` + strings.Repeat("the build passed again; ", 30) + `"}}}`
	short := `{"pond":{"ingest":{"adapter":"api"}}}`
	body := `{"call_id":"c1","name":"bash","result":"` + strings.Repeat("ok 1 - test\n", 60) + `"}`
	r := &Rows{
		Sessions: []SessionRow{{SessionID: "s", SourceAgent: "claude-code", CreatedAt: "2026-06-01T09:00:00Z", Project: "/p", IngestSeq: 1}},
		Messages: []MessageRow{
			{SessionID: "s", MessageID: "m1", Timestamp: "2026-06-01T09:00:00Z", Role: "assistant", SourceAgent: "claude-code", Project: "/p", SearchText: "the build", Options: long, IngestSeq: 2},
			{SessionID: "s", MessageID: "m2", Timestamp: "2026-06-01T09:00:01Z", Role: "user", SourceAgent: "claude-code", Project: "/p", Options: short, IngestSeq: 3},
		},
		Parts: []PartRow{{SessionID: "s", MessageID: "m1", ID: "p1", Type: "tool_result", Provenance: "conversational", CallID: "c1", VariantData: body, Options: short, IngestSeq: 4}},
	}
	if err := m.Apply(ctx, r); err != nil {
		t.Fatal(err)
	}
	var kind1, kind2, kindBody string
	if err := m.db.QueryRowContext(ctx, `SELECT (SELECT typeof(options_packed) FROM message_rows WHERE message_id = 'm1'),
		(SELECT typeof(options_packed) FROM message_rows WHERE message_id = 'm2'), (SELECT typeof(variant_data_packed) FROM part_rows)`).Scan(&kind1, &kind2, &kindBody); err != nil {
		t.Fatal(err)
	}
	if kind1 != "blob" || kind2 != "text" || kindBody != "blob" {
		t.Errorf("stored as %s, %s, %s; want a long value packed (blob), a short one as text", kind1, kind2, kindBody)
	}
	var packed int
	m.db.QueryRowContext(ctx, `SELECT length(options_packed) FROM message_rows WHERE message_id = 'm1'`).Scan(&packed)
	if packed*3 > len(long) {
		t.Errorf("a repetitive %d-byte record packed into %d bytes", len(long), packed)
	}

	// Each under the SQL surface's 1,000-character cell clip.
	check := func(name string, q func(string, ...any) (string, error)) {
		t.Helper()
		for _, c := range []struct{ sql, want string }{
			{`SELECT options FROM messages WHERE message_id = 'm1'`, long},
			{`SELECT options FROM messages WHERE message_id = 'm2'`, short},
			{`SELECT variant_data FROM parts WHERE id = 'p1'`, body},
			{`SELECT json_extract(options, '$.source.record.type') FROM messages WHERE message_id = 'm1'`, "assistant"},
			{`SELECT count(*) FROM parts WHERE variant_data LIKE '%ok 1 - test%'`, "1"},
		} {
			got, err := q(c.sql)
			if err != nil || got != c.want {
				t.Errorf("%s: %s = %.60q, %v", name, c.sql, got, err)
			}
		}
	}
	check("writer", func(q string, args ...any) (string, error) {
		var s string
		return s, m.db.QueryRowContext(ctx, q, args...).Scan(&s)
	})
	search, err := OpenSearchDB(m.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer search.Close()
	check("search pool", func(q string, args ...any) (string, error) {
		var s string
		return s, search.QueryRowContext(ctx, q, args...).Scan(&s)
	})
	r2, err := OpenReader(m.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	check("SQL surface", func(q string, _ ...any) (string, error) {
		res, err := r2.Query(ctx, q, Options{})
		if err != nil {
			return "", err
		}
		if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
			return "", fmt.Errorf("rows %v", res.Rows)
		}
		for _, v := range res.Rows[0] {
			return fmt.Sprint(v), nil
		}
		return "", nil
	})
}
