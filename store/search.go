package store

import (
	"context"

	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pondhq/pond/embed"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/sqlite"
)

// Limits of a search.
const (
	// SnippetChars bounds a hit's text window.
	SnippetChars = 600
	// matchCountCap bounds how far matched_total is counted; past it the total is a lower bound.
	matchCountCap = 10_000
)

// ErrEmbeddingsOff refuses a vector or hybrid search when semantic search is not turned on.
var ErrEmbeddingsOff = errors.New(view.MsgEmbeddingsOff)

// candidate is a message an arm found, before grouping.
type candidate struct {
	sessionID, messageID, role, project, agent, timestamp string
	score                                                 float64
	// check, when set, is what the message's text must hold: the arm took the candidate from
	// an engine whose answer is checked against the mirror's text once the hit is kept.
	check *termCheck
}

// termCheck is a full-text match to confirm on a hit's text (holdsTerms).
type termCheck struct {
	words   []string
	anyTerm bool
}

func (c candidate) key() string { return c.sessionID + "\x00" + c.messageID }

// plan is a validated request.
type plan struct {
	req            view.SearchRequest
	limit, pool    int
	more           bool // the arms that ran last had more candidates than the pool took
	subagents      bool // sub-agent sessions are searched too
	from, to       string
	projectRE      *regexp.Regexp
	projectLiteral string
	projectSub     string
	scope          *scopeValues   // set by searchableInScope unless a session is named
	embedder       embed.Embedder // for the query's vector, taken once per search
	queryVec       []float32      // the query's embedding, once computed
}

// scopeValues are the agents and projects that hold searchable messages under a plan's filters.
type scopeValues struct{ agents, projects []string }

func newPlan(req view.SearchRequest) (*plan, error) {
	p := &plan{req: req}
	req.Query = strings.TrimSpace(req.Query)
	p.req.Query = req.Query
	if req.Query == "" {
		return nil, validation("query", "the query is empty")
	}
	if len(req.Query) > 4096 {
		return nil, validation("query", "the query is longer than 4096 bytes")
	}
	switch req.Mode {
	case "":
		p.req.Mode = view.ModeFTS
	case view.ModeFTS, view.ModeVector, view.ModeHybrid:
	default:
		return nil, validation("mode", fmt.Sprintf("unknown mode %q (want fts, vector or hybrid)", req.Mode))
	}
	switch req.SortBy {
	case "":
		p.req.SortBy = view.SortRelevance
	case view.SortRelevance, view.SortRecency:
	default:
		return nil, validation("sort_by", fmt.Sprintf("unknown sort %q (want relevance or recency)", req.SortBy))
	}
	p.limit = req.Limit
	if p.limit <= 0 {
		p.limit = view.DefaultSearchLimit
	}
	p.limit = min(p.limit, view.MaxSearchLimit)
	f := req.Filters
	p.subagents = f.SessionID != "" || strings.Contains(f.SourceAgent, "/")
	// The first pool of 200 messages costs what 50 did at 100k messages, and a third more at 1M
	// (hybrid 60-65 against 46 ms; BenchmarkSearchPool), and spans more sessions: the best
	// messages of a common query crowd into a few long sessions.
	p.pool = min(max(p.limit*20, 200), p.maxPool())
	project := string(f.Project)
	switch {
	case strings.HasPrefix(project, "re:"):
		re, err := regexp.Compile(project[3:])
		if err != nil {
			return nil, validation("project", fmt.Sprintf("bad regular expression: %v", err))
		}
		p.projectRE = re
	case strings.HasPrefix(project, "lit:"):
		p.projectLiteral = project[4:]
	default:
		p.projectSub = project
	}
	var err error
	if p.from, err = dayBound(f.FromDate, "from_date", false); err != nil {
		return nil, err
	}
	if p.to, err = dayBound(f.ToDate, "to_date", true); err != nil {
		return nil, err
	}
	if p.from != "" && p.to != "" && p.from > p.to {
		return nil, validation("from_date", "from_date is after to_date")
	}
	switch f.Role {
	case "", "user", "assistant", "system", "tool":
	default:
		return nil, validation("role", fmt.Sprintf("unknown role %q (want user or assistant)", f.Role))
	}
	return p, nil
}

