package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/lance"
	"github.com/pondhq/pond/store/sqlite"
)

// querier is what the planner needs of a database: *sql.DB and *sql.Tx both are one.
type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// searchDB is the read-only connection pool the planner and session pages read the mirror
// through, opened on first use. Reads never wait for the writer (WAL).
func (s *Store) searchDB() (*sql.DB, error) {
	s.searchMu.Lock()
	defer s.searchMu.Unlock()
	if s.search == nil {
		s.search = sqlite.OpenSearchDB(s.MirrorPath(), s.MirrorArchive())
	}
	return s.search, nil
}

// closeSearchDB closes the search pool (and the scope cache's connection); the next search
// opens the mirror file afresh, as it must after RebuildMirror replaced it.
func (s *Store) closeSearchDB() error {
	s.searchMu.Lock()
	defer s.searchMu.Unlock()
	if s.search == nil {
		return nil
	}
	err := errors.Join(s.scopes.close(), s.search.Close())
	s.search = nil
	return err
}

// messageFilters renders the plan's filters as SQL over the table aliased t: message_rows, the
// rank table (only with the filters it holds, see rankFilters), or, with byDay, the scope
// counters, which share messages' column names but keep a day for the time.
func messageFilters(p *plan, t string, byDay bool) (string, []any) {
	var where []string
	var args []any
	f := p.req.Filters
	switch {
	case p.projectRE != nil:
		where, args = append(where, `regexp(?, `+t+`.project)`), append(args, p.projectRE.String())
	case p.projectLiteral != "":
		where, args = append(where, t+`.project = ?`), append(args, p.projectLiteral)
	case p.projectSub != "":
		where, args = append(where, t+`.project LIKE ? ESCAPE '\'`), append(args, "%"+escapeLike(p.projectSub)+"%")
	}
	if f.SessionID != "" {
		where, args = append(where, t+`.session_id = ?`), append(args, f.SessionID)
	}
	if f.SourceAgent != "" {
		where = append(where, `(`+t+`.source_agent = ? OR `+t+`.source_agent LIKE ? ESCAPE '\')`)
		args = append(args, f.SourceAgent, escapeLike(f.SourceAgent)+"/%")
	}
	if !p.subagents {
		where = append(where, `NOT `+sqlite.SubagentSQL(t+".source_agent"))
	}
	timeCol, from, to := t+".timestamp", p.from, p.to
	if byDay {
		timeCol, from, to = t+".day", firstN(from, 10), firstN(to, 10)
	}
	if from != "" {
		where, args = append(where, timeCol+` >= ?`), append(args, from)
	}
	if to != "" {
		where, args = append(where, timeCol+` <= ?`), append(args, to)
	}
	if f.Role != "" {
		where, args = append(where, t+`.role = ?`), append(args, f.Role)
	}
	if len(where) == 0 {
		return "", nil
	}
	return " AND " + strings.Join(where, " AND "), args
}

