package store

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/lance"
	"github.com/pondhq/pond/store/redact"
	"github.com/pondhq/pond/store/sqlite"
)

// Status is what a write did with one row.
type Status string

// Row statuses.
const (
	Inserted Status = "inserted"
	Matched  Status = "matched" // already stored; left as it was
	Rejected Status = "error"
	// Erased rows belong to a session erased from the archive (the erase denylist): they are
	// not stored, and the write goes on as if they were.
	Erased Status = "erased"
)

// RowOutcome is the fate of one input event.
type RowOutcome struct {
	Index  int          `json:"index"`
	Kind   session.Kind `json:"kind"`
	Key    session.Key  `json:"pk"`
	Status Status       `json:"status"`
	Error  string       `json:"error,omitempty"`
}

// tallyRow adds a row of kind k to t.
func tallyRow(t *view.Tally, k session.Kind) {
	switch k {
	case session.KindSession:
		t.Sessions++
	case session.KindMessage:
		t.Messages++
	case session.KindPart:
		t.Parts++
	}
}

// Outcome is what one Upsert did.
type Outcome struct {
	Rows     []RowOutcome `json:"results"`
	Inserted view.Tally   `json:"inserted"`
	Matched  view.Tally   `json:"matched"`
	Rejected view.Tally   `json:"rejected"`
	// Erased counts rows of erased sessions, left out (see Erased).
	Erased view.Tally `json:"erased"`
	// Relabeled counts stored sessions a re-ingest gave another source_agent or project: the
	// stored labels are kept (they are immutable) and the new rows are written under them.
	Relabeled int `json:"relabeled_sessions"`
	// Reindexed counts stored messages that gained searchable parts in this write (an agent
	// still writing a message when it was first captured); their search text is recomputed.
	Reindexed int `json:"reindexed_messages"`
	// Phases is where the write's time went: lookup (validation and key lookups), encode,
	// lance (the three commits), mirror.
	Phases map[string]time.Duration `json:"-"`
}

// Stamp is the ingest provenance the store records on every message it inserts, under
// options.pond.ingest. Callers never supply it; the validator strips any they send.
type Stamp struct {
	// Adapter is the local adapter that captured the rows, or RouteAPI or RouteImport.
	Adapter     string `json:"adapter,omitempty"`
	PondVersion string `json:"pond_version,omitempty"`
	// KeepIngest keeps the options.pond.ingest a message already carries (session.Validator
	// .KeepIngest): rows written back by pond redact --all, or copied from another Pond archive
	// by pond copy, keep who captured them and when, so a copy holds the same events as its
	// source. A message without one is stamped as any other.
	KeepIngest bool `json:"-"`
}

// The routes by which rows from outside this machine's adapters arrive (Stamp.Adapter). Their
// rows are untrusted: options.source and options.pond are kept apart (session.Validator's
// Untrusted), a session from the API is the "api" agent's (the agent it names is kept apart
// too), and neither may add
// messages, parts or child sessions to a session a local adapter stored first, which a native
// restore would replay into the agent as its own.
const (
	RouteAPI    = "api"
	RouteImport = "import"
)

func (st Stamp) untrusted() bool { return st.Adapter == RouteAPI || st.Adapter == RouteImport }

type hostInfo struct {
	Username string `json:"username,omitempty"`
	Hostname string `json:"hostname,omitempty"`
}

var thisHost = sync.OnceValue(func() hostInfo {
	var h hostInfo
	if u, err := user.Current(); err == nil {
		h.Username = u.Username
	}
	h.Hostname, _ = os.Hostname()
	return h
})