// dayBound turns a YYYY-MM-DD day into the first (or, for an upper bound, last) microsecond of
// that UTC day in the mirror's timestamp format.
func dayBound(day, field string, upper bool) (string, error) {
	if day == "" {
		return "", nil
	}
	t, err := time.Parse("2006-01-02", day)
	if err != nil {
		return "", validation(field, fmt.Sprintf("%q is not a date (want YYYY-MM-DD)", day))
	}
	if upper {
		t = t.Add(24*time.Hour - time.Microsecond)
	}
	return isoTime(t), nil
}

// ValidationError is a request the caller must fix; Field names the offending parameter.
type ValidationError struct {
	Field, Message string
}

func (e *ValidationError) Error() string { return e.Field + ": " + e.Message }

func validation(field, msg string) error { return &ValidationError{Field: field, Message: msg} }

// UseEmbedder turns semantic search on with e (nil turns it off). The embedder is asked for a
// query's vector only when a vector or hybrid search runs. It may be called while searches run
// (the daemon switches models without a restart): each search keeps the embedder it started with.
func (s *Store) UseEmbedder(e embed.Embedder) {
	s.embedMu.Lock()
	defer s.embedMu.Unlock()
	s.embedder = e
}

func (s *Store) currentEmbedder() embed.Embedder {
	s.embedMu.Lock()
	defer s.embedMu.Unlock()
	return s.embedder
}

// Embedder is the embedder semantic search and the backfill use (nil: semantic search off).
func (s *Store) Embedder() embed.Embedder { return s.embedder }

// Search runs a search: the arms the mode asks for, grouping by root session, snippets and
// honest totals.
func (s *Store) Search(ctx context.Context, req view.SearchRequest) (*view.SearchResult, error) {
	began := time.Now()
	p, err := newPlan(req)
	if err != nil {
		return nil, err
	}
	db, err := s.searchDB()
	if err != nil {
		return nil, err
	}
	res := &view.SearchResult{Query: p.req.Query, Mode: p.req.Mode, SortBy: p.req.SortBy, Sessions: []view.SessionHits{}}
	if !p.subagents {
		res.Notes = append(res.Notes, "sub-agent sessions are left out; name a session or an agent sub-kind (e.g. claude-code/subagent) to include them")
	}

	// The scope comes first: it is cheap (counters), and routes the full-text arm.
	if res.SearchableInScope, err = s.scopeOf(ctx, db, p); err != nil {
		return nil, err
	}

	if res.Mode != view.ModeFTS {
		if p.embedder = s.currentEmbedder(); p.embedder == nil {
			return nil, ErrEmbeddingsOff
		}
	}
	if err := s.collect(ctx, db, p, res); err != nil {
		return nil, err
	}
	if len(res.Sessions) == 0 {
		s.explainEmpty(ctx, db, p, res)
	}
	res.ElapsedMS = float64(time.Since(began).Microseconds()) / 1000
	return res, nil
}

// explainEmpty says why a search found nothing.
func (s *Store) explainEmpty(ctx context.Context, db querier, p *plan, res *view.SearchResult) {
	var total int
	_ = db.QueryRowContext(ctx, `SELECT coalesce(sum(n), 0) FROM _pond_search_scope`).Scan(&total)
	switch {
	case total == 0:
		res.Reason = "store_empty"
		res.Hint = "the archive holds no searchable messages yet: run `pond sync` to capture your agents' sessions"
	case res.SearchableInScope == 0:
		res.Reason = "filters_excluded_everything"
		res.Hint = fmt.Sprintf("no message of the %d searchable ones passes the filters; loosen --project, --agent, --since/--until, --role or --session", total)
	default:
		res.Reason = "no_match"
		res.Hint = fmt.Sprintf("nothing matched across %d searchable messages. Search covers what users and assistants wrote, not tool calls or their output: for exact strings in tool bodies try `pond sql` (e.g. SELECT session_id, message_id FROM parts WHERE variant_data LIKE '%%text%%')", res.SearchableInScope)
	}
}

