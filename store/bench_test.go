package store

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/sessiongen"
)

// cpuSeconds is the CPU time (user and system, every thread) the process has used, from
// /proc (Linux), or 0.
func cpuSeconds() float64 {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses and may hold spaces.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // clock ticks; USER_HZ is 100 on Linux
}

// peakRSS is the process's peak resident set size in MiB (Linux), or 0.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			kb, _ := strconv.ParseFloat(strings.Fields(line)[1], 64)
			return kb / 1024
		}
	}
	return 0
}

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
		pass := func(cpu *float64) (msgs int, d time.Duration) {
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
				t0, c0 := time.Now(), cpuSeconds()
				out, err := s.Upsert(ctx, batch, Stamp{Adapter: "bench"})
				if err != nil {
					b.Fatal(err)
				}
				*cpu += cpuSeconds() - c0
				for k, v := range out.Phases {
					phases[k] += v
				}
				d += time.Since(t0)
			}
		}
		var cpuFirst, cpuAgain float64
		msgs, first := pass(&cpuFirst)
		b.ReportMetric(cpuFirst, "cpu-s-first")
		for _, k := range []string{"lookup", "encode", "lance", "mirror"} {
			b.ReportMetric(phases[k].Seconds(), k+"-s")
		}
		_, again := pass(&cpuAgain)
		b.ReportMetric(float64(msgs)/first.Seconds(), "msgs/s-first")
		b.ReportMetric(float64(msgs)/again.Seconds(), "msgs/s-reingest")
		b.ReportMetric(float64(msgs), "messages")
		b.ReportMetric(peakRSS(), "peak-RSS-MiB")
		s.Close()
	}
}
