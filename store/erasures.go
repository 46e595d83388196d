package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/pondhq/pond/store/lance"
	"github.com/pondhq/pond/store/sqlite"
)

// TableErasures is the archive's log of erasures, lifts and rewrites, so that every machine
// writing a shared archive learns of them when it catches up: an erase on one machine takes the
// sessions out of the other machines' mirrors and puts them on their denylists, so none
// captures them again from its own copy of the agent's files; a lift takes them off; a rewrite
// (pond redact --all) replaces a mirror's copy of the session with what Lance now holds, so
// the secrets it hid leave every mirror. Each machine's denylist (erased.json) stays the one a
// write consults, and keeps what an unfinished erase left to do.
const TableErasures = "erasures"

var erasuresSchema = arrow.NewSchema([]arrow.Field{
	str("session_id", false),
	str("agent", true),
	i64("at"),            // microseconds since the epoch
	str("action", false), // erased, lifted or rewritten
	i64("ingest_seq"),
}, nil)

// erasure is one entry of the log.
type erasure struct {
	SessionID, Agent string
	At               time.Time
	Action           string
}

// The actions of the log.
const (
	actionErased    = "erased"
	actionLifted    = "lifted"
	actionRewritten = "rewritten"
)

// openErasures opens the erasures table, creating it when missing (not in a read-only store,
// whose archive may predate it).
func (s *Store) openErasures(ctx context.Context, existing []string) error {
	var err error
	switch {
	case slices.Contains(existing, TableErasures):
		s.erasures, err = s.db.OpenTable(ctx, TableErasures)
	case s.opts.ReadOnly:
		return nil
	default:
		if s.erasures, err = s.db.CreateTable(ctx, TableErasures, erasuresSchema); err != nil {
			// Another machine may have created it first.
			if t, err2 := s.db.OpenTable(ctx, TableErasures); err2 == nil {
				s.erasures, err = t, nil
			}
		}
	}
	return err
}

// logErasures appends entries to the log, numbered as this machine's, and marks them seen by
// this mirror. Callers hold the store lock.
func (s *Store) logErasures(ctx context.Context, entries []erasure) error {
	if len(entries) == 0 || s.erasures == nil {
		return nil
	}
	seq, err := s.lastSeq(ctx)
	if err != nil {
		return err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, erasuresSchema)
	defer b.Release()
	for _, e := range entries {
		seq++
		b.Field(0).(*array.StringBuilder).Append(e.SessionID)
		if e.Agent == "" {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(e.Agent)
		}
		b.Field(2).(*array.Int64Builder).Append(e.At.UnixMicro())
		b.Field(3).(*array.StringBuilder).Append(e.Action)
		b.Field(4).(*array.Int64Builder).Append(seq)
	}
	rec := b.NewRecord()
	defer rec.Release()
	if err := s.erasures.Append(ctx, rec); err != nil {
		return fmt.Errorf("store: log erasures: %w", err)
	}
	return s.mirror.RaiseMarks(ctx, TableErasures, map[int64]int64{sqlite.WriterOf(seq): seq})
}

// catchUpErasures applies the log entries this mirror has not seen, other machines' erasures,
// lifts and rewrites: erased sessions go on the denylist and out of the mirror, lifted ones
// off the denylist, rewritten ones out of the mirror and back in from Lance. Callers hold the
// store lock.
func (s *Store) catchUpErasures(ctx context.Context) error {
	if s.erasures == nil {
		return nil
	}
	v, err := s.erasures.Version(ctx)
	if err != nil {
		return err
	}
	if known, ok := s.versions[TableErasures]; ok && known == v {
		return nil
	}
	marks, err := s.mirror.Watermarks(ctx, TableErasures)
	if err != nil {
		return err
	}
	var entries []erasure
	seen := map[int64]int64{}
	q := lance.Query{Columns: []string{"session_id", "agent", "at", "action", "ingest_seq"}, Filter: missingFilter(marks), BatchRows: 4096}
	err = s.erasures.Scan(ctx, q, func(r arrow.Record) error {
		ids, agents := r.Column(0).(*array.String), r.Column(1).(*array.String)
		at, actions, seqs := r.Column(2).(*array.Int64), r.Column(3).(*array.String), r.Column(4).(*array.Int64)
		for i := range int(r.NumRows()) {
			entries = append(entries, erasure{SessionID: ids.Value(i), Agent: agents.Value(i), At: time.UnixMicro(at.Value(i)).UTC(), Action: actions.Value(i)})
			w := sqlite.WriterOf(seqs.Value(i))
			seen[w] = max(seen[w], seqs.Value(i))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: read the erasures log: %w", err)
	}
	if len(entries) > 0 {
		slices.SortStableFunc(entries, func(a, b erasure) int { return a.At.Compare(b.At) })
		erased, rewritten, err := s.applyErasures(entries)
		if err != nil {
			return err
		}
		stored, err := s.mirror.Sessions(ctx, append(erased, rewritten...))
		if err != nil {
			return err
		}
		var present []string
		for _, id := range append(erased, rewritten...) {
			if _, ok := stored[id]; ok {
				present = append(present, id)
			}
		}
		if len(present) > 0 {
			s.log.Info("store: sessions erased or rewritten on another machine leave the mirror", "sessions", len(present))
			if err := s.closeSearchDB(); err != nil {
				s.log.Warn("store: close the search pool before erasing", "error", err)
			}
			if err := s.mirror.Erase(ctx, present); err != nil {
				return err
			}
		}
		// A rewritten session comes back as Lance holds it now.
		for _, ids := range chunkIDs(rewritten, 200) {
			for _, name := range []string{TableMessages, TableParts, TableSessions} {
				col := "session_id"
				if name == TableSessions {
					col = "id"
				}
				if err := s.replay(ctx, name, inFilter(col, ids)); err != nil {
					return err
				}
			}
		}
		if err := s.mirror.RaiseMarks(ctx, TableErasures, seen); err != nil {
			return err
		}
	}
	s.versions[TableErasures] = v
	return nil
}

// applyErasures puts the log's entries, in time order, on the denylist (an entry already there
// keeps its state, pending or not) or takes them off, and returns the sessions left erased, and
// those rewritten and not erased.
func (s *Store) applyErasures(entries []erasure) (erased, rewritten []string, err error) {
	if err := s.loadDenylist(); err != nil {
		return nil, nil, err
	}
	s.denied.mu.Lock()
	defer s.denied.mu.Unlock()
	last := map[string]string{} // session -> its last action
	for _, e := range entries {
		switch e.Action {
		case actionLifted:
			delete(s.denied.entries, e.SessionID)
		case actionErased:
			if _, ok := s.denied.entries[e.SessionID]; !ok {
				s.denied.entries[e.SessionID] = ErasedEntry{Agent: e.Agent, ErasedAt: e.At}
			}
		case actionRewritten:
		default:
			continue // an action of a later Pond
		}
		if e.Action != actionRewritten || last[e.SessionID] != actionErased {
			last[e.SessionID] = e.Action
		}
	}
	for id, a := range last {
		switch a {
		case actionErased:
			erased = append(erased, id)
		case actionRewritten:
			rewritten = append(rewritten, id)
		}
	}
	slices.Sort(erased)
	slices.Sort(rewritten)
	return erased, rewritten, s.saveDenylistLocked()
}

// chunkIDs splits ids into runs of at most n.
func chunkIDs(ids []string, n int) [][]string {
	var out [][]string
	for len(ids) > 0 {
		k := min(n, len(ids))
		out = append(out, ids[:k])
		ids = ids[k:]
	}
	return out
}
