package store

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/sqlite"
)

// The rank table answers only the filters it holds columns for (the dates, the agent and the
// role). Every other filter of SearchFilters, including one added later, must send the search
// to the join with message_rows, or it would be ignored.
func TestRankFiltersRefuseWhatTheyDoNotHold(t *testing.T) {
	if _, _, ok := rankFilters(&plan{}); !ok {
		t.Fatal("a search without filters does not use the rank table")
	}
	held := map[string]bool{"FromDate": true, "ToDate": true, "SourceAgent": true, "Role": true}
	typ := reflect.TypeOf(view.SearchFilters{})
	for i := range typ.NumField() {
		var f view.SearchFilters
		field := reflect.ValueOf(&f).Elem().Field(i)
		if field.Kind() != reflect.String {
			t.Fatalf("SearchFilters.%s is a %s: teach this test to set it", typ.Field(i).Name, field.Kind())
		}
		field.SetString("2026-01-01")
		_, _, ok := rankFilters(&plan{req: view.SearchRequest{Filters: f}, from: f.FromDate, to: f.ToDate})
		if ok != held[typ.Field(i).Name] {
			t.Errorf("with SearchFilters.%s set, rankFilters says %v", typ.Field(i).Name, ok)
		}
	}
}

// TestRankFiltersSelectWhatTheJoinSelects compares, filter by filter, the matches a search
// filtered on the rank table counts with those messageFilters selects from message_rows (the
// join's own filters, which every other filter still takes).
func TestRankFiltersSelectWhatTheJoinSelects(t *testing.T) {
	s := relevanceStore(t, loadRelevance(t), 20)
	ctx := context.Background()
	upsert(t, s, chat("sub", "claude-code/subagent", "/home/dev/payments-api", "", time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC), "the test of the pool added", "the test passed"))
	db, err := s.searchDB()
	if err != nil {
		t.Fatal(err)
	}
	e, _ := sqlite.ParseQuery("the test")
	for _, f := range []view.SearchFilters{
		{}, // no filter: sub-agents are left out by the MATCH itself (wordMatch)
		{SourceAgent: "claude-code"},
		{SourceAgent: "claude-code/subagent"},
		{SourceAgent: "claude"}, // a prefix is not an agent
		{Role: "assistant"},
		{SourceAgent: "gemini-cli", Role: "user", FromDate: "2025-01-01"},
		{SourceAgent: "codex-cli", ToDate: "2027-01-01"},
	} {
		p, err := newPlan(view.SearchRequest{Query: "the test", Filters: f, Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, ok := rankFilters(p); !ok {
			t.Fatalf("%+v: not on the rank table", f)
		}
		p.pool = 10_000
		res := &view.SearchResult{}
		if _, err := s.ftsMatch(ctx, db, p, e, false, rankEveryMatch, wordCount{}, res); err != nil {
			t.Fatal(err)
		}
		want := joinMatches(t, db, p, e)
		if res.MatchedTotal != want || want == 0 && f.SourceAgent != "claude" {
			t.Errorf("%+v: the rank table's filters found %d matches, the join's %d", f, res.MatchedTotal, want)
		}
	}
}

// TestMatchesCountedOnEveryRoute holds the ways ftsMatch counts what matched to the same
// answer: in the ranking's own pass (rankEveryMatch), by routeText before it (the same route,
// the count in scope), by a second query (rankManyMatches), and after the newest matches
// (newestMatches); with the scope in the MATCH (no filter), on the rank table and on the join
// with message_rows (a project filter), with a pool smaller than the matches and one larger.
// The ranked routes keep the same best matches.
func TestMatchesCountedOnEveryRoute(t *testing.T) {
	s := relevanceStore(t, loadRelevance(t), 20)
	ctx := context.Background()
	upsert(t, s, chat("sub", "claude-code/subagent", "/home/dev/payments-api", "", time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC), "the test of the pool added", "the test passed"))
	db, err := s.searchDB()
	if err != nil {
		t.Fatal(err)
	}
	e, _ := sqlite.ParseQuery("the test")
	for _, f := range []view.SearchFilters{{}, {Role: "assistant"}, {Project: "payments"}} {
		p, err := newPlan(view.SearchRequest{Query: "the test", Filters: f})
		if err != nil {
			t.Fatal(err)
		}
		want := joinMatches(t, db, p, e)
		if want < 3 {
			t.Fatalf("%+v: %d matches; the test needs more than its small pool", f, want)
		}
		// What routeText counts for a scope larger than the routing limit, which the matches
		// stay under: in scope without a filter, over the archive with one.
		s.textIndex.routeLimit = 10*want + 10
		route, counted, err := s.routeText(ctx, db, p, e, false, s.textIndex.routeLimit+1)
		s.textIndex.routeLimit = 0
		if err != nil {
			t.Fatal(err)
		}
		_, scoped := wordMatch(p, e, false)
		if route != rankEveryMatch || counted.n < int64(want) || counted.inScope != scoped || scoped && counted.n != int64(want) {
			t.Errorf("%+v: routeText counted %+v (route %d), want %d in scope: %v", f, counted, route, want, scoped)
		}
		for _, pool := range []int{2, want + 1} {
			best := map[textRoute][]string{}
			for _, label := range []textRoute{rankEveryMatch, rankManyMatches, newestMatches, knownCount} {
				route, count := label, wordCount{}
				if label == knownCount {
					if !counted.inScope {
						continue
					}
					route, count = rankEveryMatch, counted
				}
				p.pool = pool
				res := &view.SearchResult{}
				cands, err := s.ftsMatch(ctx, db, p, e, false, route, count, res)
				if err != nil {
					t.Fatal(err)
				}
				if res.MatchedTotal != want || res.MatchedTotalIsLowerBound || len(cands) != min(pool, want) || p.more != (want > pool) {
					t.Errorf("%+v, pool %d, route %d: %d matches counted, %d kept, more %v; want %d, %d, %v",
						f, pool, route, res.MatchedTotal, len(cands), p.more, want, min(pool, want), want > pool)
				}
				for _, c := range cands {
					best[label] = append(best[label], c.messageID)
				}
			}
			if !slices.Equal(best[rankEveryMatch], best[rankManyMatches]) || counted.inScope && !slices.Equal(best[rankEveryMatch], best[knownCount]) {
				t.Errorf("%+v, pool %d: the best matches differ between the routes that rank: %v, %v and %v", f, pool,
					best[rankEveryMatch], best[rankManyMatches], best[knownCount])
			}
		}
	}
}

