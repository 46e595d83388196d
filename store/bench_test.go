package store

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/pondhq/pond/internal/procstat"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/sessiongen"
)

// BenchmarkIngest stores sessiongen's default corpus (2,000 sessions, ~100k messages, ~300k
// parts; see its package doc for the size distribution) in batches as sync flushes them: at 100
// sessions or 4 MiB of content, whichever comes first (POND_BENCH_BATCH_MB sets the bytes).
// Then it ingests it again (everything matched). The corpus is generated batch by batch so the
// process's memory is the store's, not the corpus's. Run with -benchtime=1x.
func BenchmarkIngest(b *testing.B) {
	benchIngest(b, sessiongen.Default())
}

// BenchmarkIngestSmall is a tenth of the corpus, for profiling.
func BenchmarkIngestSmall(b *testing.B) {
	cfg := sessiongen.Default()
	cfg.Sessions = 200
	benchIngest(b, cfg)
}

func benchIngest(b *testing.B, cfg sessiongen.Config) {
	ctx := context.Background()
	batchBytes := int64(4 << 20)
	if mb, err := strconv.ParseFloat(os.Getenv("POND_BENCH_BATCH_MB"), 64); err == nil && mb > 0 {
		batchBytes = int64(mb * (1 << 20))
	}
	for i := 0; i < b.N; i++ {
		s := openTestStore(b, b.TempDir())
		phases := map[string]time.Duration{}
		// pass ingests the corpus; cpu gains the CPU seconds spent in Upsert, every thread.
		pass := func(cpu *time.Duration) (msgs int, d time.Duration) {
			g := sessiongen.New(cfg)
			for {
				var batch []session.Event
				var size int64
				for n := 0; n < 100 && size < batchBytes; n++ {
					ev := g.Next()
					if ev == nil {
						break
					}
					batch = append(batch, ev...)
					for _, e := range ev {
						size += e.Size()
					}
				}
				if len(batch) == 0 {
					return msgs, d
				}
				for _, e := range batch {
					if e.Message != nil {
						msgs++
					}
				}
				t0, c0 := time.Now(), procstat.CPU()
				out, err := s.Upsert(ctx, batch, Stamp{Adapter: "bench"})
				if err != nil {
					b.Fatal(err)
				}
				*cpu += procstat.CPU() - c0
				for k, v := range out.Phases {
					phases[k] += v
				}
				d += time.Since(t0)
			}
		}
		var cpuFirst, cpuAgain time.Duration
		msgs, first := pass(&cpuFirst)
		b.ReportMetric(cpuFirst.Seconds(), "cpu-s-first")
		for _, k := range []string{"lookup", "encode", "lance", "mirror"} {
			b.ReportMetric(phases[k].Seconds(), k+"-s")
		}
		_, again := pass(&cpuAgain)
		b.ReportMetric(cpuAgain.Seconds(), "cpu-s-reingest")
		b.ReportMetric(float64(msgs)/first.Seconds(), "msgs/s-first")
		b.ReportMetric(float64(msgs)/again.Seconds(), "msgs/s-reingest")
		b.ReportMetric(float64(msgs), "messages")
		b.ReportMetric(procstat.PeakRSSMiB(), "peak-RSS-MiB")
		s.Close()
	}
}

// storeCorpus stores sessiongen's corpus cfg in s, 100 sessions a batch, and returns the
// messages stored and the first batch's middle session.
func storeCorpus(b *testing.B, s *Store, cfg sessiongen.Config) (messages int, middle string) {
	g := sessiongen.New(cfg)
	for {
		var batch []session.Event
		for n := 0; n < 100; n++ {
			ev := g.Next()
			if ev == nil {
				break
			}
			batch = append(batch, ev...)
		}
		if len(batch) == 0 {
			return messages, middle
		}
		if middle == "" {
			middle = batch[len(batch)/2].Key().SessionID
		}
		for _, e := range batch {
			if e.Message != nil {
				messages++
			}
		}
		if _, err := s.Upsert(context.Background(), batch, Stamp{Adapter: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
}
