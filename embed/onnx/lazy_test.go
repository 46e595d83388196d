package onnx

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pondhq/pond/embed"
)

// The lazy wrapper over the real embedder: one load shared by concurrent callers, unloaded
// after the idle time, loaded again on the next use.
func TestLazyLoadsOnceSharesAndEvicts(t *testing.T) {
	testEmbedder(t) // initialises ONNX Runtime
	dir := os.Getenv("POND_TEST_MODEL_DIR")
	cfg, err := embed.LoadModelConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var opened []*Embedder
	open := func() (embed.Model, error) {
		e, err := Open(dir)
		if err == nil {
			mu.Lock()
			opened = append(opened, e)
			mu.Unlock()
		}
		return e, err
	}
	l := embed.NewLazy(cfg, open, 20*time.Millisecond)
	defer l.Close()
	if loaded, _ := l.Loaded(); loaded {
		t.Fatal("loaded before first use")
	}
	if l.Model() != "intfloat/e5-small-v2@int8" || l.Dimensions() != 384 {
		t.Errorf("Model %q Dimensions %d before loading", l.Model(), l.Dimensions())
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := l.Embed(context.Background(), []string{"concurrent callers share one session"}, embed.Query)
			if err == nil && len(v[0]) != 384 {
				t.Errorf("vector of %d dims", len(v[0]))
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, loads := l.Loaded(); loads != 1 {
		t.Fatalf("%d loads for 8 concurrent callers, want 1", loads)
	}
	// Wait (without a deadline on speed) for the idle eviction.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if loaded, _ := l.Loaded(); !loaded {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("model still loaded 30 s after its last use with a 20 ms idle time")
		}
	}
	mu.Lock()
	first := opened[0]
	mu.Unlock()
	if _, err := first.Embed(context.Background(), []string{"x"}, embed.Query); err == nil {
		t.Error("the evicted embedder still runs; it was not closed")
	}
	if _, err := l.Embed(context.Background(), []string{"loaded again"}, embed.Query); err != nil {
		t.Fatal(err)
	}
	if _, loads := l.Loaded(); loads != 2 {
		t.Errorf("%d loads after eviction and reuse, want 2", loads)
	}
	// The backfill counts cut texts through the wrapper too.
	_, cut, err := l.EmbedTruncated(context.Background(), []string{strings.Repeat("the build failed again ", 400), "ok"}, embed.Passage)
	if err != nil || len(cut) != 2 || !cut[0] || cut[1] {
		t.Errorf("EmbedTruncated through Lazy: %v, %v; want the long text marked cut", cut, err)
	}
}
