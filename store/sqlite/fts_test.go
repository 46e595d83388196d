package sqlite

import (
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
