package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/pondhq/pond/embed"
	"github.com/pondhq/pond/embed/onnx"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// testEmbedder is the registry-packaged test model behind the same lazy loader the daemon
// uses.
func testEmbedder(t *testing.T) embed.Embedder {
	t.Helper()
	lib, dir := os.Getenv("POND_ONNXRUNTIME_LIB"), os.Getenv("POND_TEST_MODEL_DIR")
	if lib == "" || dir == "" {
		t.Fatal("POND_ONNXRUNTIME_LIB and POND_TEST_MODEL_DIR must be set: run the tests with make test")
	}
	if _, err := onnx.Init(lib); err != nil {
		t.Fatal(err)
	}
	cfg, err := embed.LoadModelConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	l := embed.NewLazy(cfg, func() (embed.Model, error) { return onnx.Open(dir) }, 0)
	t.Cleanup(l.Close)
	return l
}

// ingestSessions stores n sessions of two messages, one request each: a commit (a version and
// a small fragment) per table per request, as live capture makes them.
func ingestSessions(t *testing.T, c *ipc.Client, prefix string, n int) {
	t.Helper()
	for i := range n {
		id := fmt.Sprintf("%s%d", prefix, i)
		var evs []json.RawMessage
		for _, e := range []string{
			`{"kind":"session","id":"%[1]s","source_agent":"api-test","project":"/p","created_at":"2026-01-02T03:04:05Z"}`,
			`{"kind":"message","session_id":"%[1]s","id":"m1","role":"user","timestamp":"2026-01-02T03:04:06Z"}`,
			`{"kind":"part","session_id":"%[1]s","message_id":"m1","id":"p1","ordinal":0,"type":"text","provenance":"conversational","text":"why does the build of %[1]s fail"}`,
			`{"kind":"message","session_id":"%[1]s","id":"m2","role":"assistant","timestamp":"2026-01-02T03:04:07Z"}`,
			`{"kind":"part","session_id":"%[1]s","message_id":"m2","id":"p1","ordinal":0,"type":"text","provenance":"conversational","text":"a missing lock around the cache in %[1]s"}`,
		} {
			evs = append(evs, json.RawMessage(fmt.Sprintf(e, id)))
		}
		if resp, err := c.Ingest(context.Background(), &apitype.IngestRequest{Events: evs}); err != nil || resp.Rejected > 0 {
			t.Fatalf("ingest %s: %+v, %v", id, resp, err)
		}
	}
}

func decodeOptimize(t *testing.T, resp *apitype.OptimizeResponse) (*view.Diagnosis, *view.UpkeepReport) {
	t.Helper()
	if resp.Diagnosis == nil {
		t.Fatal("no diagnosis")
	}
	return resp.Diagnosis, resp.Report
}

// POST /v1/optimize over the real socket: a dry run diagnoses, a run embeds, compacts and
// prunes what is due while the watch stream reports progress, and status keeps the outcome.
func TestOptimizeRoute(t *testing.T) {
	s := serve(t, ipc.ListenOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ingestSessions(t, s.client, "s", 9)

	// Refusals: an unknown step, a negative keep time, embedding with semantic search off.
	neg := int64(-1)
	for _, tt := range []struct {
		name string
		req  apitype.OptimizeRequest
		code string
	}{
		{"unknown_step", apitype.OptimizeRequest{Steps: []string{"defrag"}}, apitype.CodeValidation},
		{"negative_keep", apitype.OptimizeRequest{KeepVersionsSecs: &neg}, apitype.CodeValidation},
		{"embeddings_off", apitype.OptimizeRequest{Steps: []string{"embed"}}, apitype.CodeEmbeddingsOff},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ae *apitype.Error
			if _, err := s.client.Optimize(ctx, &tt.req); !errors.As(err, &ae) || ae.Code != tt.code {
				t.Fatalf("got %v, want %s", err, tt.code)
			}
		})
	}

	s.svc.Store.UseEmbedder(testEmbedder(t))
	zero := int64(0)
	resp, err := s.client.Optimize(ctx, &apitype.OptimizeRequest{DryRun: true, KeepVersionsSecs: &zero})
	if err != nil {
		t.Fatal(err)
	}
	d, rep := decodeOptimize(t, resp)
	if rep != nil || !d.IsDue(view.StepEmbed) || !d.IsDue(view.StepCompact) || !d.IsDue(view.StepPrune) || d.Embeddings.Pending != 18 {
		t.Fatalf("dry run: report %v, diagnosis %+v; want embed (18 messages), compact and prune due", rep, d)
	}

	events := make(chan apitype.Event, 256)
	go s.client.Watch(ctx, "", func(ev apitype.Event) error { events <- ev; return nil })
	if ev := <-events; ev.Type != apitype.EventHello {
		t.Fatalf("first event %s, want hello", ev.Type)
	}
	resp, err = s.client.Optimize(ctx, &apitype.OptimizeRequest{KeepVersionsSecs: &zero, BatchRows: 5})
	if err != nil {
		t.Fatal(err)
	}
	before, rep := decodeOptimize(t, resp)
	if rep == nil || rep.Embed == nil || rep.Embed.Embedded != 18 || fmt.Sprint(rep.Ran) != "[embed compact prune]" || len(rep.After.Due) != 0 {
		t.Fatalf("run: %+v; want 18 embedded, then compaction and pruning, nothing left due", rep)
	}
	for i, ts := range rep.After.Tables {
		if was := before.Tables[i]; ts.Fragments >= was.Fragments || ts.Rows != was.Rows || ts.Versions != 1 {
			t.Errorf("%s: %+v -> %+v; want the rows in fewer fragments, one version", ts.Table, was, ts)
		}
	}
	st, err := s.client.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Upkeep == nil || st.Upkeep.Trigger != "request" || st.Upkeep.Error != "" || len(st.Upkeep.Did) < 3 || st.Embeddings.Pending != 0 || st.Embeddings.Embedded != 18 {
		t.Fatalf("status after the run: upkeep %+v, embeddings %+v", st.Upkeep, st.Embeddings)
	}
	// The stream told the run as it went, ending with its outcome.
	seen := map[string]int{}
	for seen[apitype.EventUpkeepFinished] == 0 {
		select {
		case ev := <-events:
			seen[ev.Type]++
		case <-time.After(2 * time.Minute): // a bound on a hang, not a measure of speed
			t.Fatalf("no upkeep_finished event; saw %v", seen)
		}
	}
	if seen[apitype.EventUpkeepStarted] != 1 || seen[apitype.EventUpkeepProgress] < 4 {
		t.Errorf("events %v; want upkeep_started and progress for each embedded batch", seen)
	}
}

