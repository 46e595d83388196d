package store

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/pondhq/pond/embed"
	"github.com/pondhq/pond/internal/procstat"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/lance"
	"github.com/pondhq/pond/store/sqlite"
)

// The search benchmarks run on archives of 100k messages (always) and 1M messages (with
// POND_BENCH_1M=1), built once and kept in POND_BENCH_DIR (default ~/.cache/pond/bench), since
// building 1M messages takes minutes. Messages are written straight into the tables (not through
// Upsert, which BenchmarkIngest measures) with Zipf-distributed words over a 20,000-word
// vocabulary, a unique token in every 10,000th message (the "rare exact token"), and synthetic
// clustered unit vectors.

const benchArchiveVersion = "v1"

// benchWords is the vocabulary: word i spelled from syllables, as sessiongen does.
func benchWords() []string {
	syll := []string{"ka", "ro", "mi", "te", "lu", "sa", "po", "ne", "di", "fa", "gu", "ze", "bo", "chi", "va", "qu"}
	var words []string
	for i := 0; i < 20_000; i++ {
		var b strings.Builder
		for x := i + 1; x > 0; x /= len(syll) {
			b.WriteString(syll[x%len(syll)])
		}
		words = append(words, b.String())
	}
	return words
}

// benchArchive returns a store holding n messages in sessions of 50, building it when the cache
// has none.
func benchArchive(b *testing.B, n int) (*Store, string) {
	b.Helper()
	root := os.Getenv("POND_BENCH_DIR")
	if root == "" {
		home, _ := os.UserHomeDir()
		root = filepath.Join(home, ".cache", "pond", "bench")
	}
	dir := filepath.Join(root, fmt.Sprintf("search-%d-%s", n, benchArchiveVersion))
	done := filepath.Join(dir, "complete")
	if _, err := os.Stat(done); err != nil {
		os.RemoveAll(dir)
		began := time.Now()
		buildBenchArchive(b, dir, n)
		if err := os.WriteFile(done, []byte(time.Since(began).String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	built, _ := os.ReadFile(done)
	s, err := Open(context.Background(), Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state"), Command: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s, string(built)
}

func buildBenchArchive(b *testing.B, dir string, n int) {
	ctx := context.Background()
	s, err := Open(ctx, Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state"), Command: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	words := benchWords()
	rng := rand.New(rand.NewPCG(7, 7))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(words)-1))
	agents := []string{"claude-code", "codex-cli", "gemini-cli", "opencode", "pi-coding-agent"}
	centroids := make([][]float32, 64)
	for i := range centroids {
		centroids[i] = randomUnit(rng, nil, 0)
	}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	const perSession, batchRows = 50, 20_000
	seq := int64(0)
	mem := memory.NewGoAllocator()
	var lanceTime, mirrorTime time.Duration
	for lo := 0; lo < n; lo += batchRows {
		mb := array.NewRecordBuilder(mem, messagesSchema)
		sb := array.NewRecordBuilder(mem, sessionsSchema)
		rows := &sqlite.Rows{}
		for i := lo; i < min(lo+batchRows, n); i++ {
			si := i / perSession
			sid := fmt.Sprintf("bench-%07d", si)
			agent := agents[si%len(agents)]
			project := fmt.Sprintf("/home/dev/src/project-%02d", si%40)
			t0 := start.Add(time.Duration(si) * 30 * time.Minute)
			if i%perSession == 0 {
				seq++
				sb.Field(0).(*array.StringBuilder).Append(sid)
				sb.Field(1).AppendNull()
				sb.Field(2).AppendNull()
				sb.Field(3).(*array.StringBuilder).Append(agent)
				sb.Field(4).(*array.StringBuilder).Append(project)
				sb.Field(5).(*array.Int64Builder).Append(t0.UnixMicro())
				sb.Field(6).AppendNull()
				sb.Field(7).(*array.Int64Builder).Append(seq)
				rows.Sessions = append(rows.Sessions, sqlite.SessionRow{SessionID: sid, SourceAgent: agent, CreatedAt: isoTime(t0), Project: project, IngestSeq: seq})
			}
			mid := fmt.Sprintf("m%03d", i%perSession)
			ts := t0.Add(time.Duration(i%perSession) * 20 * time.Second)
			role := []string{"user", "assistant"}[i%2]
			size := int(math.Min(math.Exp(math.Log(300)+1.2*rng.NormFloat64()), 4096))
			var tb strings.Builder
			for tb.Len() < size {
				if tb.Len() > 0 {
					tb.WriteByte(' ')
				}
				tb.WriteString(words[zipf.Uint64()])
			}
			if i%10_000 == 5_000 {
				fmt.Fprintf(&tb, " uniq%06d", i/10_000)
			}
			text := tb.String()
			seq++
			mb.Field(0).(*array.StringBuilder).Append(sid)
			mb.Field(1).(*array.StringBuilder).Append(mid)
			mb.Field(2).(*array.Int64Builder).Append(ts.UnixMicro())
			mb.Field(3).(*array.StringBuilder).Append(role)
			mb.Field(4).(*array.StringBuilder).Append(agent)
			mb.Field(5).(*array.StringBuilder).Append(project)
			mb.Field(6).AppendNull()
			mb.Field(7).(*array.StringBuilder).Append(text)
			vb := mb.Field(8).(*array.FixedSizeListBuilder)
			vb.Append(true)
			vals := vb.ValueBuilder().(*array.Float32Builder)
			vals.AppendValues(randomUnit(rng, centroids[si%len(centroids)], 0.35), nil)
			mb.Field(9).(*array.StringBuilder).Append("synthetic")
			mb.Field(10).AppendNull()
			mb.Field(11).(*array.Int64Builder).Append(seq)
			rows.Messages = append(rows.Messages, sqlite.MessageRow{SessionID: sid, MessageID: mid, Timestamp: isoTime(ts), Role: role,
				SourceAgent: agent, Project: project, SearchText: text, EmbeddingModel: "synthetic", IngestSeq: seq})
		}
		t := time.Now()
		mrec, srec := mb.NewRecord(), sb.NewRecord()
		if err := s.Table(TableMessages).Append(ctx, mrec); err != nil {
			b.Fatal(err)
		}
		if srec.NumRows() > 0 {
			if err := s.Table(TableSessions).Append(ctx, srec); err != nil {
				b.Fatal(err)
			}
		}
		mrec.Release()
		srec.Release()
		mb.Release()
		sb.Release()
		lanceTime += time.Since(t)
		t = time.Now()
		if err := s.Mirror().Apply(ctx, rows); err != nil {
			b.Fatal(err)
		}
		mirrorTime += time.Since(t)
	}
	b.Logf("built %d messages: Lance %v, mirror with its full-text indexes %v", n, lanceTime.Round(time.Millisecond), mirrorTime.Round(time.Millisecond))
}

// randomUnit is a unit vector near centre (spread 0: uniformly random).
func randomUnit(rng *rand.Rand, centre []float32, spread float64) []float32 {
	v := make([]float32, VectorDim)
	var norm float64
	for i := range v {
		x := rng.NormFloat64()
		if centre != nil {
			x = float64(centre[i]) + spread*x/math.Sqrt(VectorDim)
		}
		v[i] = float32(x)
		norm += x * x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(norm))
	}
	return v
}

// benchQueries is the fixed query set.
func benchQueries(words []string) map[string][]view.SearchRequest {
	return map[string][]view.SearchRequest{
		"rare": {
			{Query: "uniq000007"}, {Query: "uniq000042"}, {Query: words[19_000]}, {Query: words[17_500]}, {Query: words[15_123]},
		},
		"common-multiword": {
			{Query: words[0] + " " + words[1]}, {Query: words[2] + " " + words[5] + " " + words[9]},
			{Query: words[3] + " " + words[20]}, {Query: words[1] + " " + words[50] + " " + words[100]},
		},
		// Words 3,000-18,000 of the million messages hold (the band where FTS5's cost of
		// ranking every match overtakes Lance's cost of a query: lanceFaster).
		"middling": {
			{Query: words[500]}, {Query: words[700]}, {Query: words[1033]}, {Query: words[1400]}, {Query: words[2500]},
		},
		"rare-filtered": {
			{Query: words[18_000], Filters: view.SearchFilters{SourceAgent: "codex-cli", FromDate: "2025-01-15"}},
			{Query: "uniq000003", Filters: view.SearchFilters{Project: "project-1"}},
		},
		"common-filtered": {
			{Query: words[0] + " " + words[1], Filters: view.SearchFilters{SourceAgent: "codex-cli", FromDate: "2025-01-15"}},
			{Query: words[2] + " " + words[5], Filters: view.SearchFilters{Project: "re:project-0[1-3]$", Role: "user"}},
		},
	}
}

// latencies runs each request rounds times and returns p50 and p95.
func latencies(b *testing.B, rounds int, reqs []view.SearchRequest, run func(view.SearchRequest) error) (p50, p95 time.Duration) {
	var ds []time.Duration
	for r := 0; r < rounds; r++ {
		for _, q := range reqs {
			t := time.Now()
			if err := run(q); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(t))
		}
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[len(ds)*95/100]
}

// syntheticEmbedder stands in for a model in latency benchmarks: a random unit vector per
// query (the model's own latency is measured by the embed benchmarks and added in the report).
type syntheticEmbedder struct{ rng *rand.Rand }

func (e *syntheticEmbedder) Embed(_ context.Context, texts []string, _ embed.Kind) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range texts {
		out[i] = randomUnit(e.rng, nil, 0)
	}
	return out, nil
}
func (e *syntheticEmbedder) Dimensions() int { return VectorDim }
func (e *syntheticEmbedder) Model() string   { return "synthetic" }

// BenchmarkSearch measures whole search calls (grouping, totals and snippets included) per
// query class and mode, and the first page of a 10,000-message session. The archive's text
// index and vector index are brought up to date first, as the daemon's upkeep keeps them. Run:
// make bench PKGS=./store/ BENCH=Search (POND_BENCH_1M=1 adds 1M messages).
func BenchmarkSearch(b *testing.B) {
	sizes := []int{100_000}
	if os.Getenv("POND_BENCH_1M") == "1" {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			s, built := benchArchive(b, n)
			b.Logf("archive built in %s", built)
			ctx := context.Background()
			big := ensureBigSession(b, s)
			t := time.Now()
			msg, err := s.MaintainSearchIndexes(ctx, true)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("%s (%v)", msg, time.Since(t).Round(time.Millisecond))
			t = time.Now()
			indexed, err := s.EnsureVectorIndex(ctx)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("vector index: %v (%v)", indexed, time.Since(t).Round(time.Millisecond))
			s.UseEmbedder(&syntheticEmbedder{rng: rand.New(rand.NewPCG(3, 3))})
			words := benchWords()
			for b.Loop() {
				for _, class := range []string{"rare", "rare-filtered", "middling", "common-multiword", "common-filtered"} {
					for _, mode := range []string{view.ModeFTS, view.ModeVector, view.ModeHybrid} {
						if mode != view.ModeFTS && strings.HasPrefix(class, "rare") || mode == view.ModeVector && class == "middling" {
							continue // the vector arm does not care how rare a word is
						}
						reqs := slices.Clone(benchQueries(words)[class])
						for i := range reqs {
							reqs[i].Mode = mode
						}
						var found []int
						p50, p95 := latencies(b, 10, reqs, func(q view.SearchRequest) error {
							res, err := s.Search(ctx, q)
							if err == nil {
								found = append(found, len(res.Sessions))
							}
							return err
						})
						b.ReportMetric(float64(p50.Microseconds())/1000, "ms-p50-"+mode+"-"+class)
						b.ReportMetric(float64(p95.Microseconds())/1000, "ms-p95-"+mode+"-"+class)
						slices.Sort(found)
						b.ReportMetric(float64(found[len(found)/2]), "sessions-p50-"+mode+"-"+class)
					}
				}
				// The same common words before the text index is built (a first sync's archive
				// until its upkeep): the newest matches, unranked (routeText).
				s.textIndex.lag.Store(-1)
				s.textIndex.checkedAt.Store(math.MaxInt64) // not checked again
				for _, class := range []string{"common-multiword", "common-filtered"} {
					for _, mode := range []string{view.ModeFTS, view.ModeHybrid} {
						reqs := slices.Clone(benchQueries(words)[class])
						for i := range reqs {
							reqs[i].Mode = mode
						}
						p50, p95 := latencies(b, 10, reqs, func(q view.SearchRequest) error {
							_, err := s.Search(ctx, q)
							return err
						})
						b.ReportMetric(float64(p50.Microseconds())/1000, "ms-p50-"+mode+"-"+class+"-unindexed")
						b.ReportMetric(float64(p95.Microseconds())/1000, "ms-p95-"+mode+"-"+class+"-unindexed")
					}
				}
				s.textIndex.checkedAt.Store(0)
				p50, p95 := latencies(b, 20, []view.SearchRequest{{}}, func(view.SearchRequest) error {
					_, err := s.GetSession(ctx, view.GetSessionRequest{ID: big})
					return err
				})
				b.ReportMetric(float64(p50.Microseconds())/1000, "ms-p50-first-page-10k")
				b.ReportMetric(float64(p95.Microseconds())/1000, "ms-p95-first-page-10k")
			}
			b.ReportMetric(procstat.PeakRSSMiB(), "MiB-peak-rss")
		})
	}
}

