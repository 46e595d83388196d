package sqlite

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
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

// shippedDicts pins every dictionary ever shipped: frames written with one name its id and
// need it byte for byte to read, so a changed or removed file fails here. A new generation is
// added beside the old ones (packdict/train.go) and to this list.
var shippedDicts = map[string]string{
	"packdict/records-1.zdict": "8f613d0a8d46a497a157a1d24ee9b312f2618426451ffe7aa6d7f7ed38e88c13",
}

func TestShippedDictionariesNeverChange(t *testing.T) {
	names, err := fs.Glob(dictFiles, "packdict/*.zdict")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(shippedDicts) {
		t.Errorf("packdict holds %v; shippedDicts names %d", names, len(shippedDicts))
	}
	for name, want := range shippedDicts {
		b, err := dictFiles.ReadFile(name)
		if err != nil {
			t.Errorf("%s: %v (a shipped dictionary is never removed)", name, err)
			continue
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != want {
			t.Errorf("%s changed (sha256 %s): frames written with it would no longer read; train a new generation instead", name, got)
		}
	}
	if _, ok := shippedDicts[recordDict]; !ok {
		t.Errorf("recordDict %s is not among the shipped dictionaries", recordDict)
	}
}

// A raw record is packed with the records dictionary and its frame names it; tool bodies are
// not. The record below is no fixture's (the dictionary learned from those): an envelope as
// Claude Code writes them, which the dictionary should still know.
func TestRawRecordsPackWithTheirDictionary(t *testing.T) {
	ctx := context.Background()
	m := tempMirror(t)
	record := `{"parentUuid":"5d1f0c3e-8a2b-4c6d-9e7f-0a1b2c3d4e5f","isSidechain":false,"userType":"external",` +
		`"cwd":"/home/ada/src/lighthouse","sessionId":"a7e3c1d9-2b4f-4e6a-8c0d-1f2e3a4b5c6d","version":"2.1.42",` +
		`"gitBranch":"main","message":{"id":"msg_01XyZ","type":"message","role":"assistant","model":"claude-sonnet-4-5",` +
		`"content":[{"type":"text","text":"The lighthouse keeper's log parser now skips blank lines."}],"stop_reason":"end_turn",` +
		`"usage":{"input_tokens":12,"cache_creation_input_tokens":340,"cache_read_input_tokens":20480,"output_tokens":58,` +
		`"service_tier":"standard"}},"requestId":"req_011CXyZ","type":"assistant","uuid":"0b9e8d7c-6a5b-4c3d-2e1f-0a9b8c7d6e5f",` +
		`"timestamp":"2026-06-01T09:00:00.000Z"}`
	body := `{"call_id":"c1","name":"bash","result":"` + strings.Repeat("ok 1 - test\n", 60) + `"}`
	r := &Rows{
		Sessions: []SessionRow{{SessionID: "s", SourceAgent: "claude-code", CreatedAt: "2026-06-01T09:00:00Z", IngestSeq: 1}},
		Messages: []MessageRow{{SessionID: "s", MessageID: "m1", Timestamp: "2026-06-01T09:00:00Z", Role: "assistant", SourceAgent: "claude-code", Options: record, IngestSeq: 2}},
		Parts:    []PartRow{{SessionID: "s", MessageID: "m1", ID: "p1", Type: "tool_result", CallID: "c1", VariantData: body, IngestSeq: 3}},
	}
	if err := m.Apply(ctx, r); err != nil {
		t.Fatal(err)
	}
	var recFrame, bodyFrame []byte
	if err := m.db.QueryRowContext(ctx, `SELECT (SELECT options_packed FROM message_rows), (SELECT variant_data_packed FROM part_rows)`).Scan(&recFrame, &bodyFrame); err != nil {
		t.Fatal(err)
	}
	dictID := func(frame []byte) uint32 {
		var h zstd.Header
		if err := h.Decode(frame); err != nil {
			t.Fatal(err)
		}
		return h.DictionaryID
	}
	if got, want := dictID(recFrame), uint32(0x504f4e01); got != want {
		t.Errorf("the record's frame names dictionary %#x, want %#x", got, want)
	}
	if got := dictID(bodyFrame); got != 0 {
		t.Errorf("the tool body's frame names dictionary %#x, want none", got)
	}
	plain, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.DecodeAll(recFrame, nil); err == nil {
		t.Error("a decoder without the dictionary read the record's frame")
	}
	_, other, _ := codecs()
	without := other.EncodeAll([]byte(record), nil)
	if len(recFrame)*10 > len(without)*8 {
		t.Errorf("%d-byte record: %d bytes with the dictionary, %d without; want at least 20%% less", len(record), len(recFrame), len(without))
	}
	var back string
	if err := m.db.QueryRowContext(ctx, `SELECT options FROM messages`).Scan(&back); err != nil || back != record {
		t.Errorf("read back %.80q, %v", back, err)
	}
}

// A mirror of layout 2 (frames without a dictionary) or 3 (no derived text parts) is read as
// it is, not rebuilt: its rows stay and read back through the views, its parts view and the
// trigger derived parts need are replaced and added, and it is marked the current layout.
func TestEarlierLayoutsReadWithoutRebuild(t *testing.T) {
	for _, layout := range []string{"2", "3"} {
		t.Run("layout "+layout, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "mirror.db")
			m, err := OpenMirror(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			record := `{"type":"assistant","text":"` + strings.Repeat("written before dictionaries; ", 20) + `"}`
			_, other, _ := codecs()
			if err := m.Apply(ctx, &Rows{Sessions: []SessionRow{{SessionID: "s", SourceAgent: "codex-cli", CreatedAt: "2026-06-01T09:00:00Z", IngestSeq: 1}},
				Messages: []MessageRow{{SessionID: "s", MessageID: "m0", Timestamp: "2026-06-01T09:00:00Z", Role: "assistant", SourceAgent: "codex-cli", IngestSeq: 2}}}); err != nil {
				t.Fatal(err)
			}
			// What the earlier binary wrote: a frame with no dictionary (layout 2), its parts
			// view and no trigger, and the version it recorded.
			for _, q := range []string{
				`UPDATE message_rows SET options_packed = ?`,
				`DROP TRIGGER parts_keep_derived_text`,
				`DROP VIEW parts`,
				`CREATE VIEW parts AS SELECT session_id, message_id, id, ordinal, type, provenance, tool_name, call_id, is_failure,
					` + unpacked("variant_data_packed") + ` AS variant_data, ` + unpacked("options_packed") + ` AS options, ingest_seq FROM part_rows`,
				`UPDATE _pond_meta SET value = '` + layout + `' WHERE key = 'schema_version'`,
			} {
				var args []any
				if strings.Contains(q, "?") {
					args = append(args, other.EncodeAll([]byte(record), nil))
				}
				if _, err := m.db.ExecContext(ctx, q, args...); err != nil {
					t.Fatal(err)
				}
			}
			m.Close()

			m, err = OpenMirror(ctx, path)
			if err != nil {
				t.Fatalf("a layout-%s mirror: %v", layout, err)
			}
			defer m.Close()
			var back, version string
			if err := m.db.QueryRowContext(ctx, `SELECT (SELECT options FROM messages), (SELECT value FROM _pond_meta WHERE key = 'schema_version')`).Scan(&back, &version); err != nil {
				t.Fatal(err)
			}
			if back != record || version != fmt.Sprint(SchemaVersion) {
				t.Errorf("read back %.60q, layout %s; want the record, layout %d", back, version, SchemaVersion)
			}
			messages, parts := textRows(10)
			if err := m.Apply(ctx, &Rows{Messages: messages, Parts: parts}); err != nil {
				t.Fatal(err)
			}
			if got := storedForms(t, m); !strings.Contains(got, "m1/p1=derived") {
				t.Errorf("no derived part after the layout change: %s", got)
			}
			checkParts(t, m, parts)
			if err := m.Apply(ctx, &Rows{Updates: []SearchTextUpdate{{SessionID: "s", MessageID: "m1", SearchText: "changed", IngestSeq: 40}}}); err != nil {
				t.Fatal(err)
			}
			checkParts(t, m, parts)
		})
	}
}