// rankFilters renders the plan's filters over the rank table (aliased r), which holds a
// message's time, agent and role, or reports false when the request filters by anything else
// (a filter added to SearchFilters later takes the join to message_rows until the rank table
// learns it).
func rankFilters(p *plan) (string, []any, bool) {
	rest := p.req.Filters
	rest.FromDate, rest.ToDate, rest.SourceAgent, rest.Role = "", "", "", ""
	if rest != (view.SearchFilters{}) {
		return "", nil, false
	}
	where, args := messageFilters(p, "r", false)
	return where, args, true
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Full-text routing. SQLite FTS5 answers in microseconds when a query matches few messages,
// but ranks every match (about 0.6 µs each at 500,000 and at 1M messages, 3.5 µs when a
// filter takes each match to the rank table), so a query costs time in proportion to its
// matches; Lance's inverted index finds the best k without scoring every match, in 5-20 ms
// whatever their number, plus a scan of the rows it has not folded in yet (docs/benchmarks.md
// has both measured). So (routeText):
//   - words matching more than textRouteLimit messages go to Lance when its text index exists
//     and has caught up (maxUnindexed); until then FTS5 returns their newest matches;
//   - words matching more than a few thousand messages go to Lance when it is the faster of the
//     two (lanceFaster), and are ranked on FTS5 otherwise;
//   - everything else, every CJK query, and every search of a scope of textRouteLimit messages
//     or fewer is ranked on FTS5. Small scopes stay off Lance: its brute-force path for short
//     allow-lists returned wrong rows (docs/benchmarks.md, "Findings").
const textRouteLimit = 20_000

// lanceFaster reports whether Lance's text index, lagging lag rows behind, ranks the best
// matches of words that n messages hold sooner than FTS5 ranks all n; scoped says that FTS5
// keeps to the search's scope by the MATCH alone (wordMatch), else each match is looked up in
// the rank table. Measured at 500,000 and 1M messages (docs/benchmarks.md):
//   - scoped, Lance is faster from 3/10 of limit (6,000 in an archive). Single words at 1M:
//     FTS5 7.8-7.9 ms at 6,400 matches against Lance's 11-12, 8.3-9.0 at 7,500-8,200 against
//     9.7-10.6, 11-14 at 11,800-17,500 against 7.8-10.5 (at 500,000 alike). Two words, one of
//     them held by 230,000-253,000 messages (FTS5 weighs each word by walking all of its
//     matches): FTS5 22-23 ms at 7,700-7,900 matches, Lance 16-17 ms. FTS5 ranks a match in
//     ~0.6 µs, so each row Lance has to scan (40-65 µs) puts it 80 matches later;
//   - through the rank table, from limit/8 (2,500): FTS5 10-12 ms at 2,000-3,000 matches and
//     Lance 13-14 ms at 500,000 messages, 21 against 15-16 ms at 3,000 at 1M; ~3.5 µs a
//     match, 16 matches later a row.
//
// Not while upkeep runs in this process: Lance's queries wait behind its work
// (lance.UpkeepRunning), and FTS5's do not.
func lanceFaster(n, lag int64, limit int, scoped, upkeep bool) bool {
	switch {
	case upkeep:
		return false
	case scoped:
		return n > int64(limit*3/10)+80*lag
	default:
		return n > int64(limit/8)+16*lag
	}
}

// ftsArm finds messages whose search text holds every query term, or, when none does, any of
// them (said in a note), best BM25 first (or newest first), and counts the matches.
func (s *Store) ftsArm(ctx context.Context, db querier, p *plan, res *view.SearchResult) ([]candidate, error) {
	e, ok := sqlite.ParseQuery(p.req.Query)
	if !ok {
		return nil, validation("query", "the query has no words to search for")
	}
	for _, anyTerm := range []bool{false, true} {
		// Hybrid search takes only messages with every word from this arm: loose any-word
		// matches would outvote the vector arm's neighbours in the fusion (measured on the
		// relevance set: paraphrases found at 5 fell from 0.82 to 0.39).
		if anyTerm && (len(e.Terms) < 2 || p.req.Mode == view.ModeHybrid) {
			break
		}
		var cands []candidate
		route, count, err := s.routeText(ctx, db, p, e, anyTerm, res.SearchableInScope)
		switch {
		case err != nil:
		case route == rankOnLance:
			cands, err = s.lanceTextArm(ctx, p, e, anyTerm, count, res)
		default:
			cands, err = s.ftsMatch(ctx, db, p, e, anyTerm, route, count, res)
		}
		if err != nil {
			return nil, err
		}
		if len(cands) > 0 {
			if anyTerm {
				res.Notes = append(res.Notes, "no message holds every word of the query; these hold some of them")
			}
			return cands, nil
		}
	}
	return nil, nil
}

// textRoute is where a word query runs (see textRouteLimit).
type textRoute int

const (
	rankEveryMatch  textRoute = iota // FTS5 ranks and counts every match: few match, or the scope is small
	rankManyMatches                  // FTS5 ranks every match of a query Lance cannot serve, however many
	rankOnLance                      // Lance's text index finds the best matches of words many messages hold
	newestMatches                    // FTS5 returns the newest matches of common words, unranked
)

// wordCount is how many messages hold a query's words, as routeText counted them: up to the
// routing limit + 1, in the search's scope when the MATCH keeps to it (wordMatch), else over the
// whole archive. The zero value is "not counted".
type wordCount struct {
	n       int64
	inScope bool // the count is of the search's scope
}

// wordMatch is the MATCH expression for e's words (all of them, or with anyTerm any), and
// whether it keeps to the search's scope by itself. With no filter a search's scope is every
// message but sub-agents', and the word index keeps sub-agents' messages in a column of their
// own (sqlite.WithoutSubagents), so FTS5 ranks and counts the scope's matches without a lookup
// of each in the rank table. Any other filter is applied over the rank table or message_rows.
func wordMatch(p *plan, e sqlite.MatchExpr, anyTerm bool) (match string, scoped bool) {
	match = e.All
	if anyTerm {
		match = e.Any
	}
	if e.Table != "messages_fts" || match == "" || p.req.Filters != (view.SearchFilters{}) {
		return match, false
	}
	return sqlite.WithoutSubagents(match), true
}

// routeText decides where a word query runs. Common words go to Lance's text index when it
// exists and is caught up. Until then (after a first sync or import, or while upkeep has a large
// capture to fold in), FTS5 returns their newest matches instead of ranking all of them: ranking
// a word that most messages hold costs FTS5 seconds at a million messages, so the archive is
// searchable at its speed as soon as its messages are stored, and ranked once upkeep has run.
// Words fewer messages hold go to Lance only when it is the faster engine (lanceFaster). A
// query Lance's analyzer would not see whole (only stop words, or a word it drops for its
// length) is ranked on FTS5 whatever it costs. With the route comes how many messages hold the
// words (wordCount).
func (s *Store) routeText(ctx context.Context, db querier, p *plan, e sqlite.MatchExpr, anyTerm bool, scope int) (textRoute, wordCount, error) {
	limit := s.textIndex.limit()
	if scope <= limit {
		return rankEveryMatch, wordCount{}, nil
	}
	if e.Table != "messages_fts" || e.OnlyStopWords {
		return rankManyMatches, wordCount{}, nil
	}
	for _, w := range e.Words {
		if len(w) >= sqlite.LanceMaxWordBytes {
			return rankManyMatches, wordCount{}, nil
		}
	}
	match, scoped := wordMatch(p, e, anyTerm)
	c := wordCount{inScope: scoped}
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM messages_fts WHERE messages_fts MATCH ? LIMIT ?)`,
		match, limit+1).Scan(&c.n)
	if err != nil {
		return 0, wordCount{}, fmt.Errorf("store: search: %w", err)
	}
	switch {
	case c.n > int64(limit):
		if s.textIndexReady(ctx) {
			return rankOnLance, c, nil
		}
		return newestMatches, c, nil
	case c.n > int64(limit/8):
		if lag, ok := s.textIndexLag(ctx); ok && lanceFaster(c.n, lag, limit, c.inScope, lance.UpkeepRunning()) {
			return rankOnLance, c, nil
		}
	}
	return rankEveryMatch, c, nil
}

// ftsMatch finds the messages holding every term of e, or with anyTerm one of them, on the
// route routeText chose for it. CJK queries search the trigram index; since it cannot match
// terms under three characters, those are LIKE conditions, and a CJK any-term search counts the
// terms each CJK message holds. On newestMatches the matches are not ranked: FTS5 walks its
// doclists from the last rowid down (rows are stored in capture order) and stops at the pool,
// and every match scores alike (see routeText).
func (s *Store) ftsMatch(ctx context.Context, db querier, p *plan, e sqlite.MatchExpr, anyTerm bool, route textRoute, count wordCount, res *view.SearchResult) ([]candidate, error) {
	newest := route == newestMatches
	match, scoped := wordMatch(p, e, anyTerm)
	// Ranking reads every match, and on rankEveryMatch there are few: they are counted in the
	// same pass, unless routeText counted them in scope already. Elsewhere a second query
	// counts them, up to matchCountCap (keepPool).
	known := route == rankEveryMatch && count.inScope
	countInPass := route == rankEveryMatch && !known
	filters, fargs := messageFilters(p, "m", false)
	from := e.Table + ` JOIN message_rows m ON m.rowid = ` + e.Table + `.rowid`
	var where, rank string
	var rankArgs, args []any // for the placeholders in rank, then in where
	switch {
	case anyTerm && e.Table == "messages_cjk":
		var likes []string
		for _, t := range e.Terms {
			likes = append(likes, `(`+sqlite.SearchTextSQL("m")+` LIKE ? ESCAPE '\')`)
			args = append(args, "%"+escapeLike(t)+"%")
		}
		rank = strings.Join(likes, " + ")
		where = `(` + strings.Join(likes, " OR ") + `)`
		rankArgs = args
	case match != "":
		where, rank = e.Table+` MATCH ?`, `-bm25(`+e.Table+`)`
		args = append(args, match)
	default:
		where, rank = `1`, `1.0`
	}
	if !anyTerm {
		for _, t := range e.Short {
			where += ` AND ` + sqlite.SearchTextSQL("m") + ` LIKE ? ESCAPE '\'`
			args = append(args, "%"+escapeLike(t)+"%")
		}
	}
	where += filters
	args = append(args, fargs...)
	if sid := p.req.Filters.SessionID; sid != "" && e.Table != "" {
		// A session's messages sit in a narrow band of rowids (stored together): bounding the
		// index scan to it spares walking every match of a common word in the archive.
		var lo, hi sql.NullInt64
		if err := db.QueryRowContext(ctx, `SELECT min(rowid), max(rowid) FROM message_rows WHERE session_id = ?`, sid).Scan(&lo, &hi); err != nil {
			return nil, fmt.Errorf("store: search: %w", err)
		}
		where += ` AND ` + e.Table + `.rowid BETWEEN ? AND ?`
		args = append(args, lo.Int64, hi.Int64)
	}
	order, outer := `score DESC, timestamp DESC`, `t.score DESC, m.timestamp DESC`
	if p.req.SortBy == view.SortRecency {
		order, outer = `timestamp DESC`, `m.timestamp DESC`
	}
	if newest {
		rank, rankArgs = `1.0`, nil
		if p.req.SortBy != view.SortRecency {
			res.Notes = append(res.Notes, fmt.Sprintf("the query's words are common: over %d messages hold them; these are the newest, ranked once upkeep has indexed the archive's text", s.textIndex.limit()))
		}
	}
	const kept = `m.session_id, m.message_id, m.role, m.project, m.source_agent, m.timestamp`
	q := keepPool(kept+`, `+rank+` AS score`, from, where, order, e.Table, newest, countInPass)
	if thin, thinArgs, ok := rankFilters(p); scoped && (p.req.SortBy == view.SortRelevance || newest) {
		// The MATCH keeps to the scope (wordMatch): FTS5 ranks its matches alone, ties going to
		// the later stored, and message_rows is read for the ones kept.
		from, where, args = e.Table, e.Table+` MATCH ?`, []any{match}
		q = `SELECT ` + kept + `, t.score, t.total
			FROM (` + keepPool(`rowid AS rid, `+rank+` AS score`, from, where, `score DESC, rid DESC`, e.Table, newest, countInPass) + `) t
			JOIN message_rows m ON m.rowid = t.rid ORDER BY ` + outer
	} else if ok && len(rankArgs) == 0 && match != "" && (anyTerm || len(e.Short) == 0) {
		// Every match is filtered and ordered on the rank table (rank.go); message_rows is read
		// for the ones kept.
		from = e.Table + ` JOIN _pond_search_rank r ON r.rid = ` + e.Table + `.rowid`
		where = e.Table + ` MATCH ?` + thin
		args = append([]any{match}, thinArgs...)
		q = `SELECT ` + kept + `, t.score, t.total
			FROM (` + keepPool(`r.rid, r.timestamp, `+rank+` AS score`, from, where, order, e.Table, newest, countInPass) + `) t
			JOIN message_rows m ON m.rowid = t.rid ORDER BY ` + outer
	}
	rows, err := db.QueryContext(ctx, q, slices.Concat(rankArgs, args, []any{p.pool})...)
	if err != nil {
		return nil, fmt.Errorf("store: search: %w", err)
	}
	var cands []candidate
	total := 0
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.sessionID, &c.messageID, &c.role, &c.project, &c.agent, &c.timestamp, &c.score, &total); err != nil {
			rows.Close()
			return nil, err
		}
		cands = append(cands, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search: %w", err)
	}
	switch {
	case countInPass:
	case known:
		total = int(count.n)
	case len(cands) < p.pool && !newest: // every match is here
		total = len(cands)
	default:
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM `+from+` WHERE `+where+` LIMIT ?)`,
			append(args, matchCountCap+1)...).Scan(&total); err != nil {
			return nil, fmt.Errorf("store: search: count: %w", err)
		}
	}
	p.more = total > len(cands)
	res.MatchedTotal, res.MatchedTotalIsLowerBound = min(total, matchCountCap), total > matchCountCap
	return cands, nil
}

// keepPool is the query that keeps a pool of the matches sel (a select list ending in score)
// draws from `from` where `where`, its last placeholder the pool's size: the best by order,
// or with newest the last rows FTS5 holds (capture order: the order it walks without sorting,
// so that LIMIT stops the walk). With countInPass each row also carries the number of matches,
// a window over the ranking's own pass (bm25 cannot sit under a window itself, hence the inner
// select); else that column is -1.
func keepPool(sel, from, where, order, fts string, newest, countInPass bool) string {
	if newest {
		return `SELECT ` + sel + `, -1 AS total FROM ` + from + ` WHERE ` + where + ` ORDER BY ` + fts + `.rowid DESC LIMIT ?`
	}
	total := `-1`
	if countInPass {
		total = `count(*) OVER ()`
	}
	return `SELECT *, ` + total + ` AS total FROM (SELECT ` + sel + ` FROM ` + from + ` WHERE ` + where + `) ORDER BY ` + order + ` LIMIT ?`
}

// searchableInScope counts the messages with searchable text under the plan's filters. A
// session filter counts that session's rows; anything else sums the per-day scope counters the
// mirror keeps, which are exact because date filters are whole UTC days. On the way it notes
// which agents and projects the scope holds, so that the Lance arms can filter by value lists
// their scalar indexes answer (see lanceFilters) instead of a pattern read from every row.
func (s *Store) searchableInScope(ctx context.Context, db querier, p *plan) (int, error) {
	f := p.req.Filters
	var n int
	if f.SessionID != "" {
		filters, args := messageFilters(p, "m", false)
		// message_rows, not the messages view: a packed text is as non-empty as its text.
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM message_rows m WHERE m.search_text IS NOT NULL AND m.search_text != ''`+filters, args...).Scan(&n)
		if err != nil {
			return 0, fmt.Errorf("store: search: scope: %w", err)
		}
		return n, nil
	}
	filters, args := messageFilters(p, "m", true)
	rows, err := db.QueryContext(ctx, `SELECT source_agent, project, sum(n) FROM _pond_search_scope m WHERE n > 0`+filters+` GROUP BY 1, 2`, args...)
	if err != nil {
		return 0, fmt.Errorf("store: search: scope: %w", err)
	}
	defer rows.Close()
	agents, projects := map[string]bool{}, map[string]bool{}
	for rows.Next() {
		var agent, project string
		var c int
		if err := rows.Scan(&agent, &project, &c); err != nil {
			return 0, fmt.Errorf("store: search: scope: %w", err)
		}
		agents[agent], projects[project] = true, true
		n += c
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("store: search: scope: %w", err)
	}
	p.scope = &scopeValues{agents: slices.Sorted(maps.Keys(agents)), projects: slices.Sorted(maps.Keys(projects))}
	return n, nil
}

func firstN(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