// Upsert stores events (a stream: a session before its messages, a message before its parts),
// skipping every key already stored, under the store lock. Messages and parts are committed
// before sessions, so a crash never marks a session stored before its messages are; the mirror
// follows in one transaction. Re-running any prefix of a batch converges: no duplicates, no
// loss. Invalid events are rejected one by one (and with them what depends on them); the rest
// is stored.
func (s *Store) Upsert(ctx context.Context, events []session.Event, stamp Stamp) (*Outcome, error) {
	if s.opts.ReadOnly {
		return nil, ErrReadOnly
	}
	lock, err := AcquireLock(ctx, s.opts.StateDir, s.opts.Command, func(h Holder) {
		s.log.Info("store: waiting for the store lock", "holder", h.String())
	})
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	return s.upsertLocked(ctx, events, stamp)
}

func (s *Store) upsertLocked(ctx context.Context, events []session.Event, stamp Stamp) (*Outcome, error) {
	if err := s.loadDenylist(); err != nil {
		return nil, err
	}
	if err := s.catchUp(ctx); err != nil {
		return nil, fmt.Errorf("store: catch up the mirror: %w", err)
	}
	out := &Outcome{Rows: make([]RowOutcome, len(events)), Phases: map[string]time.Duration{}}
	phase := time.Now()
	mark := func(name string) {
		out.Phases[name] += time.Since(phase)
		phase = time.Now()
	}
	v := session.Validator{MaxValueBytes: s.opts.MaxValueBytes, Untrusted: stamp.untrusted(), KeepIngest: stamp.KeepIngest && !stamp.untrusted()}
	if stamp.Adapter == RouteAPI {
		v.AgentFamily = RouteAPI
	}
	var sessionIDs []string
	seenSession := map[string]bool{}
	for i := range events {
		e := &events[i]
		out.Rows[i] = RowOutcome{Index: i, Kind: e.Kind(), Key: e.Key()}
		if err := v.CheckKeys(e); err != nil {
			out.Rows[i].Status, out.Rows[i].Error = Rejected, err.Error()
			continue
		}
		if s.isDenied(e.Key().SessionID) {
			out.Rows[i].Status = Erased
			continue
		}
		if id := e.Key().SessionID; !seenSession[id] {
			seenSession[id] = true
			sessionIDs = append(sessionIDs, id)
		}
	}

	stored, err := s.mirror.Sessions(ctx, sessionIDs)
	if err != nil {
		return nil, err
	}
	msgKeys, err := s.mirror.MessageKeys(ctx, sessionIDs)
	if err != nil {
		return nil, err
	}
	partKeys, err := s.mirror.PartKeys(ctx, sessionIDs)
	if err != nil {
		return nil, err
	}
	var captured map[string]string // untrusted rows only: sessions (and parents) a local adapter stored
	if stamp.untrusted() {
		if captured, err = s.capturedHere(ctx, events, out.Rows, stored); err != nil {
			return nil, err
		}
	}
	// refused holds the sessions an untrusted row may not add to, with the reason.
	refused := map[string]error{}
	for id, agent := range captured {
		refused[id] = fmt.Errorf("session %s was captured on this machine (%s): rows from %s never add to it; send them as a session of their own", id, agent, stamp.Adapter)
	}

	b := &batch{seq: map[session.Key]int64{}, commits: map[string]int{}}
	labels := map[string]storedLabels{} // session id -> labels its messages carry
	relabeled := map[string]bool{}
	newMsgIndex := map[session.Key]int{} // new messages -> index into b.messages
	staleMsgs := map[session.Key]bool{}
	// Only rows to insert have their content checked; a new session or message whose content
	// is rejected takes its new messages and parts with it (the validator remembers it).
	reject := func(r *RowOutcome, err error) {
		r.Status, r.Error = Rejected, err.Error()
	}
	for i := range events {
		e := &events[i]
		r := &out.Rows[i]
		if r.Status == Rejected || r.Status == Erased {
			continue
		}
		switch e.Kind() {
		case session.KindSession:
			sess := e.Session
			if st, ok := stored[sess.ID]; ok {
				if st.SourceAgent != sess.SourceAgent || st.Project != sess.Project {
					relabeled[sess.ID] = true
				}
				labels[sess.ID] = storedLabels{st.SourceAgent, st.Project}
				r.Status = Matched
				continue
			}
			if _, dup := labels[sess.ID]; dup {
				r.Status = Matched // repeated in this batch
				continue
			}
			if err := refused[sess.ID]; err != nil { // its messages are stored, its row is not yet
				reject(r, err)
				continue
			}
			if agent, ok := captured[sess.ParentSessionID]; ok {
				err := fmt.Errorf("session %s names parent %s, which was captured on this machine (%s): rows from %s never add a child to it", sess.ID, sess.ParentSessionID, agent, stamp.Adapter)
				refused[sess.ID] = err
				reject(r, err)
				continue
			}
			if err := v.CheckContent(e); err != nil {
				reject(r, err)
				continue
			}
			labels[sess.ID] = storedLabels{sess.SourceAgent, sess.Project}
			b.sessions = append(b.sessions, sess)
			r.Status = Inserted
		case session.KindMessage:
			m := e.Message
			k := e.Key()
			if msgKeys[m.SessionID][m.ID] {
				r.Status = Matched
				continue
			}
			if _, dup := newMsgIndex[k]; dup {
				r.Status = Matched
				continue
			}
			if err := refused[m.SessionID]; err != nil {
				reject(r, err)
				continue
			}
			if err := v.CheckContent(e); err != nil {
				reject(r, err)
				continue
			}
			l := labels[m.SessionID]
			newMsgIndex[k] = len(b.messages)
			b.messages = append(b.messages, m)
			b.agent = append(b.agent, l.agent)
			b.project = append(b.project, l.project)
			r.Status = Inserted
		case session.KindPart:
			p := e.Part
			if partKeys[p.SessionID][p.MessageID+"\x00"+p.ID] {
				r.Status = Matched
				continue
			}
			pk := e.Key()
			if _, dup := b.seq[pk]; dup {
				r.Status = Matched
				continue
			}
			if err := refused[p.SessionID]; err != nil {
				reject(r, err)
				continue
			}
			mk := session.Key{SessionID: p.SessionID, MessageID: p.MessageID}
			if err := v.CheckContent(e); err != nil {
				reject(r, err)
				continue
			}
			b.seq[pk] = 0 // placeholder: marks the key as taken in this batch
			b.parts = append(b.parts, p)
			if _, isNew := newMsgIndex[mk]; !isNew && affectsSearch(p) {
				staleMsgs[mk] = true
			}
			r.Status = Inserted
		}
	}
	out.Relabeled = len(relabeled)
	for id := range relabeled {
		s.log.Warn("store: re-ingest disagrees with stored labels; keeping the stored ones", "session", id)
	}
	for _, r := range out.Rows {
		switch r.Status {
		case Inserted:
			tallyRow(&out.Inserted, r.Kind)
		case Matched:
			tallyRow(&out.Matched, r.Kind)
		case Rejected:
			tallyRow(&out.Rejected, r.Kind)
		case Erased:
			tallyRow(&out.Erased, r.Kind)
		}
	}
	if len(b.sessions)+len(b.messages)+len(b.parts) == 0 {
		return out, nil
	}
	var redacted redact.Counts
	if r := s.redactor(); r != nil {
		redacted = s.redactBatch(r, b)
	}
	updates, rewrite, err := s.recomputeSearchText(ctx, staleMsgs, b.parts)
	if err != nil {
		return nil, err
	}
	b.rewriteRecords = rewrite
	out.Reindexed = len(updates)

	mark("lookup")
	// Search text of each new message from its parts in this batch.
	partsOf := map[session.Key][]session.Part{}
	for _, p := range b.parts {
		mk := session.Key{SessionID: p.SessionID, MessageID: p.MessageID}
		if _, ok := newMsgIndex[mk]; ok {
			partsOf[mk] = append(partsOf[mk], *p)
		}
	}
	b.searchText = make([]string, len(b.messages))
	ingest := ingestStamp(stamp)
	for i, m := range b.messages {
		b.searchText[i] = session.SearchText(m, partsOf[session.Key{SessionID: m.SessionID, MessageID: m.ID}])
		if !stamp.KeepIngest || !hasIngest(m.Options) {
			m.Options = withIngest(m.Options, ingest)
		}
	}
	b.renderOptions()
	b.body = make([]string, len(b.parts))
	b.data = make([][]byte, len(b.parts))
	for i, p := range b.parts {
		b.body[i], b.data[i] = partBody(p)
	}

	// Sequence numbers continue after the last this machine gave (writer.go).
	seq, err := s.lastSeq(ctx)
	if err != nil {
		return nil, err
	}
	for _, m := range b.messages {
		seq++
		b.seq[session.Key{SessionID: m.SessionID, MessageID: m.ID}] = seq
	}
	for _, p := range b.parts {
		seq++
		b.seq[session.Key{SessionID: p.SessionID, MessageID: p.MessageID, PartID: p.ID}] = seq
	}
	for _, ss := range b.sessions {
		seq++
		b.seq[session.Key{SessionID: ss.ID}] = seq
	}
	for i := range updates {
		seq++
		updates[i].IngestSeq = seq
	}

	mark("encode")
	// Lance and the mirror are written at the same time; the mirror commits only after Lance
	// has, so it never holds a row Lance lacks (the key lookups above trust it).
	rows := b.mirrorRows()
	rows.Updates = updates
	lanceErr := make(chan error, 1)
	var lanceTime time.Duration
	go func() {
		t0 := time.Now()
		err := s.writeLance(ctx, b, updates)
		lanceTime = time.Since(t0)
		lanceErr <- err
	}()
	var lerr error
	waited := false
	var waitTime time.Duration
	merr := s.mirror.ApplyWhen(ctx, rows, func() error {
		t0 := time.Now()
		waited = true
		lerr = <-lanceErr
		waitTime = time.Since(t0)
		return lerr
	})
	if !waited {
		lerr = <-lanceErr // never return (and release the lock) while Lance is still writing
	}
	out.Phases["lance"] = lanceTime
	out.Phases["mirror"] = time.Since(phase) - waitTime // the mirror's own work, overlapping Lance's
	switch {
	case lerr != nil:
		return nil, lerr
	case merr != nil:
		return nil, fmt.Errorf("store: mirror: %w", merr)
	}
	if err := s.countRedacted(redacted); err != nil {
		s.log.Warn("store: count redacted secrets", "error", err)
	}
	// The mirror now reflects these Lance versions, unless another machine committed to the
	// table since the catch-up: then the versions are more than this batch's commits past
	// the known ones, and the next catch-up looks.
	for _, name := range tableNames {
		v, err := s.tables[name].Version(ctx)
		if err != nil {
			return nil, err
		}
		if known, ok := s.versions[name]; ok && v == known+uint64(b.commits[name]) {
			s.versions[name] = v
		} else {
			delete(s.versions, name)
		}
	}
	if s.appends >= refreshAfterAppends {
		s.appends = 0
		// Only memory is at stake: the write is committed whatever the refresh does.
		if err := s.db.Refresh(ctx, s.tables[TableSessions], s.tables[TableMessages], s.tables[TableParts]); err != nil {
			s.log.Warn("store: refresh the Lance connection", "error", err)
		}
	}
	return out, nil
}

