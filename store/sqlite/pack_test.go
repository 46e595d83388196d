package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackedColumnsReadBackThroughTheViews: long JSON values the mirror keeps are stored as
// zstd frames, short ones as text, and the views give back exactly what was applied — to the
// writer's connection, the search pool and the read-only SQL surface alike. Raw records and
// long tool bodies are not stored at all: the views read them from the archive, here maps
// standing in for Lance's tables (store's TestSQLReadsRawRecordsFromLance reads the real ones).
func TestPackedColumnsReadBackThroughTheViews(t *testing.T) {
	ctx := context.Background()
	m := tempMirror(t)
	long := `{"source":{"record":{"type":"assistant","text":"` + strings.Repeat("the build passed again; ", 30) + `"}}}`
	short := `{"pond":{"ingest":{"adapter":"api"}}}`
	body := `{"call_id":"c1","name":"bash","result":"` + strings.Repeat("ok 1 - test\n", 60) + `"}`
	thought := `{"text":"` + strings.Repeat("the tests should pass now; ", 20) + `"}`
	r := &Rows{
		Sessions: []SessionRow{{SessionID: "s", SourceAgent: "claude-code", CreatedAt: "2026-06-01T09:00:00Z", Project: "/p", IngestSeq: 1}},
		Messages: []MessageRow{
			{SessionID: "s", MessageID: "m1", Timestamp: "2026-06-01T09:00:00Z", Role: "assistant", SourceAgent: "claude-code", Project: "/p", SearchText: "the build", Options: long, IngestSeq: 2},
			{SessionID: "s", MessageID: "m2", Timestamp: "2026-06-01T09:00:01Z", Role: "user", SourceAgent: "claude-code", Project: "/p", Options: short, IngestSeq: 3},
		},
		Parts: []PartRow{
			{SessionID: "s", MessageID: "m1", ID: "p1", Type: "tool_result", Provenance: "conversational", CallID: "c1", VariantData: body, Options: short, IngestSeq: 4},
			{SessionID: "s", MessageID: "m1", ID: "p2", Type: "reasoning", Provenance: "conversational", VariantData: thought, Options: long, IngestSeq: 5},
		},
	}
	if err := m.Apply(ctx, r); err != nil {
		t.Fatal(err)
	}
	archive := &mapArchive{
		sessions: map[string]map[string]string{"s": {"m1": long, "m2": short}},
		parts: map[string]map[string]string{"s": {
			PartValueKey("m1", "p1", "variant_data"): body, PartValueKey("m1", "p1", "options"): short,
			PartValueKey("m1", "p2", "variant_data"): thought, PartValueKey("m1", "p2", "options"): long,
		}},
	}
	stored := func(id string) (body, opts string) {
		t.Helper()
		if err := m.db.QueryRowContext(ctx, `SELECT CASE WHEN variant_data_packed = x'00' THEN 'lance' ELSE typeof(variant_data_packed) END,
			CASE WHEN options_packed = x'00' THEN 'lance' ELSE typeof(options_packed) END FROM part_rows WHERE id = ?`, id).Scan(&body, &opts); err != nil {
			t.Fatal(err)
		}
		return body, opts
	}
	if b, o := stored("p1"); b != "lance" || o != "text" {
		t.Errorf("tool result stored as %s, %s; want its long body left to Lance, its short record as text", b, o)
	}
	if b, o := stored("p2"); b != "blob" || o != "lance" {
		t.Errorf("reasoning stored as %s, %s; want its long text packed (blob), its long record left to Lance", b, o)
	}
	var packed int
	m.db.QueryRowContext(ctx, `SELECT length(variant_data_packed) FROM part_rows WHERE id = 'p2'`).Scan(&packed)
	if packed*3 > len(thought) {
		t.Errorf("a repetitive %d-byte text packed into %d bytes", len(thought), packed)
	}
	var columns int
	m.db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('message_rows') WHERE name LIKE 'options%'`).Scan(&columns)
	if columns != 0 {
		t.Error("message_rows has a column for raw records")
	}

	// Each under the SQL surface's 1,000-character cell clip.
	check := func(name string, withArchive bool, q func(string, ...any) (string, error)) {
		t.Helper()
		for _, c := range []struct {
			sql, want string
			archive   bool
		}{
			{`SELECT options FROM messages WHERE message_id = 'm1'`, long, true},
			{`SELECT options FROM messages WHERE message_id = 'm2'`, short, true},
			{`SELECT variant_data FROM parts WHERE id = 'p1'`, body, true},
			{`SELECT options FROM parts WHERE id = 'p1'`, short, false},
			{`SELECT variant_data FROM parts WHERE id = 'p2'`, thought, false},
			{`SELECT options FROM parts WHERE id = 'p2'`, long, true},
			{`SELECT json_extract(options, '$.source.record.type') FROM messages WHERE message_id = 'm1'`, "assistant", true},
			{`SELECT count(*) FROM parts WHERE variant_data LIKE '%ok 1 - test%'`, "1", true},
			{`SELECT count(*) FROM parts WHERE type = 'reasoning' AND variant_data LIKE '%tests should pass%'`, "1", false},
		} {
			if c.archive && !withArchive {
				continue
			}
			got, err := q(c.sql)
			if err != nil || got != c.want {
				t.Errorf("%s: %s = %.60q, %v", name, c.sql, got, err)
			}
		}
	}
	check("writer", false, func(q string, args ...any) (string, error) {
		var s string
		return s, m.db.QueryRowContext(ctx, q, args...).Scan(&s)
	})
	search := OpenSearchDB(m.Path(), archive)
	defer search.Close()
	check("search pool", true, func(q string, args ...any) (string, error) {
		var s string
		return s, search.QueryRowContext(ctx, q, args...).Scan(&s)
	})
	r2, err := OpenReader(m.Path(), archive)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	check("SQL surface", true, func(q string, _ ...any) (string, error) {
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
	// The writer's connection has no archive to read them from, and says so.
	for _, q := range []string{`SELECT options FROM messages WHERE message_id = 'm1'`, `SELECT variant_data FROM parts WHERE id = 'p1'`} {
		var got sql.NullString
		if err := m.db.QueryRowContext(ctx, q).Scan(&got); err == nil || !strings.Contains(err.Error(), "no archive") {
			t.Errorf("%s on the writer's connection: %q, %v; want an error naming the missing archive", q, got.String, err)
		}
	}
	// What the mirror holds itself, for a reader that takes the rest from Lance apart.
	var here1, here2 sql.NullString
	if err := m.db.QueryRowContext(ctx, `SELECT (SELECT variant_data FROM _pond_parts_here WHERE id = 'p1'),
		(SELECT variant_data FROM _pond_parts_here WHERE id = 'p2')`).Scan(&here1, &here2); err != nil {
		t.Fatal(err)
	}
	if here1.Valid || here2.String != thought {
		t.Errorf("_pond_parts_here: %q, %.40q; want NULL for the body left to Lance and the reasoning's text", here1.String, here2.String)
	}
}

// A mirror of an earlier layout (holding a copy of every raw record) is not taken as it is:
// the store rebuilds it.
func TestEarlierLayoutsAreRebuilt(t *testing.T) {
	for _, layout := range []string{"", "2", "3", "4", "5"} {
		ctx := context.Background()
		path := filepath.Join(t.TempDir(), "mirror.db")
		m, err := OpenMirror(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		q := `UPDATE _pond_meta SET value = ? WHERE key = 'schema_version'`
		if layout == "" { // from before layouts were recorded
			q = `DELETE FROM _pond_meta WHERE key = 'schema_version' AND ? = ''`
		}
		if _, err := m.db.ExecContext(ctx, q, layout); err != nil {
			t.Fatal(err)
		}
		m.Close()
		if m, err = OpenMirror(ctx, path); !errors.Is(err, ErrOtherLayout) {
			t.Errorf("a layout-%s mirror opened with %v; want ErrOtherLayout", layout, err)
			if err == nil {
				m.Close()
			}
		}
	}
}
