package store

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pondhq/pond/internal/s3test"
	"github.com/pondhq/pond/session/view"
)

// The upkeep lease of an archive on moto's S3 server: one machine holds it, the other is told
// who does; released, the other gets it; machines claiming at the same time never both hold it.
func TestLeaseOneMachineAtATime(t *testing.T) {
	ctx := context.Background()
	srv := s3test.Shared(t)
	url := srv.Bucket(t, "pond-lease", "archive")
	a := openShared(t, t.TempDir(), url)
	b := openShared(t, t.TempDir(), url)
	la, err := a.acquireLease(ctx, LeaseUpkeep, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var busy *LeaseBusyError
	if _, err := b.acquireLease(ctx, LeaseUpkeep, time.Minute); !errors.As(err, &busy) || busy.Holder == "" {
		t.Fatalf("b while a holds the lease: %v", err)
	}
	if err := la.Release(ctx); err != nil {
		t.Fatal(err)
	}
	lb, err := b.acquireLease(ctx, LeaseUpkeep, time.Minute)
	if err != nil {
		t.Fatalf("b after a released: %v", err)
	}
	lb.Release(ctx)

	// Both claim, again and again: never two holders at once.
	var holders, most atomic.Int32
	var wg sync.WaitGroup
	for _, s := range []*Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 6 {
				l, err := s.acquireLease(ctx, LeaseUpkeep, time.Minute)
				if errors.As(err, &busy) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				n := holders.Add(1)
				for {
					m := most.Load()
					if n <= m || most.CompareAndSwap(m, n) {
						break
					}
				}
				time.Sleep(50 * time.Millisecond)
				holders.Add(-1)
				if err := l.Release(ctx); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Errorf("at most %d holders at once, want 1", most.Load())
	}

	// A claim that ran out (its holder died) stands in nobody's way.
	if _, err := a.acquireLease(ctx, "other", time.Second); err != nil { // never released
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	l, err := b.acquireLease(ctx, "other", time.Minute)
	if err != nil {
		t.Fatalf("after a's claim ran out: %v", err)
	}
	l.Release(ctx)

	// b's upkeep while a holds the lease: its compaction waits for a later run, and says why.
	upsert(t, b, everyKind("x"))
	if la, err = a.acquireLease(ctx, LeaseUpkeep, time.Minute); err != nil {
		t.Fatal(err)
	}
	rep, err := b.Upkeep(ctx, UpkeepOptions{Steps: []view.Step{view.StepCompact}})
	if err != nil || rep.Deferred == "" || slices.Contains(rep.Ran, view.StepCompact) {
		t.Errorf("upkeep while another machine holds the lease: %+v, %v", rep, err)
	}
	la.Release(ctx)
	if rep, err = b.Upkeep(ctx, UpkeepOptions{Steps: []view.Step{view.StepCompact}}); err != nil || rep.Deferred != "" || !slices.Contains(rep.Ran, view.StepCompact) {
		t.Errorf("upkeep after the lease was released: %+v, %v", rep, err)
	}

	// Version cleanup of the remote archive: due after enough commits since this machine last
	// pruned, not right after it did.
	defer func(n uint64) { remotePruneAfter = n }(remotePruneAfter)
	remotePruneAfter = 2
	upsert(t, b, everyKind("y"))
	d, err := b.Diagnose(ctx, 0)
	if err != nil || !d.IsDue(view.StepPrune) {
		t.Fatalf("prune not due after commits: %+v, %v", d, err)
	}
	if _, err := b.Upkeep(ctx, UpkeepOptions{Steps: []view.Step{view.StepPrune}}); err != nil {
		t.Fatal(err)
	}
	if d, err = b.Diagnose(ctx, 0); err != nil || d.IsDue(view.StepPrune) {
		t.Errorf("prune still due right after one: %+v, %v", d, err)
	}
}
