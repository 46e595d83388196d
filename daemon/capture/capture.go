// Package capture is the sync engine: for each enabled adapter it lists the agent's sources,
// skips those unchanged since the last read (their cursor's stamp), reads the rest from where
// the last read stopped, and stores what they yield in batches, saving each source's cursor
// only after its events are committed. The daemon runs it on a timer and on file changes; the
// CLI's `pond sync` runs it once.
//
// An adapter whose listing is costly may stamp a whole root (adapters.Adapter.RootStamp). A root whose
// stamp is the one taken before the last scan that left nothing to read is not scanned at all;
// its sources are reported as that scan settled them (roots.go).
package capture

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"sync"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
)

// Target is one adapter to sync and the roots to read.
type Target struct {
	Adapter adapters.Adapter
	Roots   []string
	// Named marks an adapter the user asked for by name: its failure fails the run.
	Named bool
}

// Options tune one sync.
type Options struct {
	DryRun bool // classify sources, read and write nothing
	Verify bool // ignore cursors: read every source from the start
	// FlushSessions and FlushBytes bound a write batch (defaults 100 sessions, 4 MiB). Small
	// batches cost no speed and keep memory down: a batch is held several times over while it
	// is stored (events, Arrow records and their IPC copy, mirror rows), and the next one is
	// read meanwhile (see docs/benchmarks.md, sync).
	FlushSessions int
	FlushBytes    int64
	// Progress, when set, is called after each source.
	Progress func(view.SyncProgress)
}

// Skip reasons, stable tokens for scripts (adapters add superseded and unsupported).
const (
	SkipFresh        = "fresh"        // unchanged since the last read
	SkipEmpty        = "empty"        // the source holds no session yet
	SkipUnimportable = "unimportable" // the source could not be read
)

// maxProblems bounds the problems a report lists (all are counted).
const maxProblems = 100

// Engine runs syncs against one store.
type Engine struct {
	Store   *store.Store
	Env     adapters.Env
	Cursors *Cursors
	Stamp   store.Stamp
	Log     *slog.Logger
}

// Sync syncs every target once.
func (e *Engine) Sync(ctx context.Context, targets []Target, opts Options) (*view.SyncReport, error) {
	if opts.FlushSessions <= 0 {
		opts.FlushSessions = 100
	}
	if opts.FlushBytes <= 0 {
		opts.FlushBytes = 4 << 20
	}
	if e.Log == nil {
		e.Log = slog.New(slog.DiscardHandler)
	}
	rep := &view.SyncReport{StartedAt: time.Now().UTC(), DryRun: opts.DryRun, Outcome: "ok"}
	for _, t := range targets {
		ar, err := e.syncAdapter(ctx, t, opts)
		if err != nil {
			return nil, err
		}
		rep.Adapters = append(rep.Adapters, *ar)
		rep.Inserted.Sessions += ar.Inserted.Sessions
		rep.Inserted.Messages += ar.Inserted.Messages
		rep.Inserted.Parts += ar.Inserted.Parts
		if ar.Reason != "" {
			if t.Named {
				rep.Outcome = "failed"
			} else if rep.Outcome == "ok" {
				rep.Outcome = "partial"
			}
		}
	}
	rep.FinishedAt = time.Now().UTC()
	return rep, nil
}

// pending is a source read but not yet committed.
type pending struct {
	root string
	src  adapters.Source
	cur  adapters.Cursor
}

// job is one source to classify and maybe read, with the cursor it had when the sync began.
type job struct {
	root  string
	src   adapters.Source
	cur   adapters.Cursor
	known bool
}

// readResult is a job done by the reader: a skip reason, or what the read produced.
type readResult struct {
	job
	skip string // why the source was not read; "" when it was (or, in a dry run, would be)
	read bool   // Read ran: next, em and err hold its result
	next adapters.Cursor
	em   *emitter
	err  error
}

