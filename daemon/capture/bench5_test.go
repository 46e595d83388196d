package capture

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/daemon/capture/benchgen"
	"github.com/pondhq/pond/internal/procstat"
	"github.com/pondhq/pond/store"
	"github.com/pondhq/pond/store/sqlite"
)

// BenchmarkSyncFiveFormats syncs benchgen's default corpus (2,000 sessions, ~500k messages in
// the five agents' native formats) into an empty store in-process, then syncs again with
// nothing changed. The corpus is written before the clock starts. Run with -benchtime=1x; set
// POND_BENCH_SESSIONS to a smaller number for a quick profile, POND_BENCH_FLUSH_MB to try
// another flush size, POND_BENCH_REDACT=1 to capture with redaction on.
func BenchmarkSyncFiveFormats(b *testing.B) {
	cfg := benchgen.Default()
	if n := benchEnv("POND_BENCH_SESSIONS"); n > 0 {
		cfg.Sessions = n
	}
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		m, err := benchgen.Write(filepath.Join(dir, "home"), cfg)
		if err != nil {
			b.Fatal(err)
		}
		s, err := store.Open(context.Background(), store.Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state")})
		if err != nil {
			b.Fatal(err)
		}
		if benchEnv("POND_BENCH_REDACT") == 1 {
			if err := s.SetRedaction(true); err != nil {
				b.Fatal(err)
			}
		}
		env := adapters.Env{GOOS: "linux", Home: m.Home, Getenv: func(string) string { return "" }, OpenSQLite: sqlite.OpenAgentDB}
		eng := &Engine{Store: s, Env: env, Cursors: &Cursors{Dir: filepath.Join(dir, "state")}}
		var targets []Target
		for _, a := range all.Adapters() {
			targets = append(targets, Target{Adapter: a, Roots: []string{m.Roots[a.Name()]}})
		}
		b.ResetTimer()
		t0, c0 := time.Now(), procstat.CPU()
		opts := Options{FlushBytes: int64(benchEnv("POND_BENCH_FLUSH_MB")) << 20}
		rep, err := eng.Sync(context.Background(), targets, opts)
		if err != nil {
			b.Fatal(err)
		}
		cold, coldCPU := time.Since(t0), procstat.CPU()-c0
		t0 = time.Now()
		warm, err := eng.Sync(context.Background(), targets, opts)
		if err != nil {
			b.Fatal(err)
		}
		warmD := time.Since(t0)
		b.StopTimer()
		want := m.Total()
		if rep.Inserted.Messages != want.Messages || rep.Inserted.Sessions != want.Sessions || warm.Inserted.Messages != 0 {
			b.Fatalf("cold sync inserted %+v, want %+v; warm inserted %+v", rep.Inserted, want, warm.Inserted)
		}
		b.ReportMetric(cold.Seconds(), "cold-s")
		b.ReportMetric(coldCPU.Seconds(), "cold-cpu-s")
		b.ReportMetric(float64(rep.Inserted.Messages)/cold.Seconds(), "msgs/s-cold")
		b.ReportMetric(float64(warmD.Microseconds())/1000, "warm-ms")
		b.ReportMetric(float64(want.Messages), "messages")
		b.ReportMetric(float64(want.Bytes)/(1<<20), "corpus-MiB")
		b.ReportMetric(procstat.PeakRSSMiB(), "peak-RSS-MiB")
		s.Close()
	}
}

// benchEnv is an integer knob from the environment, or 0.
func benchEnv(name string) int {
	n, _ := strconv.Atoi(os.Getenv(name))
	return n
}