// refreshAfterAppends is how many Lance commits the writer makes through one lancedb-go
// connection before it replaces it, dropping the metadata it caches per version. 50 rather
// than 150 took ~15 MiB off the peak of a 2,000-session sync, in the same time.
const refreshAfterAppends = 50

// writeLance appends the batch's messages, parts and then sessions to Lance, and sets the
// recomputed search text of stored messages.
func (s *Store) writeLance(ctx context.Context, b *batch, updates []sqlite.SearchTextUpdate) error {
	mem := memory.DefaultAllocator
	for _, w := range []struct {
		table string
		n     int
		size  func(i int) int
		build func(mem memory.Allocator, lo, hi int) arrow.Record
	}{
		{TableMessages, len(b.messages), func(i int) int { return 256 + len(b.messageOpts[i]) + len(b.searchText[i]) }, b.messageRecord},
		{TableParts, len(b.parts), func(i int) int { return 256 + len(b.body[i]) + len(b.data[i]) + len(b.partOpts[i]) }, b.partRecord},
		{TableSessions, len(b.sessions), func(i int) int { return 256 + len(b.sessionOpts[i]) }, b.sessionRecord},
	} {
		for _, c := range chunks(w.n, w.size, appendChunkBytes) {
			rec := w.build(mem, c[0], c[1])
			err := s.tables[w.table].Append(ctx, rec)
			s.appends++
			b.commits[w.table]++
			rec.Release()
			if err != nil {
				return fmt.Errorf("store: append %d rows to %s: %w", c[1]-c[0], w.table, err)
			}
		}
		if w.table == TableMessages && afterMessagesAppended != nil {
			afterMessagesAppended()
		}
	}
	if len(updates) == 0 {
		return nil
	}
	// Each raw record is stored against its row's search text (rawrecord.go): a new text that
	// does not extend the old goes in with the record, read and encoded against it.
	var keep, rewrite []sqlite.SearchTextUpdate
	var keys []sqlite.MessageKey
	for _, u := range updates {
		k := sqlite.MessageKey{SessionID: u.SessionID, MessageID: u.MessageID}
		if b.rewriteRecords[k] {
			rewrite, keys = append(rewrite, u), append(keys, k)
		} else {
			keep = append(keep, u)
		}
	}
	var records map[string]map[string]string
	if len(keys) > 0 {
		var err error
		if records, err = s.recordsOf(ctx, keys); err != nil {
			return fmt.Errorf("store: reindex: %w", err)
		}
	}
	// Recomputed search text goes in by key, one merge per chunk: a commit per message made
	// the sync after a crash (every message of the killed batch "gains" its parts) take one
	// Lance version each, each costlier than the last.
	for _, group := range []struct {
		updates []sqlite.SearchTextUpdate
		records map[string]map[string]string
	}{{keep, nil}, {rewrite, records}} {
		size := func(i int) int {
			u := group.updates[i]
			return 256 + len(u.SearchText) + len(group.records[u.SessionID][u.MessageID])
		}
		for _, c := range chunks(len(group.updates), size, appendChunkBytes) {
			rec := reindexRecord(mem, group.updates[c[0]:c[1]], group.records, &b.records)
			_, err := s.tables[TableMessages].MergeInsert(ctx, lance.MergeSpec{On: []string{"session_id", "id"}, UpdateMatched: true}, rec)
			s.appends++
			b.commits[TableMessages]++
			rec.Release()
			if err != nil {
				return fmt.Errorf("store: reindex %d messages: %w", c[1]-c[0], err)
			}
		}
	}
	return nil
}