// collect runs the arms the mode asks for and groups their candidates by root session. The
// arms return the best p.pool messages; when those fall into fewer than p.limit sessions and
// the arms had more to give, it asks again with a pool four times larger, up to maxPool, so
// that a limit of N sessions returns N whenever N match (the 50 best messages of a common
// query often sit in a handful of long sessions).
func (s *Store) collect(ctx context.Context, db querier, p *plan, res *view.SearchResult) error {
	mode, notes := res.Mode, res.Notes
	for {
		att := &view.SearchResult{Mode: mode, SearchableInScope: res.SearchableInScope, Notes: slices.Clone(notes)}
		p.more = false
		var cands []candidate
		var err error
		switch mode {
		case view.ModeFTS:
			cands, err = s.ftsArm(ctx, db, p, att)
		case view.ModeVector:
			cands, err = s.vectorArm(ctx, db, p, att)
		case view.ModeHybrid:
			cands, err = s.hybridArms(ctx, db, p, att)
		}
		if errors.Is(err, errNothingEmbedded) {
			mode = view.ModeFTS
			notes = append(notes, "no message in scope has been embedded yet, so this search used full text; run `pond optimize --embed` to embed the archive")
			continue
		}
		if err != nil {
			return err
		}
		order, groups, extra, err := s.assign(ctx, db, p, cands)
		if err != nil {
			return err
		}
		if len(order) < p.limit && p.more && p.pool < p.maxPool() {
			// When the arms counted every match, the next pool takes them all at once: one
			// session of 10,000 matching messages costs two passes, not three (each ranks
			// every match).
			next := p.pool * 4
			if !att.MatchedTotalIsLowerBound && att.MatchedTotal >= next {
				next = att.MatchedTotal + 1 // a pool larger than the matches tells the arm it has them all
			}
			p.pool = min(next, p.maxPool())
			continue
		}
		res.Mode, res.Notes = att.Mode, att.Notes
		res.MatchedTotal, res.MatchedTotalIsLowerBound = att.MatchedTotal, att.MatchedTotalIsLowerBound
		// More sessions are known when a candidate fell outside the kept ones; they may exist
		// when the arms had more messages than the pool took.
		res.HasMore = extra || p.more
		if len(order) == 0 {
			return nil
		}
		if order, err = s.fillGroups(ctx, db, p, order, groups, checksOf(cands, order, groups)); err != nil {
			return err
		}
		for _, id := range order {
			res.Sessions = append(res.Sessions, *groups[id])
		}
		return nil
	}
}

// maxPool bounds the messages collect asks the arms for: 320 per session asked for, at least
// 3,200 and at most 12,800. At 100k messages one arm call over a pool of 3,200 took 73 ms
// (full text), 139 ms (vector), 206 ms (hybrid) at p50, against 13, 49 and 103 ms for the
// first pool of 50; 12,800 took 133, 228 and 222 ms (docs/benchmarks.md, "2026-12-01:
// hardening, store side").
func (p *plan) maxPool() int { return min(max(p.limit*320, 3_200), 12_800) }

