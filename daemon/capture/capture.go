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
	"maps"
	"slices"
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
	// Exclude holds the projects never captured: a source whose path names one is not opened
	// (adapters.SourceExcluder), and the rows of a session in one are dropped as they are read.
	Exclude *adapters.Exclusions
}

// Skip reasons, stable tokens for scripts (adapters add superseded and unsupported).
const (
	SkipFresh        = "fresh"        // unchanged since the last read
	SkipEmpty        = "empty"        // the source holds no session yet
	SkipUnimportable = "unimportable" // the source could not be read
	SkipExcluded     = "excluded"     // its path names an excluded project
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
	if e.Env.Projects == nil && e.Store != nil {
		// The projects every agent's sessions name, where Aider keeps its history files.
		ps, err := e.Store.Projects(ctx)
		if err != nil {
			e.Log.Warn("capture: list the archive's projects", "error", err)
		}
		e.Env.Projects = ps
		defer func() { e.Env.Projects = nil }()
	}
	for _, t := range targets {
		ar, err := e.syncAdapter(ctx, t, opts)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			// One adapter's failure (its state files, the store refusing its rows) never
			// keeps the others from being captured.
			e.Log.Error("capture: adapter failed", "adapter", t.Adapter.Name(), "error", err)
			ar = &view.AdapterReport{Adapter: t.Adapter.Name(), Roots: t.Roots, Named: t.Named, Reason: "failed", Error: err.Error()}
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
	// chunk: the events of a source read so far, sent while Read goes on (a large source is
	// stored in several batches); only em.events and em.bytes are set, and next when the
	// adapter gave a cursor at the chunk's end (adapters.Checkpointer).
	chunk     bool
	chunkNext bool
	read      bool // Read ran: next, em and err hold its result
	next      adapters.Cursor
	em        *emitter
	err       error
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
	go e.readSources(rctx, a, jobs, opts, results, budget)
	defer func() {
		cancel()
		budget.stop()
		for range results { // let the reader finish before returning
		}
	}()

	// The batch is a run of units, each standing on its own (a source's events, or a chunk of
	// them, led by its session): starts[i] is where unit i begins, units[i] its source.
	var batch []session.Event
	var starts []int
	var units, unitPaths []string
	var batchBytes int64
	var batchSessions int
	var inBatch []pending
	failed := map[string]bool{} // sources whose rows the store refused: their cursors stay
	addUnit := func(root string, src adapters.Source, events []session.Event, n int64) {
		if len(events) == 0 {
			return
		}
		starts, units, unitPaths = append(starts, len(batch)), append(units, root+"\x00"+src.Key), append(unitPaths, src.Path)
		batch = append(batch, events...)
		batchBytes += n
	}
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
		stamp := store.Stamp{Adapter: a.Name(), PondVersion: e.Stamp.PondVersion}
		refused, err := split(len(starts), func(lo, hi int) error {
			end := len(batch)
			if hi < len(starts) {
				end = starts[hi]
			}
			out, err := e.Store.Upsert(ctx, batch[starts[lo]:end], stamp)
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
			return nil
		}, func(error) bool { return ctx.Err() != nil })
		if err != nil {
			return err
		}
		for _, i := range slices.Sorted(maps.Keys(refused)) {
			if failed[units[i]] {
				continue
			}
			failed[units[i]] = true
			if len(ar.Unreadable) < maxProblems {
				ar.Unreadable = append(ar.Unreadable, view.Problem{Path: unitPaths[i], Error: refused[i].Error()})
			}
			e.Log.Warn("capture: the store refused a source's rows", "adapter", a.Name(), "source", unitPaths[i], "error", refused[i])
		}
		for _, p := range inBatch {
			if !failed[p.root+"\x00"+p.src.Key] {
				cursors.Set(p.root, p.src.Key, p.cur)
			}
		}
		budget.release(batchBytes)
		clear(batch) // drop the stored events now, not when the slice is next overwritten
		batch, starts, units, unitPaths = batch[:0], starts[:0], units[:0], unitPaths[:0]
		batchBytes, batchSessions, inBatch = 0, 0, inBatch[:0]
		return save(last)
	}

	done := unscanned
	for r := range results {
		if r.chunk {
			addUnit(r.root, r.src, r.em.events, r.em.bytes)
			if r.chunkNext { // stored with this batch, the source need not be read again before it
				inBatch = append(inBatch, pending{r.root, r.src, r.next})
			}
			if batchBytes >= opts.FlushBytes {
				if err := flush(false); err != nil {
					return nil, err
				}
			}
			continue
		}
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
		ar.MalformedCount += em.malformedCount
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
		case len(em.events) == 0 && em.chunks == 0 && !r.known:
			ar.Skipped[SkipEmpty]++
		case r.known:
			ar.Updated++
		default:
			ar.New++
		}
		addUnit(r.root, r.src, em.events, em.bytes)
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

// split stores units 0..n-1 through store, which stores a run of them (lo..hi-1) or fails. A
// run the store refuses is split in halves until each unit it refuses stands alone, so that
// one bad source never blocks the others: it returns those units with their errors. When it
// refuses every unit of several, the store itself is failing: that is the error. An error for
// which stop is true (the context ended) ends it.
func split(n int, store func(lo, hi int) error, stop func(error) bool) (map[int]error, error) {
	refused := map[int]error{}
	var run func(lo, hi int) error
	run = func(lo, hi int) error {
		err := store(lo, hi)
		switch {
		case err == nil:
			return nil
		case stop(err):
			return err
		case hi-lo == 1:
			refused[lo] = err
			return nil
		}
		mid := lo + (hi-lo)/2
		if err := run(lo, mid); err != nil {
			return err
		}
		return run(mid, hi)
	}
	if n == 0 {
		return nil, nil
	}
	if err := run(0, n); err != nil {
		return nil, err
	}
	if n > 1 && len(refused) == n {
		return nil, refused[0]
	}
	return refused, nil
}

// readSources classifies each job and reads those that changed, sending one result per job in
// order, and closes out when done or when ctx ends.
func (e *Engine) readSources(ctx context.Context, a adapters.Adapter, jobs []job, opts Options, out chan<- readResult, budget *budget) {
	defer close(out)
	dryRun, chunkBytes := opts.DryRun, opts.FlushBytes
	excluder, _ := a.(adapters.SourceExcluder)
	for _, j := range jobs {
		r := readResult{job: j}
		switch {
		case j.src.Skip != "":
			r.skip = j.src.Skip
		case excluder != nil && excluder.ExcludedSource(j.root, j.src, opts.Exclude):
			r.skip = SkipExcluded
		case j.known && j.cur.Stamp == j.src.Stamp:
			r.skip = SkipFresh
		case dryRun:
		default:
			if !budget.wait() {
				return
			}
			// A source larger than a batch goes to the writer in chunks while it is read, so
			// that memory stays bounded however large it is. A chunk the adapter gave a cursor
			// for moves the source's cursor once stored; otherwise it moves only when the
			// source has been read whole (a crash in between reads it again, and the store
			// matches what was stored).
			send := func(events []session.Event, n int64, next *adapters.Cursor) error {
				budget.take(n)
				c := readResult{job: j, chunk: true, em: &emitter{events: events, bytes: n}}
				if next != nil {
					c.next, c.chunkNext = *next, true
				}
				select {
				case out <- c:
				case <-ctx.Done():
					return ctx.Err()
				}
				if !budget.wait() {
					return context.Canceled
				}
				return nil
			}
			r.read, r.em = true, &emitter{send: send, limit: chunkBytes, exclude: opts.Exclude}
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

// emitter buffers one source's events. With send set, once it holds limit bytes it hands them
// over (the chunk goes to the store while the source is still read) and goes on with a new
// chunk, which it opens with the session (and the message, when parts follow) the next events
// belong to, so that every chunk stands on its own as an incremental read does.
type emitter struct {
	events         []session.Event
	bytes          int64
	malformed      []view.Problem // the first maxProblems
	malformedCount int
	unknown        map[string]int
	chunks         int // chunks handed over before these events

	send  func(events []session.Event, n int64, next *adapters.Cursor) error
	limit int64
	ckpt  *adapters.Cursor // the adapter's cursor after the events held, when it gave one
	// What a new chunk may need to repeat: the source's sessions and its last message, as
	// copies once a chunk holding them was handed over (the writer normalises what it stores
	// in place).
	sessions map[string]*session.Session
	lastMsg  *session.Message
	inChunk  map[session.Key]bool // sessions and messages the current chunk holds
	// exclude drops the sessions of excluded projects (and their sub-agents), remembered in
	// dropped, before anything of them is held.
	exclude *adapters.Exclusions
	dropped map[string]bool
}

func (m *emitter) Event(ev session.Event) error {
	if !m.exclude.Empty() {
		id := ev.Key().SessionID
		if s := ev.Session; s != nil && (m.exclude.Project(s.Project) || m.dropped[s.ParentSessionID]) {
			if m.dropped == nil {
				m.dropped = map[string]bool{}
			}
			m.dropped[id] = true
		}
		if m.dropped[id] {
			return nil
		}
	}
	if m.send != nil {
		if m.bytes >= m.limit {
			if err := m.cut(); err != nil {
				return err
			}
		}
		m.track(ev)
	}
	m.events = append(m.events, ev)
	m.bytes += ev.Size()
	return nil
}

// cut hands the current chunk over and starts the next.
func (m *emitter) cut() error {
	for id, s := range m.sessions {
		c := *s
		c.Options = s.Options.Clone()
		m.sessions[id] = &c
	}
	if m.lastMsg != nil {
		c := *m.lastMsg
		c.Options = m.lastMsg.Options.Clone()
		m.lastMsg = &c
	}
	events, n, next := m.events, m.bytes, m.ckpt
	m.events, m.bytes, m.ckpt = nil, 0, nil
	m.chunks++
	clear(m.inChunk)
	return m.send(events, n, next)
}

// WantCheckpoint implements adapters.Checkpointer: a cursor is of use just before a chunk is
// handed over.
func (m *emitter) WantCheckpoint() bool { return m.send != nil && m.bytes >= m.limit }

// Checkpoint implements adapters.Checkpointer.
func (m *emitter) Checkpoint(cur adapters.Cursor) { m.ckpt = &cur }

// track notes what ev is and, in a chunk that lacks them, first adds the session and message
// it belongs to.
func (m *emitter) track(ev session.Event) {
	if m.inChunk == nil {
		m.inChunk, m.sessions = map[session.Key]bool{}, map[string]*session.Session{}
	}
	need := func(k session.Key, add func() *session.Event) {
		if !m.inChunk[k] {
			if e := add(); e != nil {
				m.inChunk[k] = true
				m.events = append(m.events, *e)
				m.bytes += e.Size()
			}
		}
	}
	needSession := func(id string) {
		need(session.Key{SessionID: id}, func() *session.Event {
			if s := m.sessions[id]; s != nil {
				return &session.Event{Session: s}
			}
			return nil
		})
	}
	switch {
	case ev.Session != nil:
		m.sessions[ev.Session.ID] = ev.Session
	case ev.Message != nil:
		needSession(ev.Message.SessionID)
		m.lastMsg = ev.Message
	case ev.Part != nil:
		needSession(ev.Part.SessionID)
		need(session.Key{SessionID: ev.Part.SessionID, MessageID: ev.Part.MessageID}, func() *session.Event {
			if lm := m.lastMsg; lm != nil && lm.SessionID == ev.Part.SessionID && lm.ID == ev.Part.MessageID {
				return &session.Event{Message: lm}
			}
			return nil
		})
		return
	}
	m.inChunk[ev.Key()] = true
}

func (m *emitter) Malformed(at adapters.Location, err error) {
	m.malformedCount++
	if len(m.malformed) < maxProblems {
		m.malformed = append(m.malformed, view.Problem{Path: at.Path, Line: at.Line, Error: err.Error()})
	}
}

func (m *emitter) Unknown(at adapters.Location, what string) {
	if m.unknown == nil {
		m.unknown = map[string]int{}
	}
	m.unknown[what]++
}

// cursorSaveEvery bounds how often a long sync rewrites an adapter's cursor file.
const cursorSaveEvery = time.Second
