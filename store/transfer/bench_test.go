package transfer

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/pondhq/pond/internal/procstat"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/sessiongen"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
)

// BenchmarkCopy copies an archive of sessiongen's default corpus (2,000 sessions, ~100k
// messages, ~300k parts; POND_BENCH_COPY_SESSIONS sets the sessions) from one local folder into
// a new one, as `pond copy --from DIR --to DIR2` does: the source opened read-only with its
// mirror built in a scratch folder, the union written, the destination's upkeep, the key-by-key
// verification. Then it copies again with nothing new (the incremental case). Building the
// source is not timed. Run with -benchtime=1x.
func BenchmarkCopy(b *testing.B) {
	ctx := context.Background()
	cfg := sessiongen.Default()
	if n, err := strconv.Atoi(os.Getenv("POND_BENCH_COPY_SESSIONS")); err == nil && n > 0 {
		cfg.Sessions = n
	}
	dir := b.TempDir()
	srcData := filepath.Join(dir, "src", "data")
	s, err := store.Open(ctx, store.Options{DataDir: srcData, StateDir: filepath.Join(dir, "src", "state"), Command: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	g := sessiongen.New(cfg)
	msgs := 0
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
			break
		}
		for _, e := range batch {
			if e.Message != nil {
				msgs++
			}
		}
		if _, err := s.Upsert(ctx, batch, store.Stamp{Adapter: "claude-code"}); err != nil {
			b.Fatal(err)
		}
	}
	s.Close()

	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dst := filepath.Join(b.TempDir(), "copy")
		var open, copied time.Duration
		var phases map[string]time.Duration
		pass := func() *view.CopyReport {
			e := Env{Scratch: b.TempDir(), PondVersion: "bench"}
			t0 := time.Now()
			src, err := OpenSource(ctx, endpoint(b, srcData), e)
			if err != nil {
				b.Fatal(err)
			}
			defer src.Close()
			d, err := OpenDestination(ctx, endpoint(b, dst), e, false)
			if err != nil {
				b.Fatal(err)
			}
			open = time.Since(t0)
			phases = map[string]time.Duration{}
			phase, since := "open", t0
			track := func(p view.CopyProgress) {
				if p.Phase != phase {
					phases[phase] += time.Since(since)
					phase, since = p.Phase, time.Now()
				}
			}
			rep, err := Copy(ctx, src.Store, d.Store, Options{PondVersion: "bench", Progress: track})
			phases[phase] += time.Since(since)
			if err != nil {
				b.Fatal(err)
			}
			if err := d.Finish(ctx); err != nil {
				b.Fatal(err)
			}
			copied = time.Since(t0)
			if !rep.Verification.OK {
				b.Fatalf("verification failed: %+v", rep.Verification)
			}
			return rep
		}
		first := pass()
		if first.Inserted.Messages != msgs {
			b.Fatalf("copied %d messages of %d", first.Inserted.Messages, msgs)
		}
		b.ReportMetric(copied.Seconds(), "copy-s")
		b.ReportMetric(float64(msgs)/copied.Seconds(), "msgs/s")
		b.ReportMetric(open.Seconds(), "open-s")
		b.ReportMetric(first.Elapsed.Seconds(), "union+upkeep+verify-s")
		b.Logf("%d messages; first copy %s: %v (upkeep %v)", msgs, copied, phases, first.Upkeep)
		again := pass()
		if again.Inserted.Messages != 0 {
			b.Fatalf("the re-copy inserted %+v", again.Inserted)
		}
		b.ReportMetric(copied.Seconds(), "recopy-s")
		b.Logf("re-copy %s: %v", copied, phases)
	}
	b.ReportMetric(procstat.PeakRSSMiB(), "peak-RSS-MiB")
}
