package redact

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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
	counts := benchRedact(b, tenMBSession)
	b.ReportMetric(float64(counts["aws-access-token"]), "secrets")
}

// benchRedact redacts a fresh copy of what events gives each round, and reports the CPU
// seconds a round took beside its wall time. It returns the last round's counts.
func benchRedact(b *testing.B, events func(*testing.B) ([]session.Event, int64)) Counts {
	r, err := New()
	if err != nil {
		b.Fatal(err)
	}
	evs, size := events(b)
	b.SetBytes(size)
	var counts Counts
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		ev := clone(evs)
		b.StartTimer()
		c0 := procstat.CPU()
		counts = r.Events(ev)
		cpu += procstat.CPU() - c0
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	return counts
}

// goSourceEvents is about n bytes of real prose and code as tool results: the Go tree's own
// source files (English comments, identifiers such as key, token and auth), a fairer sample of
// what agents' sessions hold than sessiongen's made-up words, whose syllables never spell a
// keyword of gitleaks' rules.
func goSourceEvents(b *testing.B, n int64) ([]session.Event, int64) {
	root := filepath.Join(runtime.GOROOT(), "src")
	var events []session.Event
	var size int64
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || size >= n {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		result, _ := json.Marshal(map[string]string{"path": path, "content": string(body)})
		events = append(events, session.Event{Part: &session.Part{SessionID: "bench", MessageID: "m", ID: path,
			Type: session.PartToolResult, Result: result}})
		size += int64(len(result))
		return nil
	})
	if err != nil || size < n {
		b.Skipf("the Go tree's sources (%s): %d bytes read, %v", root, size, err)
	}
	return events, size
}

// BenchmarkRedactGoSource redacts 10 MB of the Go tree's sources: docs/benchmarks.md,
// "Redaction".
func BenchmarkRedactGoSource(b *testing.B) {
	benchRedact(b, func(b *testing.B) ([]session.Event, int64) { return goSourceEvents(b, 10<<20) })
}
