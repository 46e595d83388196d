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

// TestPackedColumnsReadBackThroughTheViews: long JSON values are stored as zstd frames, short
// ones as text, and the views give back exactly what was applied — to the writer's connection,
// the search pool and the read-only SQL surface alike. Raw records are not stored at all: the
// messages view reads them from the archive, here a map standing in for Lance's messages table
// (store's TestSQLReadsRawRecordsFromLance reads the real one).
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
	records := &mapRecords{sessions: map[string]map[string]string{"s": {"m1": long, "m2": short}}}
	var kindBody, kindOpts string
	if err := m.db.QueryRowContext(ctx, `SELECT typeof(variant_data_packed), typeof(options_packed) FROM part_rows`).Scan(&kindBody, &kindOpts); err != nil {
		t.Fatal(err)
	}
	if kindBody != "blob" || kindOpts != "text" {
		t.Errorf("stored as %s, %s; want a long value packed (blob), a short one as text", kindBody, kindOpts)
	}
	var packed int
	m.db.QueryRowContext(ctx, `SELECT length(variant_data_packed) FROM part_rows`).Scan(&packed)
	if packed*3 > len(body) {
		t.Errorf("a repetitive %d-byte body packed into %d bytes", len(body), packed)
	}
	var columns int
	m.db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('message_rows') WHERE name LIKE 'options%'`).Scan(&columns)
	if columns != 0 {
		t.Error("message_rows has a column for raw records")
	}

	// Each under the SQL surface's 1,000-character cell clip.
	check := func(name string, withRecords bool, q func(string, ...any) (string, error)) {
		t.Helper()
		for _, c := range []struct {
			sql, want string
			record    bool
		}{
			{`SELECT options FROM messages WHERE message_id = 'm1'`, long, true},
			{`SELECT options FROM messages WHERE message_id = 'm2'`, short, true},
			{`SELECT variant_data FROM parts WHERE id = 'p1'`, body, false},
			{`SELECT options FROM parts WHERE id = 'p1'`, short, false},
			{`SELECT json_extract(options, '$.source.record.type') FROM messages WHERE message_id = 'm1'`, "assistant", true},
			{`SELECT count(*) FROM parts WHERE variant_data LIKE '%ok 1 - test%'`, "1", false},
		} {
			if c.record && !withRecords {
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
	search := OpenSearchDB(m.Path(), records)
	defer search.Close()
	check("search pool", true, func(q string, args ...any) (string, error) {
		var s string
		return s, search.QueryRowContext(ctx, q, args...).Scan(&s)
	})
	r2, err := OpenReader(m.Path(), records)
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
	var got sql.NullString
	if err := m.db.QueryRowContext(ctx, `SELECT options FROM messages WHERE message_id = 'm1'`).Scan(&got); err == nil || !strings.Contains(err.Error(), "no archive") {
		t.Errorf("raw record on the writer's connection: %q, %v; want an error naming the missing archive", got.String, err)
	}
}

// A mirror of an earlier layout (holding a copy of every raw record) is not taken as it is:
// the store rebuilds it.
func TestEarlierLayoutsAreRebuilt(t *testing.T) {
	for _, layout := range []string{"", "2", "3", "4"} {
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