// The daemon's own upkeep: it runs once rows came in, embeds with the configured model and
// compacts, then stays idle until something changes.
func TestAutoUpkeep(t *testing.T) {
	s := serve(t, ipc.ListenOptions{})
	ctx := context.Background()
	s.svc.Store.UseEmbedder(testEmbedder(t))
	if s.svc.AutoUpkeep(ctx, -1) || s.svc.lastUpkeep() != nil {
		t.Fatal("upkeep ran on an archive nothing was written to")
	}
	ingestSessions(t, s.client, "a", 9)
	if again := s.svc.AutoUpkeep(ctx, -1); again {
		t.Fatal("a round of 18 messages left embedding over")
	}
	last := s.svc.lastUpkeep()
	if last == nil || last.Trigger != "auto" || last.Error != "" || len(last.Due) != 0 {
		t.Fatalf("last upkeep %+v; want an automatic run that left nothing due", last)
	}
	d, err := s.svc.Store.Diagnose(ctx, -1)
	if err != nil {
		t.Fatal(err)
	}
	if d.Embeddings.Pending != 0 || d.Embeddings.Embedded != 18 {
		t.Errorf("coverage after the automatic upkeep: %+v", d.Embeddings)
	}
	for _, ts := range d.Tables {
		if ts.SmallFragments >= 8 || ts.Versions != 1 {
			t.Errorf("%s after the automatic upkeep: %+v; want compacted and pruned", ts.Table, ts)
		}
	}
	// Nothing written since: the next tick does not even measure.
	s.svc.AutoUpkeep(ctx, -1)
	if s.svc.lastUpkeep() != last {
		t.Error("upkeep ran again with nothing written since")
	}
}

// After an upkeep that rewrote the archive (here a compaction asked for, no pruning), the
// daemon prunes what the rewrite replaced as soon as that is older than its keep time, not at
// its next tick (an hour away here): until then the archive holds the old files beside the new.
func TestDaemonPrunesAfterARewrite(t *testing.T) {
	dirs := testDirs(t)
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Dirs: dirs, Version: "test", Ready: func() { close(ready) },
			UpkeepEvery: time.Hour, KeepVersions: time.Second})
	}()
	defer func() { cancel(); <-done }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatal(err)
	}
	c := ipc.NewClient(ipc.APISocket(dirs.Runtime.Path))
	defer c.Close()
	ingestSessions(t, c, "s", 9)
	// With a keep time, the compaction runs at once and leaves what it replaced to age (with
	// none, it runs in rounds and prunes as it goes: see store.Store.compact).
	keepOne := int64(1)
	resp, err := c.Optimize(ctx, &apitype.OptimizeRequest{Steps: []string{"compact"}, KeepVersionsSecs: &keepOne})
	if err != nil {
		t.Fatal(err)
	}
	_, rep := decodeOptimize(t, resp)
	var compacted []string
	for _, ts := range rep.Tables {
		if ts.Compaction != nil && ts.Compaction.FragmentsRemoved > 0 {
			compacted = append(compacted, ts.Table)
		}
	}
	if fmt.Sprint(rep.Ran) != "[compact]" || len(compacted) == 0 {
		t.Fatalf("requested compaction: %+v; want only compaction, of the tables each capture wrote", rep)
	}
	for _, ts := range rep.After.Tables {
		if slices.Contains(compacted, ts.Table) && ts.Versions < 2 {
			t.Fatalf("%s right after the compaction: %+v; want the versions it replaced still there", ts.Table, ts)
		}
	}

	keep := int64(1)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) { // a bound on a hang, not a measure of speed
		resp, err := c.Optimize(ctx, &apitype.OptimizeRequest{DryRun: true, KeepVersionsSecs: &keep})
		if err != nil {
			t.Fatal(err)
		}
		// Pruned, and the run that did it over: status shows it.
		pruned := true
		for _, ts := range resp.Diagnosis.Tables {
			if slices.Contains(compacted, ts.Table) && ts.Versions != 1 {
				pruned = false
			}
		}
		if st, err := c.Status(ctx); err != nil {
			t.Fatal(err)
		} else if pruned && st.Upkeep != nil && st.Upkeep.Trigger == "auto" {
			if st.Upkeep.Error != "" {
				t.Fatalf("the daemon's prune: %+v", st.Upkeep)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the versions the compaction replaced are still there: %+v", resp.Diagnosis.Tables)
		}
	}
}
