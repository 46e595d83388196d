package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/sqlite"
)

// chat is a session of alternating user and assistant text messages, a minute apart.
func chat(id, agent, project, parent string, t0 time.Time, texts ...string) []session.Event {
	ev := []session.Event{{Session: &session.Session{ID: id, SourceAgent: agent, Project: project, ParentSessionID: parent, CreatedAt: t0}}}
	for i, text := range texts {
		role := session.RoleUser
		if i%2 == 1 {
			role = session.RoleAssistant
		}
		mid := fmt.Sprintf("m%02d", i)
		ev = append(ev,
			session.Event{Message: &session.Message{SessionID: id, ID: mid, Role: role, Timestamp: t0.Add(time.Duration(i) * time.Minute)}},
			session.Event{Part: &session.Part{SessionID: id, MessageID: mid, ID: "p0", Type: session.PartText, Provenance: session.Conversational, Text: text}})
	}
	return ev
}

func searchStore(t *testing.T) *Store {
	t.Helper()
	s := openTestStore(t, t.TempDir())
	day := func(d int) time.Time { return time.Date(2026, 3, d, 10, 0, 0, 0, time.UTC) }
	for _, ev := range [][]session.Event{
		chat("pg", "claude-code", "/home/dev/payments", "", day(2),
			"The pgx pool times out under load in the payments service",
			"Raising MaxConns on the pgx pool and adding a context deadline fixed the timeout."),
		chat("react", "codex-cli", "/home/dev/web", "", day(5),
			"Migrate the Profile class component to hooks",
			"Converted componentDidMount to useEffect; the profile page now uses hooks."),
		chat("pg-sub", "claude-code/subagent", "/home/dev/payments", "pg", day(2),
			"Subagent: measured pool wait times for the pgx pool"),
		chat("ja", "gemini-cli", "/home/dev/tokyo", "", day(7),
			"東京都の天気予報APIのレスポンスが遅い問題を調査してください",
			"キャッシュを追加して東京都の天気予報の取得を高速化しました"),
		chat("long", "pi-coding-agent", "/home/dev/big", "", day(9),
			strings.Repeat("filler words about nothing in particular. ", 40)+"The kubernetes CrashLoopBackOff came from a missing ConfigMap."+strings.Repeat(" more filler after the point.", 40)),
	} {
		upsert(t, s, ev)
	}
	return s
}

