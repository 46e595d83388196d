package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/pondhq/pond/embed"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/lance"
)

// VectorIndexMinRows is the embedded-row count from which Pond builds a vector index; below it
// the vector arm searches exactly, which at this size is both fast and perfectly accurate. It is
// far above what the index's training needs (IVF partitions and 256 product-quantisation
// centroids per sub-vector).
const VectorIndexMinRows = 100_000

// embeddedCount counts messages that have a vector, through embedding_model: it is set exactly
// when vector is, and a filter on it reads a small column instead of the vectors (0.1 s
// against 2.6 s at a million messages).
func (s *Store) embeddedCount(ctx context.Context) (int64, error) {
	n, err := s.tables[TableMessages].Count(ctx, "embedding_model IS NOT NULL")
	if err != nil {
		return 0, fmt.Errorf("store: search: count embedded: %w", err)
	}
	return n, nil
}

// lanceFilters renders the plan's filters in Lance's SQL dialect over the messages table, in
// forms its scalar indexes answer (filterIndexes): project patterns and agent sub-kinds become
// IN lists of the values the scope holds (searchableInScope found them in the mirror's
// counters), which also pushes the exclusion of sub-agent sessions down. A list longer than
// maxFilterValues falls back to the pattern, read from every row. It names only small
// columns: a prefilter reads every row of the columns it names, and reading search_text or
// the vectors themselves made a filtered vector search ten times slower (only rows with
// search text are embedded, and rows without a vector never come back as neighbours, so
// neither test is needed).
func lanceFilters(p *plan) string {
	var where []string
	f := p.req.Filters
	projectFiltered := p.projectRE != nil || p.projectLiteral != "" || p.projectSub != ""
	switch {
	case projectFiltered && p.scope != nil && len(p.scope.projects) <= maxFilterValues:
		where = append(where, "project IN ("+quoteAll(p.scope.projects)+")")
	case p.projectRE != nil:
		where = append(where, "regexp_like(project, "+lance.Quote(p.projectRE.String())+")")
	case p.projectLiteral != "":
		where = append(where, "project = "+lance.Quote(p.projectLiteral))
	case p.projectSub != "":
		// Case-insensitive like the full-text arm's LIKE.
		where = append(where, "lower(project) LIKE "+lance.Quote("%"+escapeLike(strings.ToLower(p.projectSub))+"%")+` ESCAPE '\'`)
	}
	if f.SessionID != "" {
		where = append(where, "session_id = "+lance.Quote(f.SessionID))
	}
	switch {
	case (f.SourceAgent != "" || !p.subagents) && p.scope != nil && len(p.scope.agents) <= maxFilterValues:
		where = append(where, "source_agent IN ("+quoteAll(p.scope.agents)+")")
	case f.SourceAgent != "":
		where = append(where, "(source_agent = "+lance.Quote(f.SourceAgent)+" OR starts_with(source_agent, "+lance.Quote(f.SourceAgent+"/")+"))")
	}
	if p.from != "" {
		where = append(where, fmt.Sprintf("timestamp >= %d", parseISO(p.from).UnixMicro()))
	}
	if p.to != "" {
		where = append(where, fmt.Sprintf("timestamp <= %d", parseISO(p.to).UnixMicro()))
	}
	if f.Role != "" {
		where = append(where, "role = "+lance.Quote(f.Role))
	}
	return strings.Join(where, " AND ")
}

// maxFilterValues bounds the IN lists lanceFilters writes.
const maxFilterValues = 1000

// quoteAll renders values as an IN list; none gives NULL, which no value equals.
func quoteAll(values []string) string {
	if len(values) == 0 {
		return "NULL"
	}
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = lance.Quote(v)
	}
	return strings.Join(q, ", ")
}

// errNothingEmbedded says that the messages in scope have no vectors yet: the vector arm found
// no neighbour although the scope holds searchable messages. Search then answers from full text. Asking
// the arm beats counting embedded rows up front: a count of non-null vectors reads the whole
// vector column (about a second at 1M messages), the arm reads only the probed partitions.
var errNothingEmbedded = errors.New("store: search: no message in scope is embedded")