// assign orders candidates and groups them by root session, keeping the first p.limit
// sessions; extra says that a candidate of another session was left out.
func (s *Store) assign(ctx context.Context, db querier, p *plan, cands []candidate) (order []string, groups map[string]*view.SessionHits, extra bool, err error) {
	groups = map[string]*view.SessionHits{}
	if len(cands) == 0 {
		return nil, groups, false, nil
	}
	if p.req.SortBy == view.SortRecency {
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].timestamp > cands[j].timestamp })
	} else {
		sort.SliceStable(cands, func(i, j int) bool {
			if cands[i].score != cands[j].score {
				return cands[i].score > cands[j].score
			}
			return cands[i].timestamp > cands[j].timestamp
		})
	}
	// Scores in [0,1], relative to this search's best.
	best := 0.0
	for _, c := range cands {
		best = max(best, c.score)
	}
	meta, err := loadSessionMeta(ctx, db, cands)
	if err != nil {
		return nil, nil, false, err
	}
	for _, c := range cands {
		root, err := s.rootOf(ctx, db, c.sessionID, meta)
		if err != nil {
			return nil, nil, false, err
		}
		g := groups[root.id]
		if g == nil {
			if len(order) == p.limit {
				extra = true
				continue
			}
			g = &view.SessionHits{SessionID: root.id, Project: root.project, SourceAgent: root.agent, CreatedAt: root.createdAt}
			groups[root.id] = g
			order = append(order, root.id)
		}
		score := 0.0
		if best > 0 {
			score = c.score / best
		}
		if len(g.Matches) == 0 {
			g.BestScore = score
		}
		g.MatchedMessageCount++
		if p.req.Filters.SessionID == "" && len(g.Matches) == view.MatchesPerSession {
			continue // candidates come best first: the rest are only counted
		}
		g.Matches = append(g.Matches, view.Hit{SessionID: c.sessionID, MessageID: c.messageID, Role: c.role, Timestamp: c.timestamp, Score: round3(score)})
	}
	return order, groups, extra, nil
}

// checksOf gathers the checks of the candidates kept as hits, by session and message id (the
// arms' pools run to 12,800 candidates; the hits are a few dozen).
func checksOf(cands []candidate, order []string, groups map[string]*view.SessionHits) map[[2]string]*termCheck {
	var checks map[[2]string]*termCheck // nil until a candidate carries a check (FTS5's never do)
	for _, c := range cands {
		if c.check == nil {
			continue
		}
		if checks == nil {
			checks = map[[2]string]*termCheck{}
			for _, id := range order {
				for _, h := range groups[id].Matches {
					checks[[2]string{h.SessionID, h.MessageID}] = nil
				}
			}
		}
		if _, hit := checks[[2]string{c.sessionID, c.messageID}]; hit {
			checks[[2]string{c.sessionID, c.messageID}] = c.check
		}
	}
	return checks
}