// ensureBigSession adds (once) a session of 10,000 messages to the archive and returns its id.
func ensureBigSession(b *testing.B, s *Store) string {
	const id = "bench-big-10k"
	ctx := context.Background()
	db, err := s.searchDB()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := sessionInfo(ctx, db, id); err == nil {
		return id
	}
	var texts []string
	for i := 0; i < 10_000; i++ {
		texts = append(texts, fmt.Sprintf("step %d of the long session: ran the tests again and read the failing output", i))
	}
	if _, err := s.Upsert(ctx, chat(id, "claude-code", "/home/dev/big", "", time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), texts...), Stamp{Adapter: "bench"}); err != nil {
		b.Fatal(err)
	}
	return id
}

// BenchmarkFullTextEngines compares the two full-text engines at hand on the same archive:
// SQLite FTS5 in the mirror (what Search uses) and Lance's inverted index through our native
// module. It reports query latency per class, index build time and size, and how a query fares
// on rows appended after the index was built.
func BenchmarkFullTextEngines(b *testing.B) {
	n := 100_000
	if os.Getenv("POND_BENCH_1M") == "1" {
		n = 1_000_000
	}
	s, built := benchArchive(b, n)
	b.Logf("archive of %d messages built in %s (mirror inserts maintain FTS5 as they go)", n, built)
	ctx := context.Background()
	words := benchWords()
	db, err := s.searchDB()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		// FTS5: the bare MATCH, best 75 by BM25, like the planner's pool.
		for _, class := range []string{"rare", "common-multiword"} {
			p50, p95 := latencies(b, 10, benchQueries(words)[class], func(q view.SearchRequest) error {
				e, _ := sqlite.ParseQuery(q.Query)
				rows, err := db.QueryContext(ctx, `SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY bm25(messages_fts) LIMIT 75`, e.All)
				if err != nil {
					return err
				}
				for rows.Next() {
				}
				rows.Close()
				return rows.Err()
			})
			b.ReportMetric(float64(p50.Microseconds())/1000, "ms-p50-fts5-"+class)
			b.ReportMetric(float64(p95.Microseconds())/1000, "ms-p95-fts5-"+class)
		}
		// Lance: build the inverted index (once per archive), then the same queries.
		t := s.Table(TableMessages)
		began := time.Now()
		if err := t.CreateIndex(ctx, textIndexSpec()); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(began).Seconds(), "s-lance-fts-build")
		for _, class := range []string{"rare", "common-multiword"} {
			p50, p95 := latencies(b, 10, benchQueries(words)[class], func(q view.SearchRequest) error {
				return t.Scan(ctx, lance.Query{Columns: []string{"session_id", "id"}, Limit: 75,
					FTS: &lance.FTSQuery{Query: q.Query, Column: "search_text", Operator: "and"}}, func(arrow.Record) error { return nil })
			})
			b.ReportMetric(float64(p50.Microseconds())/1000, "ms-p50-lance-"+class)
			b.ReportMetric(float64(p95.Microseconds())/1000, "ms-p95-lance-"+class)
		}
	}
	var ftsBytes, mirrorBytes int64
	// The index's own blocks (segments and their b-tree), without page overhead.
	if err := db.QueryRowContext(ctx, `SELECT (SELECT sum(length(block)) FROM messages_fts_data) +
		(SELECT coalesce(sum(length(block)), 0) FROM messages_cjk_data)`).Scan(&ftsBytes); err != nil {
		b.Fatal(err)
	}
	if fi, err := os.Stat(s.MirrorPath()); err == nil {
		mirrorBytes = fi.Size()
	}
	b.ReportMetric(float64(ftsBytes)/(1<<20), "MiB-fts5-index")
	b.ReportMetric(float64(mirrorBytes)/(1<<20), "MiB-mirror")
	b.ReportMetric(float64(dirSize(filepath.Join(s.opts.DataDir, "lance", "messages.lance", "_indices")))/(1<<20), "MiB-lance-indices")
}