// vectorArm finds the messages nearest the query's embedding (cosine), pushing the filters
// down into Lance. Scores are cosine similarity.
func (s *Store) vectorArm(ctx context.Context, db querier, p *plan, res *view.SearchResult) ([]candidate, error) {
	if p.queryVec == nil {
		vecs, err := p.embedder.Embed(ctx, []string{p.req.Query}, embed.Query)
		if err != nil {
			return nil, fmt.Errorf("store: search: embed the query: %w", err)
		}
		p.queryVec = vecs[0]
	}
	q := lance.Query{
		Columns: []string{"session_id", "id"}, // the rest from the mirror: describeHits
		Filter:  lanceFilters(p),
		Limit:   p.pool,
		// The refine factor re-ranks on full vectors when the index answers (no effect on the
		// exact search below VectorIndexMinRows).
		Vector: &lance.VectorQuery{Column: "vector", Vector: p.queryVec, Distance: "cosine", RefineFactor: vectorRefine(p.pool)},
	}
	var hits []candidate
	neighbours, rows := 0, 0
	err := s.tables[TableMessages].Scan(ctx, q, func(r arrow.Record) error {
		col := func(name string) arrow.Array { return r.Column(r.Schema().FieldIndices(name)[0]) }
		sid, mid, dist := col("session_id").(*array.String), col("id").(*array.String), col("_distance").(*array.Float32)
		rows += int(r.NumRows())
		for i := 0; i < int(r.NumRows()); i++ {
			if d := dist.Value(i); dist.IsNull(i) || d != d {
				continue // no vector: not a neighbour
			}
			neighbours++
			hits = append(hits, candidate{sessionID: sid.Value(i), messageID: mid.Value(i), score: 1 - float64(dist.Value(i))})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: search: %w", err)
	}
	if hits, err = describeHits(ctx, db, hits); err != nil {
		return nil, err
	}
	var cands []candidate
	for _, c := range hits {
		if p.accepts(c) {
			cands = append(cands, c)
		}
	}
	// Rows without a vector never come back as neighbours (or come back without a distance),
	// so searchable messages in scope and no neighbour mean none of them is embedded.
	if neighbours == 0 && res.SearchableInScope > 0 {
		return nil, errNothingEmbedded
	}
	p.more = p.more || rows >= p.pool
	res.MatchedTotal = len(cands)
	return cands, nil
}

// describeHits gives the vector arm's hits (key and score) the role, project, agent and time
// that search filters and groups by, read from the mirror by key, in one query. Lance takes
// those columns for the neighbours with reads of its own: at a million messages, asking it for
// them besides the key took 200 neighbours from 53 to 78 ms, where the mirror's primary key
// answers them for 200 hits in 0.4 ms with its pages cached (12 ms without). The Lance text
// arm keeps taking them from Lance: its queries measured no faster without them.
//
// A hit the mirror does not hold yet is left out: a write commits to Lance first and to the
// mirror before it returns, so the message is searchable once its write is done (and a crash
// in between is caught up on the next open).
func describeHits(ctx context.Context, db querier, hits []candidate) ([]candidate, error) {
	if len(hits) == 0 {
		return hits, nil
	}
	keys := make([][2]string, len(hits))
	for i, h := range hits {
		keys[i] = [2]string{h.sessionID, h.messageID}
	}
	list, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT j.key, m.role, m.project, m.source_agent, m.timestamp
		FROM json_each(?) j JOIN message_rows m ON m.session_id = j.value ->> 0 AND m.message_id = j.value ->> 1`, string(list))
	if err != nil {
		return nil, fmt.Errorf("store: search: describe hits: %w", err)
	}
	defer rows.Close()
	found := make([]bool, len(hits))
	for rows.Next() {
		var i int
		var role, project, agent, ts string
		if err := rows.Scan(&i, &role, &project, &agent, &ts); err != nil {
			return nil, fmt.Errorf("store: search: describe hits: %w", err)
		}
		h := &hits[i]
		h.role, h.project, h.agent, h.timestamp = role, project, agent, ts
		found[i] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search: describe hits: %w", err)
	}
	kept := hits[:0]
	for i, h := range hits {
		if found[i] {
			kept = append(kept, h)
		}
	}
	return kept, nil
}

// rrfK is reciprocal-rank fusion's constant: a hit's fused score is Σ 1/(rrfK + rank) over the
// arms that found it.
const rrfK = 60

// hybridArms runs both arms and fuses their rankings.
func (s *Store) hybridArms(ctx context.Context, db querier, p *plan, res *view.SearchResult) ([]candidate, error) {
	type armResult struct {
		cands []candidate
		err   error
	}
	vecCh := make(chan armResult, 1)
	vres := &view.SearchResult{SearchableInScope: res.SearchableInScope}
	vp := *p // the arms run at once, each noting on its own plan what it saw
	go func() {
		c, err := s.vectorArm(ctx, db, &vp, vres)
		vecCh <- armResult{c, err}
	}()
	fres := &view.SearchResult{SearchableInScope: res.SearchableInScope}
	text, err := s.ftsArm(ctx, db, p, fres)
	vec := <-vecCh
	p.more, p.queryVec = p.more || vp.more, vp.queryVec
	if err != nil {
		return nil, err
	}
	if vec.err != nil {
		return nil, vec.err
	}
	res.Notes = append(res.Notes, fres.Notes...)
	fused := map[string]*candidate{}
	var order []string
	for _, arm := range [][]candidate{rankByScore(text), rankByScore(vec.cands)} {
		for rank, c := range arm {
			k := c.key()
			f := fused[k]
			if f == nil {
				cc := c
				cc.score = 0
				f = &cc
				fused[k] = f
				order = append(order, k)
			}
			f.score += 1.0 / float64(rrfK+rank+1)
			if c.check == nil {
				f.check = nil // an arm that needs no check found it too
			}
		}
	}
	out := make([]candidate, 0, len(order))
	for _, k := range order {
		out = append(out, *fused[k])
	}
	// Every message is some query's nearest neighbour, so "matched" is what full text matched
	// plus the neighbours it did not.
	res.MatchedTotal = fres.MatchedTotal + (len(out) - len(text))
	res.MatchedTotalIsLowerBound = fres.MatchedTotalIsLowerBound
	return out, nil
}

func rankByScore(c []candidate) []candidate {
	sort.SliceStable(c, func(i, j int) bool { return c[i].score > c[j].score })
	return c
}

// The vector index is IVF_PQ with 96 sub-vectors (4 dimensions each, 96 bytes a vector), read
// with a refine factor: the probed partitions are ranked on the compressed codes and the best
// refine × k re-ranked on the full vectors. Measured by BenchmarkVectorSweep at a million
// messages (docs/benchmarks.md): recall@20 1.00 against exact search at 33 ms (refine 10, k 40),
// where IVF_FLAT (full vectors in clusters, 1.5 GB) took 86-150 ms for 0.99, and PQ with 48
// sub-vectors reached only 0.84 even with refinement. Its price is the build, a one-off of about
// nine minutes at a million vectors that the daemon's upkeep runs in the background.
const (
	vectorIndexName = "messages_vector"
	vectorSubSpaces = 96
)

// vectorRefine is the refine factor for k neighbours: 10, as measured above, until 10 × k
// passes vectorRefineRows, then as many full vectors as that, and at least twice k. Each full
// vector is a read of its own, and the first pool (200) asked for 2,000 of them: at a million
// messages, refine 3 at k = 200 took the query from 71 to 53 ms with the same recall@20, 1.00
// (BenchmarkVectorSweep, docs/benchmarks.md).
func vectorRefine(k int) int {
	const most, least = 10, 2
	return min(most, max(least, (vectorRefineRows+k-1)/k))
}

// vectorRefineRows is about how many full vectors a query re-ranks once k passes 50 (never
// fewer than 2 × k).
const vectorRefineRows = 500

func vectorIndexSpec() lance.IndexSpec {
	return lance.IndexSpec{Column: "vector", Kind: lance.IndexIVFPQ, Name: vectorIndexName, Replace: true,
		Distance: "cosine", NumSubVectors: vectorSubSpaces}
}

func isVectorIndex(i lance.IndexInfo) bool { return len(i.Columns) > 0 && i.Columns[0] == "vector" }

// isCurrentVectorIndex tells the index Pond builds now from an older kind (IVF_FLAT), which
// upkeep replaces.
func isCurrentVectorIndex(i lance.IndexInfo) bool {
	return isVectorIndex(i) && strings.EqualFold(i.Kind, string(lance.IndexIVFPQ))
}

// vectorIndexMinRows is VectorIndexMinRows, or what a test set.
func (s *Store) vectorIndexMinRows() int64 {
	if s.vectorIndexMin > 0 {
		return int64(s.vectorIndexMin)
	}
	return VectorIndexMinRows
}

// EnsureVectorIndex builds the vector index once enough messages are embedded, and reports
// whether one exists afterwards. Below VectorIndexMinRows the exact search is used. It takes
// the store lock when it builds.
func (s *Store) EnsureVectorIndex(ctx context.Context) (bool, error) {
	t := s.tables[TableMessages]
	idx, err := t.Indexes(ctx)
	if err != nil {
		return false, err
	}
	for _, i := range idx {
		if isCurrentVectorIndex(i) {
			return true, nil
		}
	}
	n, err := s.embeddedCount(ctx)
	if err != nil || n < s.vectorIndexMinRows() {
		return false, err
	}
	lock, err := AcquireLock(ctx, s.opts.StateDir, s.opts.Command, nil)
	if err != nil {
		return false, err
	}
	defer lock.Release()
	began := time.Now()
	if err := t.CreateIndex(ctx, vectorIndexSpec()); err != nil {
		return false, err
	}
	s.log.Info("built the vector index", "embedded", n, "took", time.Since(began))
	return true, nil
}
