package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/pondhq/pond/store/lance"
)

// BenchmarkVectorSweep measures the vector index's knobs on the benchmark archive (100k, or 1M
// with POND_BENCH_1M=1): latency of the bare Lance query and recall@20 against the exact
// search, per nprobes (0: Lance's default) and refine factor, unfiltered and with filters
// written as patterns ("agent", "projrole": what lanceFilters wrote before) and as the value
// lists it writes now ("agentin", "projin"), with the filter indexes in place.
// POND_SWEEP_FILTERS=agent,projin picks filters; POND_SWEEP_K=200 asks for that many neighbours
// instead of 40, and POND_SWEEP_COLUMNS=session_id,id for those columns only. Run:
// POND_BENCH_1M=1 make bench PKGS=./store/ BENCH=VectorSweep
func BenchmarkVectorSweep(b *testing.B) {
	n := 100_000
	if os.Getenv("POND_BENCH_1M") == "1" {
		n = 1_000_000
	}
	s, _ := benchArchive(b, n)
	ctx := context.Background()
	if _, err := s.EnsureVectorIndex(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := s.MaintainSearchIndexes(ctx, true); err != nil { // builds the filter indexes
		b.Fatal(err)
	}
	t := s.tables[TableMessages]
	// POND_SWEEP_INDEX=kind,partitions,subvectors rebuilds the vector index first (use a copy of
	// the archive: POND_BENCH_DIR).
	k := 40
	if v, err := strconv.Atoi(os.Getenv("POND_SWEEP_K")); err == nil && v > 0 {
		k = v
	}
	refines := []int{0, 10}
	if r := vectorRefine(k); r != 10 {
		refines = append(refines, r) // what Pond asks for at this k
	}
	if spec := os.Getenv("POND_SWEEP_INDEX"); spec != "" {
		var kind string
		var parts, subs int
		f := strings.Split(spec, ",")
		kind = f[0]
		parts, _ = strconv.Atoi(f[1])
		if len(f) > 2 {
			subs, _ = strconv.Atoi(f[2])
		}
		began := time.Now()
		err := t.CreateIndex(ctx, lance.IndexSpec{Column: "vector", Kind: lance.IndexKind(kind), Name: "messages_vector", Replace: true,
			Distance: "cosine", NumPartitions: parts, NumSubVectors: subs})
		if err != nil {
			b.Fatal(err)
		}
		fmt.Printf("built %s in %v\n", spec, time.Since(began).Round(time.Millisecond))
		if kind != string(lance.IndexIVFPQ) {
			refines = []int{0} // only product quantisation has codes to refine
		}
	}
	// Queries near the archive's clusters, as a real query is near the messages it is about:
	// the same centroids buildBenchArchive drew first from its generator.
	crng := rand.New(rand.NewPCG(7, 7))
	var centroids [][]float32
	for range 64 {
		centroids = append(centroids, randomUnit(crng, nil, 0))
	}
	rng := rand.New(rand.NewPCG(9, 9))
	var queries [][]float32
	for i := 0; i < 8; i++ {
		queries = append(queries, randomUnit(rng, centroids[i*7%64], 0.5))
	}
	run := func(q lance.Query) ([]string, time.Duration) {
		began := time.Now()
		var ids []string
		err := t.Scan(ctx, q, func(r arrow.Record) error {
			sid := r.Column(r.Schema().FieldIndices("session_id")[0]).(*array.String)
			mid := r.Column(r.Schema().FieldIndices("id")[0]).(*array.String)
			for i := 0; i < int(r.NumRows()); i++ {
				ids = append(ids, sid.Value(i)+"/"+mid.Value(i))
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		return ids, time.Since(began)
	}
	filters := map[string]string{
		"agentin":  "source_agent IN ('codex-cli') AND timestamp >= 1736899200000000",
		"projin":   "project IN ('/home/dev/src/project-01', '/home/dev/src/project-02', '/home/dev/src/project-03') AND role = 'user'",
		"none":     "",
		"agent":    "(source_agent = 'codex-cli' OR starts_with(source_agent, 'codex-cli/')) AND timestamp >= 1736899200000000",
		"projrole": "regexp_like(project, 'project-0[1-3]$') AND role = 'user'",
	}
	cols := []string{"session_id", "id", "role", "project", "source_agent", "timestamp"}
	if c := os.Getenv("POND_SWEEP_COLUMNS"); c != "" {
		cols = strings.Split(c, ",")
	}
	for b.Loop() {
		names := []string{"none", "agent", "projrole", "agentin", "projin"}
		if f := os.Getenv("POND_SWEEP_FILTERS"); f != "" {
			names = strings.Split(f, ",")
		}
		for _, fname := range names {
			var exact [][]string
			var exactT []time.Duration
			for _, v := range queries {
				ids, d := run(lance.Query{Columns: cols, Filter: filters[fname], Limit: k,
					Vector: &lance.VectorQuery{Column: "vector", Vector: v, Distance: "cosine", Exact: true}})
				exact = append(exact, ids[:min(20, len(ids))])
				exactT = append(exactT, d)
			}
			slices.Sort(exactT)
			fmt.Printf("%-8s exact      p50 %7.1f ms\n", fname, ms(exactT[len(exactT)/2]))
			for _, np := range []int{0, 10, 20, 40} {
				for _, refine := range refines {
					for _, post := range []bool{false, true} {
						if post && fname == "none" {
							continue
						}
						var ds []time.Duration
						var hit, want int
						for round := 0; round < 3; round++ {
							for qi, v := range queries {
								ids, d := run(lance.Query{Columns: cols, Filter: filters[fname], Limit: k,
									Vector: &lance.VectorQuery{Column: "vector", Vector: v, Distance: "cosine", NProbes: np, RefineFactor: refine, PostFilter: post}})
								ds = append(ds, d)
								if round == 0 {
									got := map[string]bool{}
									for _, id := range ids[:min(20, len(ids))] {
										got[id] = true
									}
									for _, id := range exact[qi] {
										want++
										if got[id] {
											hit++
										}
									}
								}
							}
						}
						slices.Sort(ds)
						fmt.Printf("%-8s nprobes %2d refine %2d post %-5v p50 %7.1f ms p95 %7.1f ms recall@20 %.2f\n", fname, np, refine, post,
							ms(ds[len(ds)/2]), ms(ds[len(ds)*95/100]), float64(hit)/float64(max(want, 1)))
					}
				}
			}
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