// reindexSchema is the slice of the messages table a reindex writes: the new search text and
// sequence number, and no vector (the text it was computed from is gone); reindexRecordSchema
// adds the raw record, for texts that do not extend the old (rawrecord.go).
var reindexSchema = arrow.NewSchema([]arrow.Field{
	messagesSchema.Field(messagesSchema.FieldIndices("session_id")[0]),
	messagesSchema.Field(messagesSchema.FieldIndices("id")[0]),
	messagesSchema.Field(messagesSchema.FieldIndices("search_text")[0]),
	messagesSchema.Field(messagesSchema.FieldIndices("vector")[0]),
	messagesSchema.Field(messagesSchema.FieldIndices("embedding_model")[0]),
	messagesSchema.Field(messagesSchema.FieldIndices("ingest_seq")[0]),
}, nil)

var reindexRecordSchema = arrow.NewSchema(append(reindexSchema.Fields(), messagesSchema.Field(messagesSchema.FieldIndices("options")[0])), nil)

// reindexRecord gives the rows of a reindex, with their raw records encoded anew when records
// (the records as they are, by session and message id) is not nil.
func reindexRecord(mem memory.Allocator, updates []sqlite.SearchTextUpdate, records map[string]map[string]string, enc *recordEncoder) arrow.Record {
	schema := reindexSchema
	if records != nil {
		schema = reindexRecordSchema
	}
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	for _, u := range updates {
		appendStr(rb.Field(0), u.SessionID)
		appendStr(rb.Field(1), u.MessageID)
		appendOpt(rb.Field(2), u.SearchText)
		rb.Field(3).AppendNull()
		rb.Field(4).AppendNull()
		rb.Field(5).(*array.Int64Builder).Append(u.IngestSeq)
		if records != nil {
			appendBytesOpt(rb.Field(6), enc.encode(records[u.SessionID][u.MessageID], u.SearchText))
		}
	}
	return rb.NewRecord()
}