// joinMatches counts the messages holding every word of e that the plan's filters select from
// message_rows: the join's own answer, which the rank table and every count must give.
func joinMatches(t *testing.T, db querier, p *plan, e sqlite.MatchExpr) int {
	t.Helper()
	filters, args := messageFilters(p, "m", false)
	var n int
	if err := db.QueryRowContext(context.Background(), `SELECT count(*) FROM messages_fts JOIN message_rows m ON m.rowid = messages_fts.rowid
		WHERE messages_fts MATCH ?`+filters, append([]any{e.All}, args...)...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// knownCount labels, in TestMatchesCountedOnEveryRoute, rankEveryMatch given routeText's count.
const knownCount textRoute = -1

// TestScopeInTheMatchRanksAsTheRankTable checks that a search without filters, which keeps to
// its scope inside FTS5 (wordMatch), finds the messages the rank table finds under a filter
// that selects the same scope (a date every message is after), and ranks them alike: the same
// scores and order while no sub-agent holds the words. Once one does, BM25's statistics differ
// (FTS5 weighs a word by the rows holding it in the column searched), so only the matches are
// compared.
func TestScopeInTheMatchRanksAsTheRankTable(t *testing.T) {
	s := relevanceStore(t, loadRelevance(t), 20)
	ctx := context.Background()
	db, err := s.searchDB()
	if err != nil {
		t.Fatal(err)
	}
	e, _ := sqlite.ParseQuery("the test")
	ranked := func(f view.SearchFilters, pool int) (ids []string, scores []float64) {
		t.Helper()
		p, err := newPlan(view.SearchRequest{Query: "the test", Filters: f})
		if err != nil {
			t.Fatal(err)
		}
		p.pool = pool
		cands, err := s.ftsMatch(ctx, db, p, e, false, rankEveryMatch, wordCount{}, &view.SearchResult{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cands {
			ids, scores = append(ids, c.sessionID+"/"+c.messageID), append(scores, c.score)
		}
		return ids, scores
	}
	everyone := view.SearchFilters{FromDate: "2000-01-01"}
	for _, pool := range []int{3, 10_000} {
		inMatch, inMatchScores := ranked(view.SearchFilters{}, pool)
		onRank, onRankScores := ranked(everyone, pool)
		if len(inMatch) < 3 || !slices.Equal(inMatchScores, onRankScores) || pool > len(inMatch) && !slices.Equal(inMatch, onRank) {
			t.Errorf("pool %d: %v %v in the MATCH, %v %v on the rank table", pool, inMatch, inMatchScores, onRank, onRankScores)
		}
	}
	upsert(t, s, chat("sub", "claude-code/subagent", "/home/dev/payments-api", "", time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC), "the test of the pool added", "the test passed"))
	inMatch, _ := ranked(view.SearchFilters{}, 10_000)
	onRank, _ := ranked(everyone, 10_000)
	slices.Sort(inMatch)
	slices.Sort(onRank)
	if len(inMatch) < 3 || !slices.Equal(inMatch, onRank) || slices.ContainsFunc(inMatch, func(id string) bool { return strings.HasPrefix(id, "sub/") }) {
		t.Errorf("with a sub-agent's matches: %v in the MATCH, %v on the rank table", inMatch, onRank)
	}
}
