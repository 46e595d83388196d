package sqlite

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"

	"github.com/pondhq/pond/session/view"
)

// testMirror is a mirror with a few rows, and a read-only reader on it.
func testMirror(t *testing.T) (dir, path string, r *Reader) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "mirror.db")
	m, err := OpenMirror(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	fail := true
	body := `{"result":"` + strings.Repeat("x", 1500) + `"}`
	err = m.Apply(context.Background(), &Rows{
		Sessions: []SessionRow{{SessionID: "s1", SourceAgent: "codex-cli", CreatedAt: "2026-01-01T00:00:00.000000Z", Project: "/p", IngestSeq: 3}},
		Messages: []MessageRow{{SessionID: "s1", MessageID: "m1", Timestamp: "2026-01-01T00:00:01.000000Z", Role: "user", SourceAgent: "codex-cli", Project: "/p", SearchText: "hello 'world'", IngestSeq: 1}},
		Parts:    []PartRow{{SessionID: "s1", MessageID: "m1", ID: "p1", Type: "tool_result", Provenance: "conversational", ToolName: "bash", IsFailure: &fail, VariantData: body, IngestSeq: 2}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Checkpoint the WAL so the database file alone holds everything and byte comparisons mean
	// something.
	if _, err := m.DB().Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	m.Close()
	// The tool body is left to Lance: a map stands in for it.
	r, err = OpenReader(path, &mapArchive{parts: map[string]map[string]string{"s1": {PartValueKey("m1", "p1", "variant_data"): body}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return dir, path, r
}

func TestReadOnlyGateRefusesEverythingElse(t *testing.T) {
	dir, path, r := testMirror(t)
	before, _ := os.ReadFile(path)
	evil := filepath.Join(dir, "evil.db")
	hostile := []string{
		// writes
		"INSERT INTO sessions(session_id) VALUES ('x')",
		"insert into messages select * from messages",
		"REPLACE INTO sessions VALUES ('x','','','a','t','p','',1)",
		"UPDATE messages SET role = 'x'",
		"DELETE FROM parts",
		"DELETE FROM parts WHERE 1",
		"UPSERT INTO sessions VALUES (1)",
		// schema
		"CREATE TABLE t(x)",
		"CREATE TEMP TABLE t(x)",
		"CREATE TEMPORARY VIEW v AS SELECT 1",
		"CREATE VIEW v AS SELECT 1",
		"CREATE INDEX i ON messages(role)",
		"CREATE TRIGGER tr AFTER INSERT ON sessions BEGIN DELETE FROM parts; END",
		"CREATE VIRTUAL TABLE f USING fts5(x)",
		"DROP TABLE messages",
		"DROP VIEW IF EXISTS v",
		"DROP INDEX messages_session_time",
		"ALTER TABLE messages ADD COLUMN x",
		"ALTER TABLE messages RENAME TO m2",
		// files and the engine
		"ATTACH DATABASE '" + evil + "' AS evil",
		"ATTACH '" + evil + "' AS e",
		"DETACH DATABASE main",
		"VACUUM",
		"VACUUM INTO '" + evil + "'",
		"REINDEX",
		"ANALYZE",
		"SELECT load_extension('/tmp/x.so')",
		"SELECT writefile('" + evil + "', 'x')",
		"SELECT readfile('/etc/passwd')",
		"SELECT fts3_tokenizer('simple')",
		// pragmas
		"PRAGMA query_only=0",
		"PRAGMA query_only = OFF",
		"PRAGMA writable_schema=1",
		"PRAGMA journal_mode=DELETE",
		"PRAGMA user_version=5",
		"PRAGMA table_info(messages)",
		"PRAGMA data_version",
		"SELECT * FROM pragma_table_info('messages')",
		// transactions
		"BEGIN",
		"BEGIN IMMEDIATE",
		"COMMIT",
		"ROLLBACK",
		"SAVEPOINT s",
		"RELEASE s",
		"END TRANSACTION",
		// several statements, hidden or not
		"SELECT 1; DELETE FROM parts",
		"SELECT 1;DROP TABLE messages;",
		"SELECT 1; SELECT 2",
		"SELECT ';' ; DELETE FROM parts",
		"SELECT 1 -- comment\n; DELETE FROM parts",
		"SELECT 1 /* ; */ ; DELETE FROM parts",
		"/* SELECT */ DELETE FROM parts",
		"-- SELECT\nDELETE FROM parts",
		"WITH x AS (SELECT 1) DELETE FROM parts",
		"WITH x AS (SELECT 1) INSERT INTO sessions(session_id) SELECT 1 FROM x",
		"WITH x AS (SELECT 1) UPDATE messages SET role = 'y'",
		"EXPLAIN DELETE FROM parts",
		"EXPLAIN QUERY PLAN INSERT INTO sessions(session_id) VALUES ('x')",
		// internal tables
		"SELECT * FROM _pond_marks",
		"SELECT * FROM _pond_writers",
		"SELECT * FROM _pond_meta",
		// garbage
		"",
		"   ",
		";",
		"-- only a comment",
		"SELEC 1",
	}
	for _, q := range hostile {
		if _, err := r.Query(context.Background(), q, Options{}); err == nil {
			t.Errorf("%q: ran, want refused", q)
		}
	}
	if _, err := os.Stat(evil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a hostile statement created %s", evil)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("the database file changed")
	}
	if len(hostile) < 60 {
		t.Fatalf("only %d hostile statements; keep at least 60", len(hostile))
	}
}

func TestReadOnlyGateAnswersQueries(t *testing.T) {
	_, _, r := testMirror(t)
	for _, tc := range []struct {
		q    string
		rows int
	}{
		{"SELECT session_id, source_agent FROM sessions", 1},
		{"select count(*) AS n from messages where search_text like '%''world''%'", 1},
		{"WITH t AS (SELECT tool_name, is_failure FROM parts) SELECT tool_name, sum(is_failure) FROM t GROUP BY 1", 1},
		{"EXPLAIN QUERY PLAN SELECT * FROM messages WHERE session_id = 's1'", 1},
		{"SELECT 1; -- a trailing comment is fine", 1},
		{"SELECT message_id FROM messages WHERE search_text REGEXP '^hel+o'", 1},
		{"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 500) SELECT i FROM n", 100},
	} {
		res, err := r.Query(context.Background(), tc.q, Options{})
		if err != nil {
			t.Errorf("%q: %v", tc.q, err)
			continue
		}
		if res.RowCount < tc.rows || (tc.rows == 100 && (!res.Truncated || res.RowCount != 100)) {
			t.Errorf("%q: %d rows (truncated %v), want %d", tc.q, res.RowCount, res.Truncated, tc.rows)
		}
	}
	res, err := r.Query(context.Background(), "SELECT variant_data FROM parts", Options{})
	if err != nil || res.Clipped != 1 || !strings.Contains(res.Rows[0]["variant_data"].(string), "[+") {
		t.Fatalf("long cell: %+v, %v; want it clipped with a marker", res, err)
	}
}

// The search pool's connections may keep 64 MiB of pages: the rank table and FTS5's document
// sizes of a million messages, which every search reads a page of for each match.
func TestSearchPoolKeepsPagesForTheRankTable(t *testing.T) {
	m := tempMirror(t)
	search := OpenSearchDB(m.Path(), nil)
	defer search.Close()
	var kib int
	if err := search.QueryRow(`PRAGMA cache_size`).Scan(&kib); err != nil {
		t.Fatal(err)
	}
	if kib != -searchCacheKiB {
		t.Errorf("cache_size = %d, want %d (KiB)", kib, -searchCacheKiB)
	}
}

func TestRunawayQueryStopsAtTimeout(t *testing.T) {
	_, _, r := testMirror(t)
	_, err := r.Query(context.Background(), "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n) SELECT count(*) FROM n", Options{Timeout: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("runaway CTE: %v, want a timeout error", err)
	}
}

func TestViewsAndHelpers(t *testing.T) {
	_, _, r := testMirror(t)
	for _, tc := range []struct {
		q    string
		want any
	}{
		{"SELECT messages FROM session_summary WHERE session_id = 's1'", int64(1)},
		{"SELECT tool_failures FROM session_summary", int64(1)},
		{`SELECT json_get_string('{"a":{"b":["x","y"]}}', '$.a.b[1]')`, "y"},
		{`SELECT json_get_int('{"n":3}', 'n')`, int64(3)},
		{`SELECT json_get_int('{"n":"3"}', '$.n')`, nil},
		{`SELECT json_get_bool('{"ok":true}', '$.ok')`, int64(1)},
		{`SELECT json_get('{"o":{"k":1}}', '$.o')`, `{"k":1}`},
		{`SELECT json_get_string('not json', '$.a')`, nil},
	} {
		res, err := r.Query(context.Background(), tc.q, Options{})
		if err != nil {
			t.Errorf("%q: %v", tc.q, err)
			continue
		}
		var got any
		for _, v := range res.Rows[0] {
			got = v
		}
		if got != tc.want {
			t.Errorf("%q = %#v, want %#v", tc.q, got, tc.want)
		}
	}
}

func TestExportsReadBack(t *testing.T) {
	_, _, r := testMirror(t)
	q := "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 2500) SELECT i, 'row ' || i AS label, NULL AS empty FROM n"
	var nd bytes.Buffer
	sum, err := r.Export(context.Background(), q, "ndjson", 0, &nd)
	if err != nil || sum.Rows != 2500 {
		t.Fatalf("ndjson export: %+v, %v", sum, err)
	}
	lines := strings.Split(strings.TrimSpace(nd.String()), "\n")
	if len(lines) != 2500 || lines[1] != `{"i":2,"label":"row 2"}` {
		t.Fatalf("ndjson: %d lines, second %q", len(lines), lines[1])
	}
	var cs bytes.Buffer
	if _, err := r.Export(context.Background(), q, "csv", 0, &cs); err != nil {
		t.Fatal(err)
	}
	recs, err := csvReadAll(&cs)
	if err != nil || len(recs) != 2501 || strings.Join(recs[0], ",") != "i,label,empty" || strings.Join(recs[2500], ",") != "2500,row 2500," {
		t.Fatalf("csv read back: %d records, %v", len(recs), err)
	}
	if _, err := r.Export(context.Background(), "DELETE FROM parts", "ndjson", 0, &nd); !errors.Is(err, ErrRefused) {
		t.Fatalf("export of a write: %v, want refused", err)
	}
}

func csvReadAll(r *bytes.Buffer) ([][]string, error) { return csv.NewReader(r).ReadAll() }

func TestParquetExportReadsBack(t *testing.T) {
	_, _, r := testMirror(t)
	q := "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 5000) SELECT i, i / 2.0 AS half, 'row ' || i AS label, NULL AS empty FROM n"
	var buf bytes.Buffer
	sum, err := r.Export(context.Background(), q, "parquet", 0, &buf)
	if err != nil || sum.Rows != 5000 {
		t.Fatalf("parquet export: %+v, %v", sum, err)
	}
	tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(buf.Bytes()), nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if tbl.NumRows() != 5000 || tbl.NumCols() != 4 {
		t.Fatalf("read back %d rows x %d cols", tbl.NumRows(), tbl.NumCols())
	}
	chunks := tbl.Column(2).Data().Chunks()
	last := chunks[len(chunks)-1].(*array.String)
	if got := last.Value(last.Len() - 1); got != "row 5000" {
		t.Fatalf("last label %q", got)
	}
	if tbl.Schema().Field(0).Type.ID() != arrow.INT64 || tbl.Schema().Field(1).Type.ID() != arrow.FLOAT64 {
		t.Fatalf("schema %v", tbl.Schema())
	}
}

// TestParquetExportHoldsABatchOfBytes: a Parquet export of large cells writes a row group per
// parquetBatchBytes of cell data, not per few thousand rows (which would hold gigabytes).
func TestParquetExportHoldsABatchOfBytes(t *testing.T) {
	_, _, r := testMirror(t)
	const cell = 8 << 20
	q := fmt.Sprintf("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 12) SELECT i, replace(hex(zeroblob(%d)), '0', 'x') AS big FROM n", cell/2)
	st, err := r.run(context.Background(), q, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	var buf bytes.Buffer
	sum := &view.SQLExport{}
	peak, err := writeParquet(st, &countingWriter{w: &buf}, sum)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != 12 || sum.Truncated {
		t.Fatalf("exported %d rows (truncated %v), want 12", sum.Rows, sum.Truncated)
	}
	if limit := int64(parquetBatchBytes + cell + 8); peak > limit {
		t.Errorf("held %d bytes of cells at once, want at most %d (a batch and a row)", peak, limit)
	}
	tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(buf.Bytes()), nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if tbl.NumRows() != 12 {
		t.Fatalf("read back %d rows, want 12", tbl.NumRows())
	}
}