func (e *Engine) syncAdapter(ctx context.Context, t Target, opts Options) (*view.AdapterReport, error) {
	a := t.Adapter
	ar := &view.AdapterReport{Adapter: a.Name(), Roots: t.Roots, Skipped: map[string]int{}, Unknown: map[string]int{}, Named: t.Named}
	cursors, err := e.Cursors.Load(a.Name())
	if err != nil {
		return nil, err
	}
	roots, err := e.Cursors.LoadRoots(a.Name())
	if err != nil {
		return nil, err
	}
	var jobs []job
	var scanned []scannedRoot
	unscanned := 0 // sources of the roots left unscanned
	for _, root := range t.Roots {
		stamp := e.rootStamp(ctx, a, root)
		if st, ok := roots[root]; ok && !opts.Verify && st.unchanged(stamp, e.Stamp.PondVersion, len(cursors[root])) {
			unscanned += st.Sources
			for reason, n := range st.Skipped {
				ar.Skipped[reason] += n
			}
			continue
		}
		srcs, err := a.Scan(ctx, e.Env, root)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			ar.Reason, ar.Error = "unreadable", err.Error()
			if errors.Is(err, fs.ErrNotExist) {
				ar.Reason = "not_found"
			}
			scanned = append(scanned, scannedRoot{root: root}) // no stamp: not settled
			continue
		}
		scanned = append(scanned, scannedRoot{root, stamp, srcs})
		for _, src := range srcs {
			cur, known := cursors.Get(root, src.Key)
			if opts.Verify {
				cur, known = adapters.Cursor{}, false
			}
			jobs = append(jobs, job{root, src, cur, known})
		}
	}
	if len(t.Roots) == 0 {
		ar.Reason, ar.Error = "not_found", "no "+a.Name()+" data found on this machine"
	}
	ar.Sources = unscanned + len(jobs)
	if unscanned > 0 {
		e.progress(opts, a.Name(), unscanned, ar.Sources)
	}

	// Sources are read on their own goroutine while the batch before is being stored, so
	// parsing and storing overlap; the reader stays at most about one batch ahead (budget).
	rctx, cancel := context.WithCancel(ctx)
	results := make(chan readResult, opts.FlushSessions)
	budget := newBudget(2 * opts.FlushBytes)
	go e.readSources(rctx, a, jobs, opts.DryRun, results, budget)
	defer func() {
		cancel()
		budget.stop()
		for range results { // let the reader finish before returning
		}
	}()

	var batch []session.Event
	var batchBytes int64
	var batchSessions int
	var inBatch []pending
	// Cursors are saved after the last batch and at most once a second before it: a cursor
	// file is rewritten whole and synced, and a crash between saves only costs re-reading what
	// was already stored, which the store matches.
	var saved time.Time
	unsaved := false
	save := func(last bool) error {
		unsaved = true
		if !last && time.Since(saved) < cursorSaveEvery {
			return nil
		}
		saved, unsaved = time.Now(), false
		return e.Cursors.Save(a.Name(), cursors)
	}
	flush := func(last bool) error {
		if len(batch) == 0 {
			if len(inBatch) == 0 {
				if last && unsaved {
					return save(true)
				}
				return nil // nothing read: the cursors on disk are current (a warm sync writes nothing)
			}
			for _, p := range inBatch {
				cursors.Set(p.root, p.src.Key, p.cur)
			}
			inBatch = inBatch[:0]
			return save(last)
		}
		out, err := e.Store.Upsert(ctx, batch, store.Stamp{Adapter: a.Name(), PondVersion: e.Stamp.PondVersion})
		if err != nil {
			return err
		}
		ar.Inserted.Add(out.Inserted)
		ar.Matched.Add(out.Matched)
		ar.Rejected.Add(out.Rejected)
		for _, r := range out.Rows {
			if r.Error != "" {
				e.Log.Warn("capture: row rejected", "adapter", a.Name(), "key", r.Key.String(), "error", r.Error)
			}
		}
		for _, p := range inBatch {
			cursors.Set(p.root, p.src.Key, p.cur)
		}
		budget.release(batchBytes)
		clear(batch) // drop the stored events now, not when the slice is next overwritten
		batch, batchBytes, batchSessions, inBatch = batch[:0], 0, 0, inBatch[:0]
		return save(last)
	}

	done := unscanned
	for r := range results {
		done++
		switch {
		case r.skip != "":
			ar.Skipped[r.skip]++
			e.progress(opts, a.Name(), done, ar.Sources)
			continue
		case !r.read && r.known: // dry run
			ar.Updated++
			continue
		case !r.read:
			ar.New++
			continue
		}
		em := r.em
		ar.MalformedCount += len(em.malformed)
		for _, p := range em.malformed {
			if len(ar.Malformed) < maxProblems {
				ar.Malformed = append(ar.Malformed, p)
			}
		}
		for k, n := range em.unknown {
			ar.Unknown[k] += n
		}
		if r.err != nil {
			budget.release(em.bytes)
			ar.Skipped[SkipUnimportable]++
			if len(ar.Unreadable) < maxProblems {
				ar.Unreadable = append(ar.Unreadable, view.Problem{Path: r.src.Path, Error: r.err.Error()})
			}
			e.Log.Warn("capture: source unreadable", "adapter", a.Name(), "source", r.src.Key, "error", r.err)
			continue
		}
		next := r.next
		if next.Stamp == "" {
			next.Stamp = r.src.Stamp
		}
		switch {
		case len(em.events) == 0 && !r.known:
			ar.Skipped[SkipEmpty]++
		case r.known:
			ar.Updated++
		default:
			ar.New++
		}
		batch = append(batch, em.events...)
		batchBytes += em.bytes
		batchSessions++
		inBatch = append(inBatch, pending{r.root, r.src, next})
		if batchSessions >= opts.FlushSessions || batchBytes >= opts.FlushBytes {
			if err := flush(false); err != nil {
				return nil, err
			}
		}
		e.progress(opts, a.Name(), done, ar.Sources)
	}
	if err := ctx.Err(); err != nil {
		if unsaved { // what was committed need not be read again
			_ = e.Cursors.Save(a.Name(), cursors)
		}
		return nil, err
	}
	if !opts.DryRun {
		if err := flush(true); err != nil {
			return nil, err
		}
		if settle(roots, scanned, cursors, e.Stamp.PondVersion) {
			if err := e.Cursors.SaveRoots(a.Name(), roots); err != nil {
				return nil, err
			}
		}
	}
	if len(ar.Skipped) == 0 {
		ar.Skipped = nil
	}
	if len(ar.Unknown) == 0 {
		ar.Unknown = nil
	}
	return ar, nil
}

