package capture

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pondhq/pond/adapters/claudecode"
	"github.com/pondhq/pond/store"
)

// claudeCorpus writes n Claude Code session files under root/projects, each a copy of the
// adapter's main test session under its own session id, spread over 20 project folders.
func claudeCorpus(tb testing.TB, root string, n int) {
	tb.Helper()
	const id = "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b"
	tmpl, err := os.ReadFile("../../adapters/claudecode/testdata/projects/-srv-demo/" + id + ".jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < n; i++ {
		sid := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		dir := filepath.Join(root, "projects", fmt.Sprintf("-work-project-%02d", i%20))
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), bytes.ReplaceAll(tmpl, []byte(id), []byte(sid)), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkSync2000Files measures a sync of 2,000 Claude Code session files: the first (cold)
// sync, and a sync with nothing changed (warm), which must only stat the files. Run with
// -benchtime=1x.
func BenchmarkSync2000Files(b *testing.B) {
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		root := filepath.Join(dir, "claude")
		claudeCorpus(b, root, 2000)
		s, err := store.Open(context.Background(), store.Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state")})
		if err != nil {
			b.Fatal(err)
		}
		eng := &Engine{Store: s, Cursors: &Cursors{Dir: filepath.Join(dir, "state")}}
		targets := []Target{{Adapter: claudecode.Adapter{}, Roots: []string{root}}}
		t0 := time.Now()
		rep, err := eng.Sync(context.Background(), targets, Options{})
		if err != nil {
			b.Fatal(err)
		}
		cold := time.Since(t0)
		t0 = time.Now()
		warm, err := eng.Sync(context.Background(), targets, Options{})
		if err != nil {
			b.Fatal(err)
		}
		warmD := time.Since(t0)
		if warm.Adapters[0].Skipped[SkipFresh] != 2000 {
			b.Fatalf("warm sync: %+v", warm.Adapters[0])
		}
		b.ReportMetric(cold.Seconds(), "cold-s")
		b.ReportMetric(float64(rep.Inserted.Messages)/cold.Seconds(), "msgs/s-cold")
		b.ReportMetric(float64(warmD.Milliseconds()), "warm-ms")
		s.Close()
	}
}
