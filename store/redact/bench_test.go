package redact

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/pondhq/pond/internal/procstat"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/sessiongen"
)

// tenMBSession is one generated session of about 10 MB (text, tool calls and results, raw
// records), with a test key in every hundredth text part.
func tenMBSession(b *testing.B) ([]session.Event, int64) {
	cfg := sessiongen.Default()
	cfg.Sessions, cfg.MessagesPerSess = 1, 2000
	var events []session.Event
	var size int64
	g := sessiongen.New(cfg)
	for size < 10<<20 {
		for _, e := range g.Next() {
			if e.Session != nil && len(events) > 0 {
				continue
			}
			if e.Message != nil || e.Part != nil {
				if e.Message != nil {
					e.Message.SessionID = "bench"
				} else {
					e.Part.SessionID = "bench"
				}
			} else {
				e.Session.ID = "bench"
			}
			if p := e.Part; p != nil && p.Type == session.PartText && len(events)%100 == 0 {
				p.Text += " export AWS_ACCESS_KEY_ID=" + testSecrets["aws-access-token"]
			}
			events = append(events, e)
			size += e.Size()
		}
	}
	return events, size
}

func clone(events []session.Event) []session.Event {
	b, _ := json.Marshal(events)
	var out []session.Event
	json.Unmarshal(b, &out)
	return out
}

// BenchmarkRedact10MBSession: docs/benchmarks.md, "Redaction".
func BenchmarkRedact10MBSession(b *testing.B) {
	r, err := New()
	if err != nil {
		b.Fatal(err)
	}
	events, size := tenMBSession(b)
	b.SetBytes(size)
	var counts Counts
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		ev := clone(events)
		b.StartTimer()
		c0 := procstat.CPU()
		counts = r.Events(ev)
		cpu += procstat.CPU() - c0
	}
	b.ReportMetric(float64(counts["aws-access-token"]), "secrets")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}