// readSources classifies each job and reads those that changed, sending one result per job in
// order, and closes out when done or when ctx ends.
func (e *Engine) readSources(ctx context.Context, a adapters.Adapter, jobs []job, dryRun bool, out chan<- readResult, budget *budget) {
	defer close(out)
	for _, j := range jobs {
		r := readResult{job: j}
		switch {
		case j.src.Skip != "":
			r.skip = j.src.Skip
		case j.known && j.cur.Stamp == j.src.Stamp:
			r.skip = SkipFresh
		case dryRun:
		default:
			if !budget.wait() {
				return
			}
			r.read, r.em = true, &emitter{}
			r.next, r.err = a.Read(ctx, e.Env, j.src, j.cur, r.em)
			budget.take(r.em.bytes)
		}
		if ctx.Err() != nil {
			return
		}
		select {
		case out <- r:
		case <-ctx.Done():
			return
		}
	}
}

// budget bounds the bytes read but not yet stored. The reader waits while the budget is spent
// (it may overshoot by one source, so one huge session never stalls the sync); the writer
// releases a batch's bytes once it is stored.
type budget struct {
	mu      sync.Mutex
	cond    *sync.Cond
	limit   int64
	used    int64
	stopped bool
}

func newBudget(limit int64) *budget {
	b := &budget{limit: limit}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// wait blocks until the budget has room; false when stopped.
func (b *budget) wait() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.used >= b.limit && !b.stopped {
		b.cond.Wait()
	}
	return !b.stopped
}

func (b *budget) take(n int64) {
	b.mu.Lock()
	b.used += n
	b.mu.Unlock()
}

func (b *budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

func (b *budget) stop() {
	b.mu.Lock()
	b.stopped = true
	b.mu.Unlock()
	b.cond.Broadcast()
}

func (e *Engine) progress(opts Options, adapter string, done, total int) {
	if opts.Progress != nil {
		opts.Progress(view.SyncProgress{Adapter: adapter, Done: done, Total: total})
	}
}

// emitter buffers one source's events.
type emitter struct {
	events    []session.Event
	bytes     int64
	malformed []view.Problem
	unknown   map[string]int
}

func (m *emitter) Event(ev session.Event) error {
	m.events = append(m.events, ev)
	m.bytes += ev.Size()
	return nil
}

func (m *emitter) Malformed(at adapters.Location, err error) {
	m.malformed = append(m.malformed, view.Problem{Path: at.Path, Line: at.Line, Error: err.Error()})
}

func (m *emitter) Unknown(at adapters.Location, what string) {
	if m.unknown == nil {
		m.unknown = map[string]int{}
	}
	m.unknown[what]++
}

// cursorSaveEvery bounds how often a long sync rewrites an adapter's cursor file.
const cursorSaveEvery = time.Second
