package daemon

import (
	"context"
	"time"

	"github.com/pondhq/pond/internal/procstat"
	"github.com/pondhq/pond/store"
)

// The daemon gives memory back once it has worked and then gone quiet (releaseWhenQuiet). Work
// and quiet are read from the process's own CPU time, so that every kind of work counts without
// each part reporting it: API and MCP requests, syncs, upkeep, the catch-up of a shared archive.
const (
	// releaseTick is how often the CPU time is read.
	releaseTick = 5 * time.Second
	// quietCPU is the CPU a tick may use and still be quiet: a status poll from the tray or an
	// agent's occasional search costs tens of milliseconds.
	quietCPU = 100 * time.Millisecond
	// quietFor is how long the daemon stays quiet before it releases: long enough that a user
	// typing searches in bursts is not made to fault the code back in between them.
	quietFor = 15 * time.Second
	// workCPU is the CPU spent since the last release that makes the next one worth its cost
	// (a full collection, a malloc_trim, and the code read back on the next request): below it
	// the little that was allocated stays for reuse.
	workCPU = time.Second
)

// quietRelease decides, tick by tick from the process's CPU time, when to release memory.
type quietRelease struct {
	last     time.Duration // the CPU time at the previous tick
	released time.Duration // the CPU time right after the last release (or at start)
	quiet    time.Duration // how long the ticks have been quiet
}

func newQuietRelease(cpu time.Duration) *quietRelease {
	return &quietRelease{last: cpu, released: cpu}
}

// tick takes the CPU time now, one releaseTick after the previous, and reports whether to
// release memory now.
func (q *quietRelease) tick(cpu time.Duration) bool {
	if cpu-q.last < quietCPU {
		q.quiet += releaseTick
	} else {
		q.quiet = 0
	}
	q.last = cpu
	return q.quiet >= quietFor && cpu-q.released >= workCPU
}

// done records the CPU time after a release, so that its own cost is not taken for work.
func (q *quietRelease) done(cpu time.Duration) {
	q.last, q.released = cpu, cpu
}

// releaseWhenQuiet returns freed memory and the program's code pages to the system once the
// daemon has gone quiet after work (store.ReleaseMemory). The Go runtime returns freed heap on
// its own, minutes later; glibc keeps what the native code freed, and the code pages a request
// faulted in stay resident: after an upkeep under requests, 271 MiB of resident memory, 107 of it
// the binary's pages (docs/benchmarks.md, 2026-12-07, fourth session).
func (d *daemon) releaseWhenQuiet(ctx context.Context) error {
	t := time.NewTicker(releaseTick)
	defer t.Stop()
	q := newQuietRelease(procstat.CPU())
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if !q.tick(procstat.CPU()) {
			continue
		}
		before, began := residentBytes(), time.Now()
		store.ReleaseMemory()
		q.done(procstat.CPU())
		d.log.Debug("daemon: memory released after work", "rss_before", before, "rss_after", residentBytes(), "took", time.Since(began))
	}
}
