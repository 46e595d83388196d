package store

import (
	"context"
	"testing"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/sessiongen"
)

// BenchmarkBackfill embeds a sessiongen corpus of 10 sessions (~500 messages, realistic text
// lengths) with the test model, through Backfill's batches and merge-inserts: the rate
// `pond optimize --embed` reaches. Run with -benchtime=1x.
func BenchmarkBackfill(b *testing.B) {
	ctx := context.Background()
	e := openEmbedder(b, "")
	cfg := sessiongen.Default()
	cfg.Sessions = 10
	for range b.N {
		b.StopTimer()
		s := openTestStore(b, b.TempDir())
		g := sessiongen.New(cfg)
		var batch []session.Event
		for ev := g.Next(); ev != nil; ev = g.Next() {
			batch = append(batch, ev...)
		}
		if _, err := s.Upsert(ctx, batch, Stamp{Adapter: "bench"}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rep, err := s.Backfill(ctx, e, BackfillOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(rep.Embedded)/rep.Elapsed.Seconds(), "msgs/s")
		b.ReportMetric(float64(rep.Embedded), "messages")
		b.ReportMetric(float64(rep.Truncated), "truncated")
		s.Close()
	}
}
