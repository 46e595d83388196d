package daemon

import (
	"testing"
	"time"
)

// TestQuietReleaseAfterWork walks the release policy through CPU readings a tick apart: no
// release while work goes on, one once quiet has lasted quietFor after it, none again while
// only polls arrive, and none when the work since the last release was too little to leave
// anything behind.
func TestQuietReleaseAfterWork(t *testing.T) {
	ms := time.Millisecond
	q := newQuietRelease(10 * time.Second)
	cpu := 10 * time.Second
	step := func(used time.Duration) bool {
		cpu += used
		return q.tick(cpu)
	}
	quietTicks := int(quietFor / releaseTick)
	// An upkeep: busy ticks, then quiet ones with a status poll in them.
	for i := range 10 {
		if step(4 * time.Second) {
			t.Fatalf("released while busy, tick %d", i)
		}
	}
	for i := range quietTicks - 1 {
		if step(30 * ms) {
			t.Fatalf("released after %d quiet ticks, want %d", i+1, quietTicks)
		}
	}
	if !step(30 * ms) {
		t.Fatalf("no release after %d quiet ticks following work", quietTicks)
	}
	cpu += 200 * ms // the release's own cost
	q.done(cpu)
	// Polls only: quiet ticks, but too little work to release again.
	for i := range 3 * quietTicks {
		if step(40 * ms) {
			t.Fatalf("released again after polls only, tick %d", i)
		}
	}
	// A burst of searches under workCPU: not worth a release either.
	step(workCPU / 2)
	for i := range 2 * quietTicks {
		if step(0) {
			t.Fatalf("released after %v of work, under workCPU, tick %d", workCPU/2, i)
		}
	}
	// More searches: now the work since the release passes workCPU, and quiet follows.
	step(workCPU)
	released := false
	for range quietTicks {
		released = step(0)
	}
	if !released {
		t.Fatal("no release after work past workCPU and quietFor of quiet")
	}
	// Work that never pauses for quietFor is never interrupted.
	q.done(cpu)
	for i := range 5 * quietTicks {
		used := time.Duration(0)
		if i%(quietTicks-1) == 0 {
			used = 2 * time.Second
		}
		if step(used) {
			t.Fatalf("released between bursts less than %v apart, tick %d", quietFor, i)
		}
	}
}