// afterMessagesAppended, set by the crash tests, runs once a batch's messages are committed to
// Lance and before its parts are: where a crash leaves every message "gaining" its parts.
var afterMessagesAppended func()

type storedLabels struct{ agent, project string }

// appendChunkBytes bounds one Lance append: larger batches are committed in several appends, so
// that the Arrow record and its IPC copy stay small. A crash between two appends
// is converged like any other by the next write.
const appendChunkBytes = 32 << 20

// recomputeSearchText works out the search text of stored messages that gained searchable
// parts in this batch, from their stored parts plus the new ones, and returns those whose text
// changed. After a crash between the appends of a batch, its messages are stored with the text
// of parts that were not: they "gain" them on the next write, and their text stays as it is
// (and so does any vector computed from it).
//
// A message's raw record is stored against its search text (rawrecord.go); rewrite holds the
// messages whose new text does not extend the old one, whose records are written again with it.
func (s *Store) recomputeSearchText(ctx context.Context, stale map[session.Key]bool, newParts []*session.Part) ([]sqlite.SearchTextUpdate, map[sqlite.MessageKey]bool, error) {
	if len(stale) == 0 {
		return nil, nil, nil
	}
	added := map[session.Key][]session.Part{}
	for _, p := range newParts {
		mk := session.Key{SessionID: p.SessionID, MessageID: p.MessageID}
		if stale[mk] {
			added[mk] = append(added[mk], *p)
		}
	}
	keys := make([]sqlite.MessageKey, 0, len(stale))
	for mk := range stale {
		keys = append(keys, sqlite.MessageKey{SessionID: mk.SessionID, MessageID: mk.MessageID})
	}
	stored, err := s.mirror.StoredMessages(ctx, keys)
	if err != nil {
		return nil, nil, err
	}
	var out []sqlite.SearchTextUpdate
	var rewrite map[sqlite.MessageKey]bool
	for mk := range stale {
		sm := stored[sqlite.MessageKey{SessionID: mk.SessionID, MessageID: mk.MessageID}]
		if sm == nil {
			return nil, nil, fmt.Errorf("store: message %s/%s is not in the mirror", mk.SessionID, mk.MessageID)
		}
		parts := make([]session.Part, 0, len(sm.Parts)+len(added[mk]))
		for _, sp := range sm.Parts {
			p := session.Part{SessionID: mk.SessionID, MessageID: mk.MessageID, ID: sp.ID, Type: session.PartType(sp.Type), Provenance: session.Provenance(sp.Provenance)}
			if err := partFromBody(&p, sp.VariantData, nil); err != nil {
				return nil, nil, err
			}
			parts = append(parts, p)
		}
		parts = append(parts, added[mk]...)
		text := session.SearchText(&session.Message{ID: mk.MessageID, Role: session.Role(sm.Role)}, parts)
		if text != sm.SearchText {
			out = append(out, sqlite.SearchTextUpdate{SessionID: mk.SessionID, MessageID: mk.MessageID, SearchText: text})
			if !referenceExtends(text, sm.SearchText) {
				if rewrite == nil {
					rewrite = map[sqlite.MessageKey]bool{}
				}
				rewrite[sqlite.MessageKey{SessionID: mk.SessionID, MessageID: mk.MessageID}] = true
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].SessionID+"\x00"+out[i].MessageID < out[j].SessionID+"\x00"+out[j].MessageID
	})
	return out, rewrite, nil
}

