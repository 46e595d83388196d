package store

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/lance"
	"github.com/pondhq/pond/store/sqlite"
)

// openLoggedStore opens a store in a temporary directory whose warnings go to the buffer
// returned, for tests that want to see what a search dropped.
func openLoggedStore(t *testing.T) (*Store, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	dir := t.TempDir()
	s, err := Open(context.Background(), Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state"), Command: "test",
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, &logs
}

// TestBothEnginesAgreeOnWords runs queries holding stop words, punctuation, code identifiers
// and CJK text on FTS5 and then on Lance's text index, and wants the same sessions from both,
// and no row that Lance returned dropped by the check of what it returned.
func TestBothEnginesAgreeOnWords(t *testing.T) {
	s, logs := openLoggedStore(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, ev := range [][]session.Event{
		chat("with-the", "claude-code", "/p", "", t0, "The role check in the auth middleware is wrong"),
		chat("without-the", "codex-cli", "/p", "", t0.Add(time.Hour), "role based auth: done"),
		chat("stop-only", "codex-cli", "/p", "", t0.Add(2*time.Hour), "to be or not to be"),
		chat("code", "claude-code", "/p", "", t0.Add(3*time.Hour), "pgx.Pool ran out, so MaxConns went up; calc_test.go still fails in useEffect"),
		chat("code2", "pi-coding-agent", "/p", "", t0.Add(3*time.Hour+time.Minute), "A pgx pool with maxconns 10; calc test go and useeffect again"),
		chat("ja", "gemini-cli", "/p", "", t0.Add(4*time.Hour), "東京都の天気予報APIが遅い"),
		chat("other", "gemini-cli", "/p", "", t0.Add(5*time.Hour), "nothing to see in this one, is it"),
	} {
		upsert(t, s, ev)
	}
	cases := []struct{ q, want string }{
		{"role the auth", "with-the,without-the"},
		{"the AUTH, role?", "with-the,without-the"},
		{"is it the role", "with-the,without-the"},
		{"to be or not to be", "stop-only"},
		{"pgx.Pool", "code,code2"},
		{"MaxConns useEffect", "code,code2"},
		{"calc_test.go", "code,code2"},
		{"東京都 the", "ja"},
	}
	search := func(q string) string {
		t.Helper()
		res, err := s.Search(context.Background(), view.SearchRequest{Query: q})
		if err != nil {
			t.Fatalf("Search(%q): %v", q, err)
		}
		var ids []string
		for _, g := range res.Sessions {
			ids = append(ids, g.SessionID)
		}
		slices.Sort(ids)
		return strings.Join(ids, ",")
	}
	for _, tc := range cases {
		if got := search(tc.q); got != tc.want {
			t.Errorf("FTS5: %q found %q, want %q", tc.q, got, tc.want)
		}
	}
	s.textIndex.routeLimit = 1
	if _, err := s.MaintainSearchIndexes(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	if !s.textIndexReady(context.Background()) {
		t.Fatal("text index not ready")
	}
	for _, tc := range cases {
		if got := search(tc.q); got != tc.want {
			t.Errorf("Lance: %q found %q, want %q", tc.q, got, tc.want)
		}
	}
	if res, err := s.Search(context.Background(), view.SearchRequest{Query: "role the auth"}); err != nil || !res.MatchedTotalIsLowerBound {
		t.Errorf("the Lance route was not taken: %+v, %v", res, err)
	}
	if strings.Contains(logs.String(), "does not match") {
		t.Errorf("the check dropped rows Lance returned:\n%s", logs.String())
	}
}

// TestLanceHitsAreCheckedOnTheMirrorsText checks the Lance text arm's safety net: a message
// Lance returns whose text, as the mirror holds it, lacks the query's words never surfaces, and
// its session with it when it was that session's only hit.
func TestLanceHitsAreCheckedOnTheMirrorsText(t *testing.T) {
	s, logs := openLoggedStore(t)
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	upsert(t, s, chat("kept", "claude-code", "/p", "", t0, "the quokka cache warms up", "quokka cache again"))
	upsert(t, s, chat("wrong", "codex-cli", "/p", "", t0.Add(time.Hour), "the quokka cache is cold"))
	s.textIndex.routeLimit = 1
	if _, err := s.MaintainSearchIndexes(ctx, true); err != nil {
		t.Fatal(err)
	}
	search := func() *view.SearchResult {
		t.Helper()
		res, err := s.Search(ctx, view.SearchRequest{Query: "quokka cache"})
		if err != nil {
			t.Fatal(err)
		}
		if !res.MatchedTotalIsLowerBound {
			t.Fatalf("the Lance route was not taken: %+v", res)
		}
		return res
	}
	if got := len(search().Sessions); got != 2 {
		t.Fatalf("%d sessions before the mirror's text changed, want 2", got)
	}
	// Lance's copy still holds the words; the mirror's no longer does, as if Lance answered
	// with a row that does not match.
	if _, err := s.mirror.DB().ExecContext(ctx, `UPDATE message_rows SET search_text = 'nothing here' WHERE session_id = 'wrong'`); err != nil {
		t.Fatal(err)
	}
	res := search()
	if len(res.Sessions) != 1 || res.Sessions[0].SessionID != "kept" || len(res.Sessions[0].Matches) != 2 {
		t.Errorf("after the change: %+v, want only session kept with its two hits", res.Sessions)
	}
	if !strings.Contains(logs.String(), "does not match") {
		t.Errorf("no warning for the dropped hit:\n%s", logs.String())
	}
}

// TestStopWordsAreLances checks the stop-word list against Lance's analyzer itself: Lance
// ignores each listed word (a query of it and "zebra" finds a message holding only "zebra"),
// and requires the words next to them that are not listed.
func TestStopWordsAreLances(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	ctx := context.Background()
	controls := []string{"others", "thing", "nothing", "note", "whether", "what", "how", "about", "is2", "ones", "tos", "nos", "bes", "ised", "ited", "ating", "thereof", "inning", "byes", "thy", "thee", "wasn", "isn", "aren", "thises", "withal", "ina", "ona", "ora"}
	// Lance leaves out of a query any word its index has never seen, even under "and", so a
	// second message holds every word tried; only an ignored word then finds the first.
	upsert(t, s, chat("z", "codex-cli", "/p", "", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), "zebra quokka",
		strings.Join(append(sqlite.StopWords(), controls...), " ")))
	if err := s.Table(TableMessages).CreateIndex(ctx, textIndexSpec()); err != nil {
		t.Fatal(err)
	}
	found := func(w string) bool {
		t.Helper()
		n := 0
		err := s.Table(TableMessages).Scan(ctx, lance.Query{Columns: []string{"id"}, Limit: 5,
			FTS: &lance.FTSQuery{Query: w + " zebra", Column: "search_text", Operator: "and"}}, func(r arrow.Record) error {
			n += int(r.NumRows())
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return n > 0
	}
	for _, w := range sqlite.StopWords() {
		if !found(w) {
			t.Errorf("%q is listed as a stop word, but Lance requires it", w)
		}
	}
	for _, w := range controls {
		if found(w) {
			t.Errorf("Lance ignores %q, which the stop-word list lacks: the check would drop its rows", w)
		}
	}
}
