package lance

import (
	"sync"
	"time"
)

// reads remembers when each call and query stream reading through a database's handles began.
// A read sees the version that was latest when it began and opens that version's files as it
// goes, so a prune must keep every version replaced after the oldest read still running began
// (the store's pruneCutoff). Reads are short (a search, a page) except scans, which is what this is for.
type reads struct {
	mu      sync.Mutex
	next    uint64
	started map[uint64]time.Time
}

// begin records a read starting now; end, which may be called more than once, forgets it.
func (r *reads) begin() (end func()) {
	r.mu.Lock()
	if r.started == nil {
		r.started = map[uint64]time.Time{}
	}
	id := r.next
	r.next++
	r.started[id] = time.Now()
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.started, id)
		r.mu.Unlock()
	}
}

// oldest is when the oldest read still running began; ok is false when none runs.
func (r *reads) oldest() (at time.Time, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.started {
		if !ok || t.Before(at) {
			at, ok = t, true
		}
	}
	return at, ok
}

// OldestRead is when the oldest read through this database's handles that is still running
// began (ok false: none is running).
func (db *DB) OldestRead() (time.Time, bool) { return db.reads.oldest() }