func TestSearchFindsGroupsAndFilters(t *testing.T) {
	s := searchStore(t)
	ctx := context.Background()
	search := func(req view.SearchRequest) *view.SearchResult {
		t.Helper()
		res, err := s.Search(ctx, req)
		if err != nil {
			t.Fatalf("Search(%+v): %v", req, err)
		}
		return res
	}
	ids := func(r *view.SearchResult) string {
		var out []string
		for _, g := range r.Sessions {
			out = append(out, g.SessionID)
		}
		return strings.Join(out, ",")
	}

	r := search(view.SearchRequest{Query: "pgx pool"})
	if ids(r) != "pg" || r.Sessions[0].MatchedMessageCount != 2 || r.Sessions[0].SessionMessagesCount != 2 {
		t.Fatalf("pgx pool: sessions %q, %+v", ids(r), r.Sessions)
	}
	if r.MatchedTotal != 2 || r.SearchableInScope != 7 {
		t.Errorf("pgx pool: matched %d searchable %d, want 2 and 7 (sub-agent left out)", r.MatchedTotal, r.SearchableInScope)
	}
	if m := r.Sessions[0].Matches; m[0].MessageID != "m01" || len(m[0].Highlights) == 0 {
		t.Errorf("matches not newest first or not highlighted: %+v", m)
	}

	// Stemming: "timing out" finds "times out"/"timeout"? The stem of "times" is "time".
	if r := search(view.SearchRequest{Query: "time"}); ids(r) != "pg" {
		t.Errorf("stemmed query found %q", ids(r))
	}

	// A sub-kind lets sub-agents in and groups them under their root session.
	r = search(view.SearchRequest{Query: "pool", Filters: view.SearchFilters{SourceAgent: "claude-code/subagent"}})
	if ids(r) != "pg" || r.Sessions[0].Matches[0].SessionID != "pg-sub" {
		t.Errorf("sub-kind search: %q %+v", ids(r), r.Sessions)
	}
	r = search(view.SearchRequest{Query: "pool", Filters: view.SearchFilters{SessionID: "pg-sub"}})
	if ids(r) != "pg" || r.Sessions[0].MatchedMessageCount != 1 {
		t.Errorf("session search: %q %+v", ids(r), r.Sessions)
	}

	// Filters.
	for _, c := range []struct {
		f    view.SearchFilters
		want string
	}{
		{view.SearchFilters{Project: "PAYMENTS"}, "pg"},
		{view.SearchFilters{Project: "re:/web$"}, ""},
		{view.SearchFilters{Project: "lit:/home/dev/pay"}, ""},
		{view.SearchFilters{Project: "lit:/home/dev/payments"}, "pg"},
		{view.SearchFilters{SourceAgent: "claude"}, ""},
		{view.SearchFilters{SourceAgent: "claude-code"}, "pg"},
		{view.SearchFilters{FromDate: "2026-03-03"}, ""},
		{view.SearchFilters{ToDate: "2026-03-02"}, "pg"},
		{view.SearchFilters{Role: "assistant"}, "pg"},
	} {
		if got := ids(search(view.SearchRequest{Query: "pool", Filters: c.f})); got != c.want {
			t.Errorf("filters %+v: got %q, want %q", c.f, got, c.want)
		}
	}

	// Nothing found: the reason tells the cases apart.
	if r := search(view.SearchRequest{Query: "pool", Filters: view.SearchFilters{FromDate: "2027-01-01"}}); r.Reason != "filters_excluded_everything" {
		t.Errorf("reason %q", r.Reason)
	}
	if r := search(view.SearchRequest{Query: "zyzzyva"}); r.Reason != "no_match" || !strings.Contains(r.Hint, "pond sql") {
		t.Errorf("reason %q hint %q", r.Reason, r.Hint)
	}
	// Any-word fallback when no message has every word.
	if r := search(view.SearchRequest{Query: "hooks zyzzyva"}); ids(r) != "react" || len(r.Notes) < 2 {
		t.Errorf("fallback: %q notes %v", ids(r), r.Notes)
	}

	// CJK: substrings of an unsegmented run, long and short.
	if r := search(view.SearchRequest{Query: "天気予報"}); ids(r) != "ja" || r.Sessions[0].MatchedMessageCount != 2 {
		t.Errorf("CJK trigram search: %q", ids(r))
	}
	if r := search(view.SearchRequest{Query: "東京"}); ids(r) != "ja" {
		t.Errorf("CJK two-character search: %q", ids(r))
	}

	// Snippets are windows around the first informative term.
	r = search(view.SearchRequest{Query: "CrashLoopBackOff"})
	h := r.Sessions[0].Matches[0]
	if !strings.HasPrefix(h.Text, "[") || !strings.Contains(h.Text, "more chars]") || !strings.Contains(h.Text, "CrashLoopBackOff") {
		t.Errorf("snippet: %q", h.Text)
	}
	if got := h.Text[h.Highlights[0][0]:h.Highlights[0][1]]; got != "CrashLoopBackOff" {
		t.Errorf("highlight covers %q", got)
	}

	// Recency sort puts the newest session first.
	r = search(view.SearchRequest{Query: "the", SortBy: view.SortRecency})
	if len(r.Sessions) < 2 || r.Sessions[0].SessionID != "long" {
		t.Errorf("recency: %q", ids(r))
	}

	// Bad requests name the field.
	var ve *ValidationError
	for _, req := range []view.SearchRequest{{Query: " "}, {Query: "x", Mode: "fuzzy"}, {Query: "x", Filters: view.SearchFilters{FromDate: "03/02"}}, {Query: "x", Filters: view.SearchFilters{Project: "re:("}}} {
		if _, err := s.Search(ctx, req); !errors.As(err, &ve) {
			t.Errorf("Search(%+v) = %v, want a validation error", req, err)
		}
	}
	if _, err := s.Search(ctx, view.SearchRequest{Query: "x", Mode: view.ModeVector}); !errors.Is(err, ErrEmbeddingsOff) {
		t.Errorf("vector without embeddings: %v", err)
	}
}

