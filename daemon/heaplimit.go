package daemon

import "runtime/debug"

// syncHeapLimit is the soft limit on the Go runtime's memory while a sync pass runs, unless a
// lower one is set (GOMEMLIMIT). A pass holds one batch in flight, about 50 MB live at most on
// the benchmark corpus, and left alone the collector lets the heap grow to twice what was live
// before it runs: 107 MB at the peak of a cold sync of 500k messages. Under the limit it runs
// sooner: that sync's peak RSS fell by 10–20 MiB (310–312 → 290–302 MiB in three pairs of
// runs), its CPU within the runs' spread (docs/benchmarks.md, 2026-12-06). The limit is soft:
// a pass whose live heap is larger (a huge record) still gets the memory, with the collector
// running more often (at most half the CPU, Go's own cap).
const syncHeapLimit = 96 << 20

// limitHeap sets syncHeapLimit for the duration of a sync pass and returns what puts the
// previous limit back. Passes are serialised (Service.acquireWrite), so they never interleave.
func limitHeap() (restore func()) {
	prev := debug.SetMemoryLimit(-1) // -1 reads the limit without changing it
	if prev <= syncHeapLimit {
		return func() {}
	}
	debug.SetMemoryLimit(syncHeapLimit)
	return func() { debug.SetMemoryLimit(prev) }
}
