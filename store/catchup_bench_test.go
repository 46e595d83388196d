package store

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/pondhq/pond/internal/procstat"
	"github.com/pondhq/pond/internal/s3test"
	"github.com/pondhq/pond/session/sessiongen"
)

// BenchmarkCatchUpFromAnotherMachine: one machine stores sessiongen's corpus in an archive on
// moto's S3 server (POND_BENCH_CATCHUP_SESSIONS sessions, default 2,000: ~100k messages),
// then a second machine, with an empty mirror, opens the archive and catches up (what its
// daemon does at start-up and every --catch-up-every): the time and CPU until its mirror holds
// every row. docs/benchmarks.md, "One archive for many machines".
func BenchmarkCatchUpFromAnotherMachine(b *testing.B) {
	ctx := context.Background()
	srv := s3test.Shared(b)
	cfg := sessiongen.Default()
	if n, err := strconv.Atoi(os.Getenv("POND_BENCH_CATCHUP_SESSIONS")); err == nil && n > 0 {
		cfg.Sessions = n
	}
	for i := 0; i < b.N; i++ {
		url := srv.Bucket(b, "pond-catchup-"+strconv.Itoa(i), "archive")
		open := func() *Store {
			dir := b.TempDir()
			s, err := Open(ctx, Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state"), Storage: url, Command: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}
		msgs, _ := storeCorpus(b, open(), cfg)
		reader := open()
		b.ResetTimer()
		t1, c1 := time.Now(), procstat.CPU()
		got, err := reader.CatchUp(ctx)
		if err != nil {
			b.Fatal(err)
		}
		d, cpu := time.Since(t1), procstat.CPU()-c1
		b.StopTimer()
		if got.Messages != msgs {
			b.Fatalf("caught up %d messages of %d", got.Messages, msgs)
		}
		b.ReportMetric(float64(msgs), "messages")
		b.ReportMetric(d.Seconds(), "catch-up-s")
		b.ReportMetric(cpu.Seconds(), "catch-up-cpu-s")
		b.ReportMetric(float64(msgs)/d.Seconds(), "msgs/s")
		// Nothing new: what each tick of the loop costs.
		t2 := time.Now()
		if _, err := reader.CatchUp(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(t2).Microseconds())/1000, "idle-tick-ms")
	}
}