// fillGroups adds each kept session's message count and each hit's snippet, reading both in
// one query each. A hit whose text fails its check (checks, by key) is dropped, and a session
// left without hits with it; the sessions kept are returned in order.
func (s *Store) fillGroups(ctx context.Context, db querier, p *plan, order []string, groups map[string]*view.SessionHits, checks map[[2]string]*termCheck) ([]string, error) {
	args := make([]any, len(order))
	for i, id := range order {
		args[i] = id
	}
	rows, err := db.QueryContext(ctx, `SELECT session_id, count(*) FROM messages WHERE session_id IN (`+placeholders(len(order))+`) GROUP BY session_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: search: %w", err)
	}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			rows.Close()
			return nil, err
		}
		groups[id].SessionMessagesCount = n
	}
	rows.Close()
	var keys []any
	var values []string
	for _, id := range order {
		for _, h := range groups[id].Matches {
			keys, values = append(keys, h.SessionID, h.MessageID), append(values, "(?,?)")
		}
	}
	texts := map[string]string{}
	rows, err = db.QueryContext(ctx, `SELECT session_id, message_id, coalesce(search_text, '') FROM messages
		WHERE (session_id, message_id) IN (VALUES `+strings.Join(values, ",")+`)`, keys...)
	if err != nil {
		return nil, fmt.Errorf("store: search: read hits: %w", err)
	}
	for rows.Next() {
		var sid, mid, text string
		if err := rows.Scan(&sid, &mid, &text); err != nil {
			rows.Close()
			return nil, err
		}
		texts[sid+"\x00"+mid] = text
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	terms := highlightTerms(p.req.Query)
	// Stop words are not searched for (sqlite.ParseQuery), so they are not marked either,
	// unless the query holds nothing else.
	if content := slices.DeleteFunc(slices.Clone(terms), func(t string) bool { return isStopTerm(t) }); len(content) > 0 {
		terms = content
	}
	kept := order[:0:0]
	for _, id := range order {
		g := groups[id]
		g.BestScore = round3(g.BestScore)
		g.Matches = slices.DeleteFunc(g.Matches, func(h view.Hit) bool {
			c := checks[[2]string{h.SessionID, h.MessageID}]
			if c == nil || holdsTerms(texts[h.SessionID+"\x00"+h.MessageID], c.words, c.anyTerm) {
				return false
			}
			s.log.Warn("search: the text index returned a message that does not match; dropped", "session", h.SessionID, "message", h.MessageID)
			g.MatchedMessageCount--
			return true
		})
		if len(g.Matches) == 0 {
			continue
		}
		kept = append(kept, id)
		sort.SliceStable(g.Matches, func(i, j int) bool { return g.Matches[i].Timestamp > g.Matches[j].Timestamp })
		for i := range g.Matches {
			h := &g.Matches[i]
			h.Text, h.Highlights = Snippet(texts[h.SessionID+"\x00"+h.MessageID], terms, SnippetChars)
		}
	}
	return kept, nil
}

// isStopTerm reports whether every word of a highlight term is a stop word.
func isStopTerm(t string) bool {
	return !slices.ContainsFunc(sqlite.Words(t), func(w string) bool { return !sqlite.IsStopWord(w) })
}

func placeholders(n int) string { return strings.Repeat(",?", n)[1:] }

// loadSessionMeta reads the sessions of all candidates in one query.
func loadSessionMeta(ctx context.Context, db querier, cands []candidate) (map[string]*sessionMeta, error) {
	meta := map[string]*sessionMeta{}
	var args []any
	seen := map[string]bool{}
	for _, c := range cands {
		if !seen[c.sessionID] {
			seen[c.sessionID] = true
			args = append(args, c.sessionID)
		}
	}
	rows, err := db.QueryContext(ctx, `SELECT session_id, coalesce(parent_session_id, ''), project, source_agent, created_at
		FROM sessions WHERE session_id IN (`+placeholders(len(args))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: search: sessions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		m := &sessionMeta{}
		if err := rows.Scan(&m.id, &m.parent, &m.project, &m.agent, &m.createdAt); err != nil {
			return nil, err
		}
		meta[m.id] = m
	}
	return meta, rows.Err()
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// sessionMeta is what grouping needs of a session.
type sessionMeta struct {
	id, parent, project, agent, createdAt string
}

// rootOf follows parent links up to the root session (bounded, so a cycle in bad data ends).
func (s *Store) rootOf(ctx context.Context, db querier, id string, cache map[string]*sessionMeta) (*sessionMeta, error) {
	cur := id
	var m *sessionMeta
	for depth := 0; depth < 8; depth++ {
		got, ok := cache[cur]
		if !ok {
			got = &sessionMeta{id: cur}
			var parent *string
			err := db.QueryRowContext(ctx, `SELECT parent_session_id, project, source_agent, created_at FROM sessions WHERE session_id = ?`, cur).
				Scan(&parent, &got.project, &got.agent, &got.createdAt)
			if err != nil && !isNoRows(err) {
				return nil, fmt.Errorf("store: search: session %s: %w", cur, err)
			}
			if parent != nil {
				got.parent = *parent
			}
			if isNoRows(err) {
				// Messages are written before their session row; until it lands the session
				// stands alone.
				if m == nil {
					return got, nil
				}
				return m, nil
			}
			cache[cur] = got
		}
		m = got
		if got.parent == "" || got.parent == cur {
			break
		}
		cur = got.parent
	}
	return m, nil
}