// affectsSearch reports whether a part contributes to its message's search text.
func affectsSearch(p *session.Part) bool {
	return p.Provenance == session.Conversational && (p.Type == session.PartText || p.Type == session.PartFile)
}

// capturedHere returns, of the sessions events name (as their own or as a parent), those a
// local adapter stored first, each with its source agent: the sessions untrusted rows may not
// add to. Who stored a session is who stored its first message; a stored session without
// messages counts as captured here unless its source agent is in the API's family (an
// import's labels are the exporting machine's, so only the API's can be told apart).
func (s *Store) capturedHere(ctx context.Context, events []session.Event, rows []RowOutcome, stored map[string]sqlite.StoredSession) (map[string]string, error) {
	var ids []string
	seen := map[string]bool{}
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for i := range events {
		if rows[i].Status == Rejected || rows[i].Status == Erased {
			continue
		}
		add(events[i].Key().SessionID)
		if e := events[i].Session; e != nil {
			add(e.ParentSessionID)
		}
	}
	parents := map[string]sqlite.StoredSession{}
	var unknown []string
	for _, id := range ids {
		if _, ok := stored[id]; !ok {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		var err error
		if parents, err = s.mirror.Sessions(ctx, unknown); err != nil {
			return nil, err
		}
	}
	first, err := s.mirror.FirstIngest(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, id := range ids {
		st, isStored := stored[id]
		if !isStored {
			st, isStored = parents[id]
		}
		adapter, hasMessages := first[id]
		switch {
		case hasMessages && adapter != RouteAPI && adapter != RouteImport:
			out[id] = cmp.Or(st.SourceAgent, adapter)
		case !hasMessages && isStored && st.SourceAgent != RouteAPI && !strings.HasPrefix(st.SourceAgent, RouteAPI+"/"):
			out[id] = st.SourceAgent
		}
	}
	return out, nil
}

func ingestStamp(st Stamp) json.RawMessage {
	b, _ := json.Marshal(struct {
		Host        hostInfo `json:"host"`
		At          string   `json:"at"`
		Adapter     string   `json:"adapter,omitempty"`
		PondVersion string   `json:"pond_version,omitempty"`
	}{thisHost(), time.Now().UTC().Format(time.RFC3339Nano), st.Adapter, st.PondVersion})
	return b
}

// hasIngest reports whether o carries options.pond.ingest.
func hasIngest(o session.Options) bool {
	var pond map[string]json.RawMessage
	if raw, ok := o["pond"]; !ok || json.Unmarshal(raw, &pond) != nil {
		return false
	}
	_, ok := pond["ingest"]
	return ok
}

// withIngest returns o with options.pond.ingest set to stamp, keeping other pond keys.
func withIngest(o session.Options, stamp json.RawMessage) session.Options {
	o = o.Clone()
	if o == nil {
		o = session.Options{}
	}
	pond := map[string]json.RawMessage{}
	if raw, ok := o["pond"]; ok {
		_ = json.Unmarshal(raw, &pond)
	}
	pond["ingest"] = stamp
	o["pond"], _ = json.Marshal(pond)
	return o
}
