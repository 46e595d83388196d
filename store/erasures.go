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

// TableErasures is the archive's log of erasures and lifts, so that every machine writing a
// shared archive learns of them: an erase on one machine takes the sessions out of the other
// machines' mirrors when they catch up, and puts them on their denylists, so none captures
// them again from its own copy of the agent's files; a lift takes them off. Each machine's
// denylist (erased.json) stays the one a write consults, and keeps what an unfinished erase
// left to do.
const TableErasures = "erasures"

var erasuresSchema = arrow.NewSchema([]arrow.Field{
	str("session_id", false),
	str("agent", true),
	i64("at"), // microseconds since the epoch
	{Name: "lifted", Type: arrow.FixedWidthTypes.Boolean},
	i64("ingest_seq"),
}, nil)

// erasure is one entry of the log.
type erasure struct {
	SessionID, Agent string
	At               time.Time
	Lifted           bool
}

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
		b.Field(3).(*array.BooleanBuilder).Append(e.Lifted)
		b.Field(4).(*array.Int64Builder).Append(seq)
	}
	rec := b.NewRecord()
	defer rec.Release()
	if err := s.erasures.Append(ctx, rec); err != nil {
		return fmt.Errorf("store: log erasures: %w", err)
	}
	return s.mirror.RaiseMarks(ctx, TableErasures, map[int64]int64{sqlite.WriterOf(seq): seq})
}

// catchUpErasures applies the log entries this mirror has not seen, other machines' erasures
// and lifts: erased sessions go on the denylist and out of the mirror, lifted ones off the
// denylist. Callers hold the store lock.
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
	q := lance.Query{Columns: []string{"session_id", "agent", "at", "lifted", "ingest_seq"}, Filter: missingFilter(marks), BatchRows: 4096}
	err = s.erasures.Scan(ctx, q, func(r arrow.Record) error {
		ids, agents := r.Column(0).(*array.String), r.Column(1).(*array.String)
		at, lifted, seqs := r.Column(2).(*array.Int64), r.Column(3).(*array.Boolean), r.Column(4).(*array.Int64)
		for i := range int(r.NumRows()) {
			entries = append(entries, erasure{SessionID: ids.Value(i), Agent: agents.Value(i), At: time.UnixMicro(at.Value(i)).UTC(), Lifted: lifted.Value(i)})
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
		erased, err := s.applyErasures(entries)
		if err != nil {
			return err
		}
		stored, err := s.mirror.Sessions(ctx, erased)
		if err != nil {
			return err
		}
		var present []string
		for _, id := range erased {
			if _, ok := stored[id]; ok {
				present = append(present, id)
			}
		}
		if len(present) > 0 {
			s.log.Info("store: sessions erased on another machine leave the mirror", "sessions", len(present))
			if err := s.closeSearchDB(); err != nil {
				s.log.Warn("store: close the search pool before erasing", "error", err)
			}
			if err := s.mirror.Erase(ctx, present); err != nil {
				return err
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
// keeps its state, pending or not) or takes them off, and returns the sessions left erased.
func (s *Store) applyErasures(entries []erasure) ([]string, error) {
	if err := s.loadDenylist(); err != nil {
		return nil, err
	}
	s.denied.mu.Lock()
	defer s.denied.mu.Unlock()
	last := map[string]bool{} // session -> erased after the entries
	for _, e := range entries {
		if e.Lifted {
			delete(s.denied.entries, e.SessionID)
		} else if _, ok := s.denied.entries[e.SessionID]; !ok {
			s.denied.entries[e.SessionID] = ErasedEntry{Agent: e.Agent, ErasedAt: e.At}
		}
		last[e.SessionID] = !e.Lifted
	}
	var erased []string
	for id, on := range last {
		if on {
			erased = append(erased, id)
		}
	}
	slices.Sort(erased)
	return erased, s.saveDenylistLocked()
}
