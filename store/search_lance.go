package store

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/lance"
	"github.com/pondhq/pond/store/sqlite"
)

// textIndexName is Lance's inverted index on messages.search_text: word-level, English
// stemming, ASCII folding, no positions — the original system's choice.
const textIndexName = "messages_search_text"

func textIndexSpec() lance.IndexSpec {
	return lance.IndexSpec{Column: "search_text", Kind: lance.IndexFTS, Name: textIndexName, Replace: true,
		FTS: &lance.FTSParams{BaseTokenizer: "simple", Language: "English", Stem: new(true), ASCIIFolding: new(true),
			LowerCase: new(true), WithPosition: new(false)}}
}

// textIndexState caches how far the Lance text index lags behind the table: how many rows it
// has not folded in yet, or -1 when there is no index. Lance scans those rows for every query,
// tokenizing each (200 of them added 13 ms to a query, 2,000 added 80 ms, measured at 500,000
// messages), so past maxUnindexed queries go to FTS5, which returns common words' newest
// matches (routeText), until the index folds them in. Checked at most every 30 s, and after
// maintenance.
type textIndexState struct {
	lag       atomic.Int64
	checkedAt atomic.Int64
	// routeLimit is textRouteLimit, lowered by tests to exercise both engines on small data.
	routeLimit int
}

// maxUnindexed is how many rows the text index may lag behind and still serve queries.
const maxUnindexed = 2_000

func (t *textIndexState) limit() int {
	if t.routeLimit > 0 {
		return t.routeLimit
	}
	return textRouteLimit
}

// textIndexLag is how many rows the text index has not folded in yet, and false when there is
// no text index (or its state could not be read).
func (s *Store) textIndexLag(ctx context.Context) (int64, bool) {
	if now := time.Now().Unix(); now-s.textIndex.checkedAt.Load() >= 30 {
		s.textIndex.checkedAt.Store(now)
		lag := int64(-1)
		if idx, err := s.tables[TableMessages].Indexes(ctx); err == nil {
			for _, i := range idx {
				if i.Name == textIndexName {
					lag = 0
					if i.UnindexedRows != nil {
						lag = *i.UnindexedRows
					}
				}
			}
		}
		s.textIndex.lag.Store(lag)
	}
	lag := s.textIndex.lag.Load()
	return lag, lag >= 0
}

// textIndexReady reports whether the text index exists and lags behind by at most maxUnindexed rows.
func (s *Store) textIndexReady(ctx context.Context) bool {
	lag, ok := s.textIndexLag(ctx)
	return ok && lag <= maxUnindexed
}

// lanceTextArm runs a word query on Lance's text index with the filters pushed down, and
// checks every returned row against the filters again, and every hit kept against the words
// (a wrong row must never surface). The words are checked on the mirror's text when the hits'
// snippets are read (fillGroups), not on Lance's: Lance keeps search_text compressed a page at
// a time, and reading it for each of up to 12,800 rows would decompress pages by the dozen.
func (s *Store) lanceTextArm(ctx context.Context, p *plan, e sqlite.MatchExpr, anyTerm bool, count wordCount, res *view.SearchResult) ([]candidate, error) {
	op := "and"
	if anyTerm {
		op = "or"
	}
	q := lance.Query{
		Columns: []string{"session_id", "id", "role", "project", "source_agent", "timestamp"},
		Filter:  lanceFilters(p),
		Limit:   p.pool,
		// The query's words under the rule both engines share (sqlite.Words): Lance tokenizes
		// them again, and finds nothing it would drop.
		FTS: &lance.FTSQuery{Query: strings.Join(e.Words, " "), Column: "search_text", Operator: op},
	}
	var cands []candidate
	rows := 0
	check := &termCheck{words: e.Words, anyTerm: anyTerm}
	err := s.tables[TableMessages].Scan(ctx, q, func(r arrow.Record) error {
		rows += int(r.NumRows())
		col := func(name string) arrow.Array { return r.Column(r.Schema().FieldIndices(name)[0]) }
		sid, mid, role := col("session_id").(*array.String), col("id").(*array.String), col("role").(*array.String)
		project, agent := col("project").(*array.String), col("source_agent").(*array.String)
		ts, score := col("timestamp").(*array.Int64), col("_score").(*array.Float32)
		for i := 0; i < int(r.NumRows()); i++ {
			c := candidate{sessionID: sid.Value(i), messageID: mid.Value(i), role: role.Value(i), project: project.Value(i),
				agent: agent.Value(i), timestamp: isoTime(microTime(ts.Value(i))), score: float64(score.Value(i)), check: check}
			if p.accepts(c) {
				cands = append(cands, c)
			} else {
				s.log.Warn("search: Lance returned a row that does not match; dropped", "session", c.sessionID, "message", c.messageID)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: search: %w", err)
	}
	p.more = p.more || rows >= p.pool
	if p.req.SortBy == view.SortRecency {
		// Lance ranks by BM25; recency orders the same best matches newest first.
		res.Notes = append(res.Notes, "sorted by recency among the best matches")
	}
	// Counting the matches in scope would mean walking the very doclists this route avoids;
	// what is known is said instead: the arm's matches are a lower bound, and how many messages
	// hold the words (routeText counted them, up to past the routing limit), in the scope or
	// over the whole archive. The total stays a lower bound even when that count is the
	// scope's: a total marks the arm as having ranked every match, and collect then asks for a
	// pool of all of them at once, which costs FTS5 nothing more and Lance a take of each.
	res.MatchedTotal, res.MatchedTotalIsLowerBound = len(cands), true
	where := "of the archive"
	if count.inScope {
		where = "in scope"
	}
	held := fmt.Sprintf("%d messages %s hold them", count.n, where)
	if count.n > int64(s.textIndex.limit()) {
		held = fmt.Sprintf("over %d messages %s hold them", s.textIndex.limit(), where)
	}
	res.Notes = append(res.Notes, "the query's words are common: "+held+"; these are the best matches")
	return cands, nil
}

// holdsTerms checks that text holds every word (or, with anyTerm, one) at a word start, by a
// prefix of three or more characters: lenient enough for any stemmer's matches ("running"
// finds "runs"), strict enough to catch a row without the words.
func holdsTerms(text string, words []string, anyTerm bool) bool {
	for _, w := range words {
		found, _ := findPrefix(text, w, 3)
		if anyTerm && found >= 0 {
			return true
		}
		if !anyTerm && found < 0 {
			return false
		}
	}
	return !anyTerm
}

// accepts checks a candidate against the plan's filters.
func (p *plan) accepts(c candidate) bool {
	f := p.req.Filters
	switch {
	case p.projectRE != nil && !p.projectRE.MatchString(c.project),
		p.projectLiteral != "" && c.project != p.projectLiteral,
		p.projectSub != "" && !strings.Contains(strings.ToLower(c.project), strings.ToLower(p.projectSub)),
		f.SessionID != "" && c.sessionID != f.SessionID,
		f.SourceAgent != "" && c.agent != f.SourceAgent && !strings.HasPrefix(c.agent, f.SourceAgent+"/"),
		!p.subagents && strings.Contains(c.agent, "/"),
		p.from != "" && c.timestamp < p.from,
		p.to != "" && c.timestamp > p.to,
		f.Role != "" && c.role != f.Role:
		return false
	}
	return true
}
