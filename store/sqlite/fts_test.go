package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseQueryWords(t *testing.T) {
	for _, tc := range []struct {
		name, q string
		want    MatchExpr
	}{
		{"stop_words", "role the auth", MatchExpr{Table: "messages_fts", All: `"role" "auth"`, Any: `"role" OR "auth"`,
			Terms: []string{"role", "auth"}, Words: []string{"role", "auth"}}},
		{"stop_words_any_case", "The Pool IS a pgx pool", MatchExpr{Table: "messages_fts", All: `"Pool" "pgx" "pool"`, Any: `"Pool" OR "pgx" OR "pool"`,
			Terms: []string{"Pool", "pgx", "pool"}, Words: []string{"pool", "pgx"}}},
		{"only_stop_words", "to be or not", MatchExpr{Table: "messages_fts", All: `"to" "be" "or" "not"`, Any: `"to" OR "be" OR "or" OR "not"`,
			Terms: []string{"to", "be", "or", "not"}, Words: []string{"to", "be", "or", "not"}, OnlyStopWords: true}},
		// A term with punctuation stays one phrase for FTS5, stop words inside it included; its
		// words count one by one for Lance and the check.
		{"punctuation", "end-to-end, pgx.Pool!", MatchExpr{Table: "messages_fts", All: `"end-to-end," "pgx.Pool!"`, Any: `"end-to-end," OR "pgx.Pool!"`,
			Terms: []string{"end-to-end,", "pgx.Pool!"}, Words: []string{"end", "pgx", "pool"}}},
		{"punctuation_only", "-- ?? !", MatchExpr{Table: "messages_fts"}},
		{"code_identifiers", "calc_test.go useEffect MaxConns v1.2", MatchExpr{Table: "messages_fts",
			All:   `"calc_test.go" "useEffect" "MaxConns" "v1.2"`,
			Any:   `"calc_test.go" OR "useEffect" OR "MaxConns" OR "v1.2"`,
			Terms: []string{"calc_test.go", "useEffect", "MaxConns", "v1.2"}, Words: []string{"calc", "test", "go", "useeffect", "maxconns", "v1", "2"}}},
		{"cjk", "東京都 の 天気 the", MatchExpr{Table: "messages_cjk", All: `"東京都"`, Any: `"東京都"`,
			Terms: []string{"東京都", "の", "天気"}, Words: []string{"東京都", "の", "天気"}, Short: []string{"の", "天気"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseQuery(tc.q)
			if ok != (len(tc.want.Terms) > 0) {
				t.Errorf("ok = %v", ok)
			}
			if d := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("ParseQuery(%q) (-want +got):\n%s", tc.q, d)
			}
		})
	}
}

// A long search text is stored packed, read back whole through the messages view, and indexed
// as its text by both full-text indexes, through inserts, updates and deletes, a sub-agent's in
// the word index's column of its own: FTS5's own integrity check compares each index with its
// content, the unpacked text.
func TestPackedSearchTextIsIndexedAsText(t *testing.T) {
	ctx := context.Background()
	m := tempMirror(t)
	long := func(words string) string { return words + strings.Repeat(" and the build passed again", 20) }
	en, ja := long("zebrafinch migration notes"), long("東京タワーの設定を確認した")
	msg := func(id, text string, seq int64) MessageRow {
		return MessageRow{SessionID: "s", MessageID: id, Timestamp: "2026-06-01T09:00:00Z", Role: "user", SourceAgent: "a", Project: "/p",
			SearchText: text, IngestSeq: seq}
	}
	// A sub-agent's message: the word index keeps its text in the other column.
	sub := msg("m4", long("zebrafinch from a sub-agent"), 6)
	sub.SessionID, sub.SourceAgent = "t", "a/sub"
	if err := m.Apply(ctx, &Rows{
		Sessions: []SessionRow{{SessionID: "s", SourceAgent: "a", CreatedAt: "2026-06-01T09:00:00Z", Project: "/p", IngestSeq: 1},
			{SessionID: "t", SourceAgent: "a/sub", CreatedAt: "2026-06-01T09:00:00Z", Project: "/p", IngestSeq: 5}},
		Messages: []MessageRow{msg("m1", en, 2), msg("m2", ja, 3), msg("m3", "short one", 4), sub},
	}); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		for _, ix := range []string{"messages_fts", "messages_cjk"} {
			if _, err := m.db.ExecContext(ctx, `INSERT INTO `+ix+`(`+ix+`) VALUES ('integrity-check')`); err != nil {
				t.Errorf("%s: %s does not match its content: %v", when, ix, err)
			}
		}
	}
	one := func(q string, args ...any) string {
		t.Helper()
		var s sql.NullString
		if err := m.db.QueryRowContext(ctx, q, args...).Scan(&s); err != nil && !errors.Is(err, sql.ErrNoRows) {
			t.Fatal(err)
		}
		return s.String
	}
	if got := one(`SELECT group_concat(typeof(search_text), ',') FROM (SELECT search_text FROM message_rows ORDER BY message_id)`); got != "blob,blob,text,blob" {
		t.Errorf("stored as %s; want the long texts packed, the short one as text", got)
	}
	if got := one(`SELECT search_text FROM messages WHERE message_id = 'm2'`); got != ja {
		t.Errorf("read back %.40q", got)
	}
	// words counts the messages holding a word, and those outside sub-agents' sessions.
	words := func(when, word, want string) {
		t.Helper()
		all := one(`SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?`, `"`+word+`"`)
		scoped := one(`SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?`, WithoutSubagents(`"`+word+`"`))
		if got := all + "/" + scoped; got != want {
			t.Errorf("%s: %s matched %s messages (all / outside sub-agents), want %s", when, word, got, want)
		}
	}
	if got := one(`SELECT m.message_id FROM messages_fts f JOIN message_rows m ON m.rowid = f.rowid WHERE messages_fts MATCH ?`,
		WithoutSubagents(`"zebrafinch"`)); got != "m1" {
		t.Errorf("word index found %q for zebrafinch outside sub-agents", got)
	}
	words("after insert", "zebrafinch", "2/1")
	if got := one(`SELECT m.message_id FROM messages_cjk f JOIN message_rows m ON m.rowid = f.rowid WHERE messages_cjk MATCH '"東京タワー"'`); got != "m2" {
		t.Errorf("trigram index found %q", got)
	}
	check("after insert")
	if err := m.Apply(ctx, &Rows{Updates: []SearchTextUpdate{{SessionID: "s", MessageID: "m1", SearchText: long("albatross"), IngestSeq: 10},
		{SessionID: "t", MessageID: "m4", SearchText: long("albatross"), IngestSeq: 11}}}); err != nil {
		t.Fatal(err)
	}
	words("after update", "zebrafinch", "0/0") // the replaced text is no longer indexed
	words("after update", "albatross", "2/1")
	check("after update")
	if _, err := m.db.ExecContext(ctx, `DELETE FROM message_rows WHERE message_id IN ('m2', 'm4')`); err != nil {
		t.Fatal(err)
	}
	words("after delete", "albatross", "1/1")
	check("after delete")
	if _, err := m.db.ExecContext(ctx, `INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')`); err != nil {
		t.Fatal(err)
	}
	words("after a rebuild from the content", "albatross", "1/1")
	check("after rebuild")
}