func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// BenchmarkSearchPool measures what Search pays for each size of the message pool it asks the
// arms for (collect grows it fourfold while the best messages fall into fewer sessions than
// the limit): one arm call and the grouping, at pools of 50 to 12,800, per mode, on the common
// multi-word queries. maxPool is chosen from it. Run:
// make bench PKGS=./store/ BENCH=SearchPool (POND_BENCH_1M=1 adds 1M messages)
func BenchmarkSearchPool(b *testing.B) {
	sizes := []int{100_000}
	if os.Getenv("POND_BENCH_1M") == "1" {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) { benchSearchPool(b, n) })
	}
}

func benchSearchPool(b *testing.B, n int) {
	s, _ := benchArchive(b, n)
	ctx := context.Background()
	if _, err := s.MaintainSearchIndexes(ctx, true); err != nil {
		b.Fatal(err)
	}
	if _, err := s.EnsureVectorIndex(ctx); err != nil {
		b.Fatal(err)
	}
	s.UseEmbedder(&syntheticEmbedder{rng: rand.New(rand.NewPCG(3, 3))})
	db, err := s.searchDB()
	if err != nil {
		b.Fatal(err)
	}
	words := benchWords()
	for b.Loop() {
		for _, mode := range []string{view.ModeFTS, view.ModeVector, view.ModeHybrid} {
			for _, pool := range []int{50, 200, 800, 3200, 12800} {
				var found []int
				p50, p95 := latencies(b, 5, benchQueries(words)["common-multiword"], func(q view.SearchRequest) error {
					q.Mode = mode
					p, err := newPlan(q)
					if err != nil {
						return err
					}
					p.pool, p.limit, p.embedder = pool, view.MaxSearchLimit, s.currentEmbedder() // count the sessions the pool spans, up to 200
					res := &view.SearchResult{}
					if res.SearchableInScope, err = s.scopeOf(ctx, db, p); err != nil {
						return err
					}
					var cands []candidate
					switch mode {
					case view.ModeFTS:
						cands, err = s.ftsArm(ctx, db, p, res)
					case view.ModeVector:
						cands, err = s.vectorArm(ctx, db, p, res)
					default:
						cands, err = s.hybridArms(ctx, db, p, res)
					}
					if err != nil {
						return err
					}
					order, _, _, err := s.assign(ctx, db, p, cands)
					found = append(found, len(order))
					return err
				})
				name := fmt.Sprintf("%s-pool%d", mode, pool)
				b.ReportMetric(float64(p50.Microseconds())/1000, "ms-p50-"+name)
				b.ReportMetric(float64(p95.Microseconds())/1000, "ms-p95-"+name)
				slices.Sort(found)
				b.ReportMetric(float64(found[len(found)/2]), "sessions-p50-"+name)
			}
		}
	}
}
