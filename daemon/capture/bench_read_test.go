package capture

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/daemon/capture/benchgen"
	"github.com/pondhq/pond/internal/procstat"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store/sqlite"
)

// BenchmarkAdapterRead measures the adapters' parsing alone: each adapter scans its root of a
// benchgen corpus and reads every source into an emitter that drops the events, as the sync
// engine's reader does before anything is stored. MB/s is over the native records' bytes;
// cpu-ms/op is the process's CPU time (GC included) per read of the whole root. The
// corpus (150 sessions, ~37k messages over the five formats; POND_BENCH_SESSIONS to change it)
// is written once, before the clock starts.
func BenchmarkAdapterRead(b *testing.B) {
	cfg := benchgen.Default()
	cfg.Sessions = 150
	if n := benchEnv("POND_BENCH_SESSIONS"); n > 0 {
		cfg.Sessions = n
	}
	m, err := benchgen.Write(filepath.Join(b.TempDir(), "home"), cfg)
	if err != nil {
		b.Fatal(err)
	}
	env := adapters.Env{GOOS: "linux", Home: m.Home, Getenv: func(string) string { return "" }, OpenSQLite: sqlite.OpenAgentDB}
	for _, a := range all.Adapters() {
		want := m.Agents[a.Name()]
		b.Run(a.Name(), func(b *testing.B) {
			b.SetBytes(want.Bytes)
			b.ReportAllocs()
			ctx := context.Background()
			var messages int
			cpu := procstat.CPU()
			for b.Loop() {
				var out discard
				srcs, err := a.Scan(ctx, env, m.Roots[a.Name()])
				if err != nil {
					b.Fatal(err)
				}
				for _, src := range srcs {
					if _, err := a.Read(ctx, env, src, adapters.Cursor{}, &out); err != nil {
						b.Fatal(err)
					}
				}
				if out.messages != want.Messages || out.bad != 0 {
					b.Fatalf("read %d messages (%d malformed), want %d", out.messages, out.bad, want.Messages)
				}
				messages += out.messages
			}
			b.ReportMetric(float64(messages)/b.Elapsed().Seconds(), "msgs/s")
			// CPU time, GC included, says more than the wall time on a machine doing other work.
			b.ReportMetric(float64((procstat.CPU()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// discard is an Emitter that counts messages and malformed records and keeps nothing.
type discard struct{ messages, bad int }

func (d *discard) Event(e session.Event) error {
	if e.Message != nil {
		d.messages++
	}
	return nil
}

func (d *discard) Malformed(adapters.Location, error) { d.bad++ }

func (d *discard) Unknown(adapters.Location, string) {}
