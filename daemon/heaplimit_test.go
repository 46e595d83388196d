package daemon

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestLimitHeapDuringSyncAndBack(t *testing.T) {
	orig := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(orig)

	restore := limitHeap()
	if got := debug.SetMemoryLimit(-1); got != syncHeapLimit {
		t.Fatalf("during a pass the limit is %d, want %d", got, syncHeapLimit)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("after a pass the limit is %d, want it back at %d", got, int64(math.MaxInt64))
	}

	// A lower limit the user set (GOMEMLIMIT) is kept.
	debug.SetMemoryLimit(64 << 20)
	restore = limitHeap()
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Fatalf("a lower limit became %d during a pass", got)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Fatalf("a lower limit became %d after a pass", got)
	}
}
