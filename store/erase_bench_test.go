package store

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/pondhq/pond/internal/procstat"
	"github.com/pondhq/pond/session/sessiongen"
	"github.com/pondhq/pond/session/view"
)

// BenchmarkEraseOneSession erases one session from an archive of sessiongen's corpus
// (POND_BENCH_ERASE_SESSIONS sessions of ~50 messages, default 200), compacted into full
// fragments and with its text and filter indexes built, as upkeep leaves it: the time, CPU,
// rows of other sessions rewritten (those sharing the erased one's fragments) and bytes the
// data directory lost, and the wall time of each step. POND_BENCH_ERASE_VECTORS=1 also gives
// every searchable message a (random) vector and builds the IVF_PQ index first, reporting its
// build time beside the erase's. Run with -benchtime=1x.
func BenchmarkEraseOneSession(b *testing.B) {
	ctx := context.Background()
	cfg := sessiongen.Default()
	cfg.Sessions = 200
	if n, err := strconv.Atoi(os.Getenv("POND_BENCH_ERASE_SESSIONS")); err == nil && n > 0 {
		cfg.Sessions = n
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		t0 := time.Now()
		s := openTestStore(b, b.TempDir())
		_, victim := storeCorpus(b, s, cfg)
		s.textIndex.routeLimit = 1
		if os.Getenv("POND_BENCH_ERASE_VECTORS") == "1" {
			s.vectorIndexMin = 100
			randomVectors(b, s, 1)
		}
		if _, err := s.Upkeep(ctx, UpkeepOptions{Steps: []view.Step{view.StepCompact, view.StepIndex, view.StepPrune}, KeepVersions: -1}); err != nil {
			b.Fatal(err)
		}
		if s.vectorIndexMin > 0 {
			// What an erase cost before it let the compaction remap this index: a build.
			t1 := time.Now()
			if err := s.tables[TableMessages].CreateIndex(ctx, vectorIndexSpec()); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(time.Since(t1).Seconds(), "s-vector-index-build")
		}
		c, _ := s.mirror.Counts(ctx)
		built := time.Since(t0)
		b.StartTimer()
		c0 := procstat.CPU()
		// the wall time of each step (delete, rewrite, index, prune, mirror), from the progress
		// each step reports as it starts
		steps := map[string]time.Duration{}
		step, at := "", time.Now()
		progress := func(p view.EraseProgress) {
			now := time.Now()
			if step != "" {
				steps[step] += now.Sub(at)
			}
			step, at = p.Step, now
		}
		rep, err := s.Erase(ctx, view.EraseRequest{Sessions: []string{victim}}, progress)
		if err != nil {
			b.Fatal(err)
		}
		steps[step] += time.Since(at)
		for name, d := range steps {
			b.ReportMetric(d.Seconds(), "s-"+name)
		}
		b.Logf("archive built in %s", built)
		b.ReportMetric((procstat.CPU() - c0).Seconds(), "cpu-s")
		b.ReportMetric(float64(c.Messages), "messages")
		b.ReportMetric(float64(rep.Removed.Messages), "erased-msgs")
		b.ReportMetric(float64(rep.Rewritten.Messages+rep.Rewritten.Parts+rep.Rewritten.Sessions), "rows-rewritten")
		b.ReportMetric(float64(rep.BytesBefore)/(1<<20), "MiB-before")
		b.ReportMetric(float64(rep.BytesReclaimed)/(1<<20), "MiB-reclaimed")
		s.Close()
	}
}
