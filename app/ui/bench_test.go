package ui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/pondhq/pond/daemon/daemontest"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/session/sessiongen"
)

// benchDaemon serves the archive the benchmarks read: $POND_BENCH_ARCHIVE (a folder holding
// data/ and state/, e.g. the store's search benchmark archive,
// ~/.cache/pond/bench/search-100000-v1, which holds the 10,000-message session bench-big-10k),
// or else a fresh one with $POND_BENCH_UI_SESSIONS generated sessions (default 400, ~20k
// messages) ingested through the API.
func benchDaemon(b *testing.B) (*daemontest.Served, string) {
	if dir := os.Getenv("POND_BENCH_ARCHIVE"); dir != "" {
		home := b.TempDir()
		b.Setenv("HOME", home)
		dirs := paths.Dirs{
			ConfigFile: paths.Path{Path: filepath.Join(home, "config.toml")},
			Data:       paths.Path{Path: filepath.Join(dir, "data")},
			State:      paths.Path{Path: filepath.Join(dir, "state")},
			Cache:      paths.Path{Path: filepath.Join(home, "cache")},
			Runtime:    paths.Path{Path: filepath.Join(home, "run")},
		}
		return daemontest.StartIn(b, home, dirs), "bench-big-10k"
	}
	srv := daemontest.Start(b, "")
	n := 400
	if v, err := strconv.Atoi(os.Getenv("POND_BENCH_UI_SESSIONS")); err == nil {
		n = v
	}
	cfg := sessiongen.Default()
	cfg.Sessions = n
	g := sessiongen.New(cfg)
	var batch []json.RawMessage
	flush := func() {
		if len(batch) == 0 {
			return
		}
		if _, err := srv.Client.Ingest(context.Background(), &apitype.IngestRequest{Events: batch}); err != nil {
			b.Fatal(err)
		}
		batch = batch[:0]
	}
	for ev := g.Next(); ev != nil; ev = g.Next() {
		if len(batch)+len(ev) > apitype.MaxIngestEvents {
			flush() // a session's events stay in one request
		}
		for _, e := range ev {
			raw, err := json.Marshal(e)
			if err != nil {
				b.Fatal(err)
			}
			if len(batch) == apitype.MaxIngestEvents {
				flush()
			}
			batch = append(batch, raw)
		}
	}
	flush()
	id, _ := bigSession(b, srv.Client, 10_000)
	return srv, id
}

// genWords are the corpus generators' words (sessiongen and the store's benchmark archive).
func genWords() []string {
	syll := []string{"ka", "ro", "mi", "te", "lu", "sa", "po", "ne", "di", "fa", "gu", "ze", "bo", "chi", "va", "qu"}
	var words []string
	for i := 0; i < 20_000; i++ {
		var sb strings.Builder
		for x := i + 1; x > 0; x /= len(syll) {
			sb.WriteString(syll[x%len(syll)])
		}
		words = append(words, sb.String())
	}
	return words
}

func percentiles(ds []time.Duration) (p50, p95 time.Duration) {
	slices.Sort(ds)
	return ds[len(ds)/2], ds[len(ds)*95/100]
}

// BenchmarkKeystrokeToResults measures the search window from the last keystroke of a query to
// its results applied to the list (the daemon's search over the socket, decoding, the list's
// refresh), without the window's debounce (150 ms, added by the real window before it asks).
// Run: make bench PKGS=./app/ui/ BENCH=KeystrokeToResults [POND_BENCH_ARCHIVE=…]
func BenchmarkKeystrokeToResults(b *testing.B) {
	srv, _ := benchDaemon(b)
	a := test.NewTempApp(b)
	w := a.NewWindow("search")
	w.Resize(fyne.NewSize(820, 560))
	s := NewSearch(srv.Client, w)
	s.Debounce = 0
	s.Done = make(chan struct{}, 1)
	words := genWords()
	queries := []string{words[19_000], words[17_500], words[15_123], words[0] + " " + words[1],
		words[2] + " " + words[5] + " " + words[9], words[3] + " " + words[20], words[1] + " " + words[50] + " " + words[100],
		"widgets", "long session"}
	answered := func(q string) {
		for {
			select {
			case <-s.Done:
			case <-time.After(2 * time.Minute):
				b.Fatal("no answer within 2 minutes")
			}
			if got, _ := s.Shown(); got == strings.TrimSpace(q) {
				return
			}
		}
	}
	var ds []time.Duration
	found := 0
	for b.Loop() {
		for _, q := range queries {
			onUI(func() { s.Entry.SetText(q[:len(q)-1]) })
			answered(q[:len(q)-1])
			t0 := time.Now()
			onUI(func() { s.Entry.SetText(q) }) // the last keystroke
			answered(q)
			ds = append(ds, time.Since(t0))
			found += len(s.Results())
		}
	}
	p50, p95 := percentiles(ds)
	b.ReportMetric(float64(p50.Microseconds())/1000, "ms-p50")
	b.ReportMetric(float64(p95.Microseconds())/1000, "ms-p95")
	b.ReportMetric(float64(found)/float64(len(ds)), "sessions/query")
}

// BenchmarkTranscriptOpen measures opening a 10,000-message session: from building the window
// to its first page applied to the list and painted (the test driver's canvas capture), then the
// Go heap the window holds with that page, and with every page loaded (the user scrolled through
// all 10,000 messages).
// Run: make bench PKGS=./app/ui/ BENCH=TranscriptOpen [POND_BENCH_ARCHIVE=…]
func BenchmarkTranscriptOpen(b *testing.B) {
	srv, id := benchDaemon(b)
	a := test.NewTempApp(b)
	var ds []time.Duration
	var firstHeap, allHeap, rss uint64
	for b.Loop() {
		runtime.GC()
		before := heap()
		w := a.NewWindow("t")
		w.Resize(fyne.NewSize(760, 640))
		t0 := time.Now()
		var tr *Transcript
		onUI(func() {
			tr = BuildTranscript(srv.Client, w, id, nil)
			tr.Done = make(chan struct{}, 1)
			tr.AutoLoad = false
			tr.Load()
		})
		<-tr.Done
		w.Canvas().Capture() // paint
		ds = append(ds, time.Since(t0))
		runtime.GC()
		firstHeap = heap() - min(before, heap())
		for {
			_, after := tr.Remaining()
			if after == 0 {
				break
			}
			onUI(tr.LoadAfter)
			<-tr.Done
		}
		onUI(func() { tr.List.ScrollToBottom() })
		w.Canvas().Capture()
		runtime.GC()
		allHeap = heap() - min(before, heap())
		rss = vmRSS()
		if tr.Shown != 10_000 {
			b.Fatalf("loaded %d messages", tr.Shown)
		}
		w.Close()
	}
	p50, p95 := percentiles(ds)
	b.ReportMetric(float64(p50.Microseconds())/1000, "ms-first-paint-p50")
	b.ReportMetric(float64(p95.Microseconds())/1000, "ms-first-paint-p95")
	b.ReportMetric(float64(firstHeap)/(1<<20), "MiB-heap-first-page")
	b.ReportMetric(float64(allHeap)/(1<<20), "MiB-heap-all-10k")
	b.ReportMetric(float64(rss)/(1<<20), "MiB-rss-process")
}

func heap() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// vmRSS is the process's resident memory (Linux; 0 elsewhere).
func vmRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(f), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