func TestSearchEmptyStore(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	res, err := s.Search(context.Background(), view.SearchRequest{Query: "anything"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != "store_empty" || len(res.Sessions) != 0 {
		t.Errorf("empty store: %+v", res)
	}
}

func TestSnippet(t *testing.T) {
	text := strings.Repeat("a", 1000) + " Needle " + strings.Repeat("b", 1000)
	got, marks := Snippet(text, []string{"needle"}, 600)
	if !strings.HasPrefix(got, "[701 chars before] ") || !strings.HasSuffix(got, " [+707 more chars]") {
		t.Errorf("markers: %q…%q", got[:30], got[len(got)-30:])
	}
	if len(marks) != 1 || got[marks[0][0]:marks[0][1]] != "Needle" {
		t.Errorf("marks %v", marks)
	}
	short, _ := Snippet("Ünïcode stays whole", []string{"stays"}, 600)
	if short != "Ünïcode stays whole" {
		t.Errorf("short text changed: %q", short)
	}
	// Terms mark whole words or their beginnings, not the inside of other words.
	_, marks = Snippet("run pytest on the test suite", []string{"test"}, 600)
	if len(marks) != 1 || marks[0][0] != 18 {
		t.Errorf("word start: %v", marks)
	}
	// A stem matches an inflected word.
	_, marks = Snippet("the build failed twice", []string{"failing"}, 600)
	if len(marks) != 1 {
		t.Errorf("stem not marked: %v", marks)
	}
}

func TestSessionPagesAndMessages(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	ctx := context.Background()
	t0 := time.Date(2026, 4, 1, 8, 0, 0, 0, time.UTC)
	var texts []string
	for i := 0; i < 45; i++ {
		texts = append(texts, fmt.Sprintf("message number %d", i))
	}
	upsert(t, s, chat("big", "codex-cli", "/p", "", t0, texts...))
	upsert(t, s, chat("child", "codex-cli/subagent", "/p", "big", t0, "child work"))
	upsert(t, s, everyKind("kinds"))

	page, err := s.GetSession(ctx, view.GetSessionRequest{ID: "big"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Messages) != 20 || page.FirstIndex != 1 || page.BeforeRemaining != 0 || page.AfterRemaining != 25 || len(page.Subagents) != 1 {
		t.Fatalf("first page: %d msgs, first %d, before %d after %d, subagents %v", len(page.Messages), page.FirstIndex, page.BeforeRemaining, page.AfterRemaining, page.Subagents)
	}
	next, err := s.GetSession(ctx, view.GetSessionRequest{ID: "big", AfterMessageID: page.Messages[19].ID, Limit: 30})
	if err != nil {
		t.Fatal(err)
	}
	if next.Messages[0].Text != "message number 20" || next.AfterRemaining != 0 || len(next.Messages) != 25 || next.Subagents != nil {
		t.Errorf("next page: first %q, after %d, n %d", next.Messages[0].Text, next.AfterRemaining, len(next.Messages))
	}
	end, err := s.GetSession(ctx, view.GetSessionRequest{ID: "big", From: "end", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if end.Messages[4].Text != "message number 44" || end.BeforeRemaining != 40 {
		t.Errorf("end page: %+v before %d", end.Messages[4], end.BeforeRemaining)
	}
	prev, err := s.GetSession(ctx, view.GetSessionRequest{ID: "big", BeforeMessageID: end.Messages[0].ID, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if prev.Messages[1].Text != "message number 39" || prev.BeforeRemaining != 38 || prev.AfterRemaining != 5 {
		t.Errorf("before page: %+v", prev)
	}
	byMsg, err := s.GetSession(ctx, view.GetSessionRequest{ID: "m01", Limit: 1})
	if err != nil || byMsg.ResolvedFromMessageID != "m01" || byMsg.Messages[0].ID != "m01" {
		t.Errorf("message id resolution: %+v %v", byMsg, err)
	}
	at, err := s.GetSession(ctx, view.GetSessionRequest{ID: "big", AtMessageID: page.Messages[7].ID, Limit: 3})
	if err != nil || at.Messages[0].ID != page.Messages[7].ID || at.FirstIndex != 8 || at.BeforeRemaining != 7 || at.Session.ID != "big" {
		t.Errorf("page at a message of the session: %+v %v", at, err)
	}
	var ve *ValidationError
	if _, err := s.GetSession(ctx, view.GetSessionRequest{ID: "big", AtMessageID: page.Messages[7].ID, BeforeMessageID: page.Messages[9].ID}); !errors.As(err, &ve) {
		t.Errorf("at and before together: %v", err)
	}
	if _, err := s.GetSession(ctx, view.GetSessionRequest{ID: "big", AtMessageID: "gone"}); !errors.As(err, &ve) || ve.Field != "at_message_id" {
		t.Errorf("at a message not in the session: %v", err)
	}
	if _, err := s.GetSession(ctx, view.GetSessionRequest{ID: "big", AfterMessageID: "gone"}); !errors.As(err, &ve) || ve.Field != "after_message_id" {
		t.Errorf("stale anchor: %v", err)
	}
	if _, err := s.GetSession(ctx, view.GetSessionRequest{ID: "nope"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}

	// A message with every part kind: full bodies, neighbours, summaries.
	d, err := s.GetMessage(ctx, view.GetMessageRequest{ID: "m2", SessionID: "kinds", ContextBefore: new(1)})
	if err != nil {
		t.Fatal(err)
	}
	if d.Target.ID != "m2" || len(d.TargetParts) != 7 || len(d.Before) != 1 || len(d.After) != 1 {
		t.Fatalf("get message: target %q parts %d before %d after %d", d.Target.ID, len(d.TargetParts), len(d.Before), len(d.After))
	}
	// The result's body is long: the mirror leaves it to Lance, and it is read from there.
	if !strings.HasPrefix(string(d.TargetParts[2].Result), `"FAIL: TestX\n`) || len(d.TargetParts[2].Result) < 300 || !d.TargetParts[2].IsFailure {
		t.Errorf("tool result body: %+v", d.TargetParts[2])
	}
	if len(d.Target.PartsSummary) != 6 || d.Target.PartsSummary[1].Label != "Bash" || d.Target.PartsSummary[2].Label != "Bash" ||
		d.Target.PartsSummary[2].CallID != "toolu_1" || d.Target.PartsSummary[2].Failed == nil || !*d.Target.PartsSummary[2].Failed {
		t.Errorf("parts summary: %+v", d.Target.PartsSummary)
	}
	m1, err := s.GetMessage(ctx, view.GetMessageRequest{ID: "m1", SessionID: "kinds"})
	if err != nil || m1.TargetParts[1].Data == nil || len(m1.TargetParts[1].Data.Bytes) != 6 {
		t.Errorf("file payload: %+v %v", m1, err)
	}
	if _, err := s.GetMessage(ctx, view.GetMessageRequest{ID: "big"}); !errors.As(err, &ve) || !strings.Contains(ve.Message, "get-session") {
		t.Errorf("session id as message id: %v", err)
	}
}

func TestFitPartsCutsOversizedBodies(t *testing.T) {
	big := session.Part{ID: "p0", Type: session.PartToolResult, Result: []byte(`"` + strings.Repeat("x", 300_000) + `"`)}
	small := session.Part{ID: "p1", Type: session.PartText, Text: "tail"}
	kept, rest := fitParts([]session.Part{big, small}, view.PageBudgetBytes)
	if len(kept) != 2 || rest != 0 || !strings.Contains(string(kept[0].Result), "more bytes]") || len(kept[0].Result) > view.PageBudgetBytes {
		t.Errorf("kept %d rest %d", len(kept), rest)
	}
}

// TestCommonWordsRouteToLance lowers the routing threshold so that a query of common words runs
// on Lance's text index, and checks it agrees with FTS5 and keeps the filters.
func TestCommonWordsRouteToLance(t *testing.T) {
	d := loadRelevance(t)
	s := relevanceStore(t, d, 20)
	ctx := context.Background()
	before, err := s.Search(ctx, view.SearchRequest{Query: "pgxpool", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	s.textIndex.routeLimit = 1
	if _, err := s.MaintainSearchIndexes(ctx, true); err != nil {
		t.Fatal(err)
	}
	if !s.textIndexReady(ctx) {
		t.Fatal("text index not ready after MaintainSearchIndexes")
	}
	after, err := s.Search(ctx, view.SearchRequest{Query: "pgxpool", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !after.MatchedTotalIsLowerBound || before.MatchedTotalIsLowerBound {
		t.Errorf("the Lance route was not taken: before %+v after %+v", before.MatchedTotal, after.MatchedTotal)
	}
	if len(after.Sessions) == 0 || after.Sessions[0].SessionID != before.Sessions[0].SessionID {
		t.Errorf("engines disagree on the best session: FTS5 %v, Lance %v", before.Sessions, after.Sessions)
	}
	// Filters hold on the Lance route too.
	res, err := s.Search(ctx, view.SearchRequest{Query: "the test", Filters: view.SearchFilters{SourceAgent: "gemini-cli", Role: "user"}, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range res.Sessions {
		for _, h := range g.Matches {
			if g.SourceAgent != "gemini-cli" || h.Role != "user" {
				t.Errorf("filtered Lance search returned %s %s %s", g.SessionID, g.SourceAgent, h.Role)
			}
		}
	}
	// New rows are found before the index folds them in.
	upsert(t, s, chat("fresh", "codex-cli", "/p", "", time.Now(), "zanzibar quokka the test"))
	res, err = s.Search(ctx, view.SearchRequest{Query: "the test zanzibar"})
	if err != nil || len(res.Sessions) == 0 || res.Sessions[0].SessionID != "fresh" {
		t.Errorf("unindexed row not found: %+v %v", res, err)
	}
}

// TestCommonWordsBeforeTheTextIndex checks the route common words take until Lance's text
// index exists: FTS5 returns their newest matches, unranked (and says so), on the rank table and
// through the join to message_rows alike, still counting them; once the index is built, the best
// match of the whole archive comes first again.
func TestCommonWordsBeforeTheTextIndex(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	// The best match by BM25 is captured first, five weaker ones after it.
	upsert(t, s, chat("best", "codex-cli", "/p", "", t0, "flaky test, flaky test: the flaky test again"))
	for i := range 5 {
		upsert(t, s, chat(fmt.Sprintf("later-%d", i), "codex-cli", "/p", "", t0.Add(time.Duration(i+1)*time.Hour),
			"one flaky test among many other words that dilute how well this long message matches the query"))
	}
	search := func(f view.SearchFilters) (*view.SearchResult, string) {
		t.Helper()
		res, err := s.Search(ctx, view.SearchRequest{Query: "flaky test", Filters: f, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, g := range res.Sessions {
			ids = append(ids, g.SessionID)
		}
		return res, strings.Join(ids, ",")
	}
	s.textIndex.routeLimit = 3 // six messages match: the words are common
	for _, f := range []view.SearchFilters{{}, {SourceAgent: "codex-cli", Role: "user"}, {Project: "/p"}} {
		res, ids := search(f)
		if ids != "later-4,later-3,later-2,later-1,later-0,best" {
			t.Errorf("filters %+v: found %s, want the newest first", f, ids)
		}
		if res.MatchedTotal != 6 || res.MatchedTotalIsLowerBound {
			t.Errorf("filters %+v: matched %d (lower bound %v), want 6", f, res.MatchedTotal, res.MatchedTotalIsLowerBound)
		}
		if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "these are the newest") }) {
			t.Errorf("filters %+v: no note says the matches are not ranked: %q", f, res.Notes)
		}
	}
	s.textIndex.routeLimit = 100 // few matches: every one ranked
	if _, ids := search(view.SearchFilters{}); !strings.HasPrefix(ids, "best,") {
		t.Errorf("every match ranked: found %s, want best first", ids)
	}
	s.textIndex.routeLimit = 3
	if _, err := s.MaintainSearchIndexes(ctx, true); err != nil {
		t.Fatal(err)
	}
	if res, ids := search(view.SearchFilters{}); !strings.HasPrefix(ids, "best,") || !res.MatchedTotalIsLowerBound {
		t.Errorf("on Lance's text index: found %s (lower bound %v), want best first", ids, res.MatchedTotalIsLowerBound)
	}
}

// TestWordsOfMiddlingFrequencyRoute checks the route of words fewer messages hold than the
// routing limit but more than lanceFaster's share of it: Lance ranks them while its text index is caught
// up, and FTS5 ranks every match (and counts them) once the index lags far enough behind that
// Lance's scan of the rows it lacks costs more (lanceFaster); fewer matches stay on FTS5.
func TestWordsOfMiddlingFrequencyRoute(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	// 120 messages: "quokka" in 20 of them, "zanzibar" in 5.
	for i := range 12 {
		var texts []string
		for j := range 10 {
			text := fmt.Sprintf("message %d of session %d about the build", j, i)
			if n := i*10 + j; n%6 == 0 {
				text += " with a quokka"
			} else if n%24 == 1 {
				text += " in zanzibar"
			}
			texts = append(texts, text)
		}
		upsert(t, s, chat(fmt.Sprintf("s%02d", i), "codex-cli", "/p", "", t0.Add(time.Duration(i)*time.Hour), texts...))
	}
	// Lance from 12 matches while caught up, from 12+80 per row it lacks; filtered, from 5 and
	// 5+16 (lanceFaster).
	s.textIndex.routeLimit = 40
	if _, err := s.MaintainSearchIndexes(ctx, true); err != nil {
		t.Fatal(err)
	}
	search := func(q string, f ...view.SearchFilters) *view.SearchResult {
		t.Helper()
		req := view.SearchRequest{Query: q, Limit: 50}
		if len(f) > 0 {
			req.Filters = f[0]
		}
		res, err := s.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	held := func(res *view.SearchResult, note string) bool {
		return slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, note) })
	}
	// A search without filters counts the matches in its scope on the way (every message but
	// sub-agents'), and Lance's route says so.
	res := search("quokka")
	if !res.MatchedTotalIsLowerBound || !held(res, "20 messages in scope hold them") {
		t.Errorf("20 matches, index caught up: want Lance, which says how many hold the words; got matched %d (lower bound %v), notes %q",
			res.MatchedTotal, res.MatchedTotalIsLowerBound, res.Notes)
	}
	// A filter the count does not know: how many of the archive's messages hold them, and the
	// matches Lance returned as a lower bound.
	if res := search("quokka", view.SearchFilters{SourceAgent: "codex-cli"}); !res.MatchedTotalIsLowerBound || !held(res, "20 messages of the archive hold them") {
		t.Errorf("20 matches, filtered: want Lance, counted over the archive; got matched %d (lower bound %v), notes %q",
			res.MatchedTotal, res.MatchedTotalIsLowerBound, res.Notes)
	}
	if res := search("zanzibar"); res.MatchedTotal != 5 || res.MatchedTotalIsLowerBound {
		t.Errorf("5 matches: want every one ranked on FTS5, got matched %d (lower bound %v)", res.MatchedTotal, res.MatchedTotalIsLowerBound)
	}
	// One row the index lacks: Lance would scan it for each query, and 20 matches no longer pay for it.
	upsert(t, s, chat("fresh", "codex-cli", "/p", "", t0.Add(24*time.Hour), "nothing of note"))
	s.textIndex.checkedAt.Store(0)
	if res := search("quokka"); res.MatchedTotal != 20 || res.MatchedTotalIsLowerBound || held(res, "hold them") {
		t.Errorf("20 matches, the index a row behind: want every one ranked on FTS5, got matched %d (lower bound %v), notes %q",
			res.MatchedTotal, res.MatchedTotalIsLowerBound, res.Notes)
	}
}

// TestLanceFaster pins the cost model between the engines for words fewer messages hold than
// the routing limit: Lance from an eighth of it, later by 16 matches for each row its index
// lacks, and never while upkeep runs.
func TestLanceFaster(t *testing.T) {
	for _, c := range []struct {
		n, lag         int64
		scoped, upkeep bool
		want           bool
	}{
		{2_500, 0, false, false, false}, {2_501, 0, false, false, true}, {20_000, 0, false, false, true},
		{4_100, 100, false, false, false}, {4_101, 100, false, false, true},
		{20_000, 2_000, false, false, false},
		{20_000, 0, false, true, false},
		{6_000, 0, true, false, false}, {6_001, 0, true, false, true}, {20_000, 0, true, false, true},
		{14_000, 100, true, false, false}, {14_001, 100, true, false, true},
		{20_000, 0, true, true, false},
	} {
		if got := lanceFaster(c.n, c.lag, textRouteLimit, c.scoped, c.upkeep); got != c.want {
			t.Errorf("lanceFaster(%d matches, %d rows behind, scoped %v, upkeep %v) = %v, want %v", c.n, c.lag, c.scoped, c.upkeep, got, c.want)
		}
	}
}

// TestLanceFilterLists checks that the IN lists the Lance arms filter by (the scope's agents
// and projects, answered by the scalar indexes) select exactly the rows the filter patterns
// select, sub-agent sessions excluded alike, on the text index with its filter indexes built.
func TestLanceFilterLists(t *testing.T) {
	d := loadRelevance(t)
	s := relevanceStore(t, d, 20)
	ctx := context.Background()
	upsert(t, s, chat("sub", "claude-code/subagent", "/home/dev/payments-api", "", time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC), "the test of the pool added"))
	s.textIndex.routeLimit = 1
	if _, err := s.MaintainSearchIndexes(ctx, true); err != nil {
		t.Fatal(err)
	}
	have, err := s.indexNames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range filterIndexes {
		if !slices.Contains(have, spec.Name) {
			t.Errorf("filter index %s missing after maintenance: %v", spec.Name, have)
		}
	}
	db, err := s.searchDB()
	if err != nil {
		t.Fatal(err)
	}
	e, _ := sqlite.ParseQuery("added")
	for _, f := range []view.SearchFilters{
		{},
		{Project: "payments"},
		{Project: "PAYMENTS"},
		{Project: "re:^/home/(dev|maria)/"},
		{Project: "lit:/home/dev/geo-service"},
		{Project: "nowhere"},
		{SourceAgent: "claude-code"},
		{SourceAgent: "claude-code/subagent"},
		{SourceAgent: "gemini-cli", Role: "user", FromDate: "2025-01-01"},
	} {
		var keys [2][]string
		for i, lists := range []bool{true, false} {
			p, err := newPlan(view.SearchRequest{Query: "added", Filters: f, Limit: 200})
			if err != nil {
				t.Fatal(err)
			}
			res := &view.SearchResult{}
			if res.SearchableInScope, err = s.searchableInScope(ctx, db, p); err != nil {
				t.Fatal(err)
			}
			if !lists {
				p.scope = nil
			}
			p.pool = 10_000
			cands, err := s.lanceTextArm(ctx, p, e, false, wordCount{}, res)
			if err != nil {
				t.Fatalf("%+v: %v", f, err)
			}
			for _, c := range cands {
				keys[i] = append(keys[i], c.key())
			}
			slices.Sort(keys[i])
		}
		if !slices.Equal(keys[0], keys[1]) {
			t.Errorf("%+v: IN lists found %d rows, patterns %d", f, len(keys[0]), len(keys[1]))
		}
		if f.Project != "nowhere" && len(keys[0]) == 0 {
			t.Errorf("%+v: nothing found; the check proves nothing", f)
		}
	}
}

// TestScopeCacheFollowsWrites checks that the cached scope counts move with every write.
func TestScopeCacheFollowsWrites(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	ctx := context.Background()
	scope := func(f view.SearchFilters) int {
		r, err := s.Search(ctx, view.SearchRequest{Query: "anything", Filters: f})
		if err != nil {
			t.Fatal(err)
		}
		return r.SearchableInScope
	}
	upsert(t, s, chat("a", "codex-cli", "/p", "", time.Now(), "one", "two"))
	if n := scope(view.SearchFilters{}); n != 2 {
		t.Fatalf("scope %d, want 2", n)
	}
	if n := scope(view.SearchFilters{SourceAgent: "codex-cli"}); n != 2 {
		t.Fatalf("codex scope %d, want 2", n)
	}
	upsert(t, s, chat("b", "codex-cli", "/q", "", time.Now(), "three"))
	if n := scope(view.SearchFilters{}); n != 3 {
		t.Errorf("scope after a write %d, want 3", n)
	}
	if n := scope(view.SearchFilters{SourceAgent: "codex-cli"}); n != 3 {
		t.Errorf("codex scope after a write %d, want 3", n)
	}
	if n := scope(view.SearchFilters{Project: "/q"}); n != 1 {
		t.Errorf("project scope %d, want 1", n)
	}
}
