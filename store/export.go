package store

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
)

// Export writes sessions (all of them when ids is empty) as canonical JSONL: per session its
// session event, then each message followed by its parts. Import reads it back losslessly.
// It returns the number of sessions written.
func (s *Store) Export(ctx context.Context, w io.Writer, ids []string) (int, error) {
	if len(ids) == 0 {
		var err error
		if ids, err = s.SessionIDs(ctx); err != nil {
			return 0, err
		}
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i, id := range ids {
		if err := ctx.Err(); err != nil {
			return i, err
		}
		t, err := s.ReadTranscript(ctx, id)
		if err != nil {
			return i, err
		}
		for _, e := range t.Events() {
			if err := enc.Encode(e); err != nil {
				return i, fmt.Errorf("store: export %s: %w", id, err)
			}
		}
	}
	return len(ids), bw.Flush()
}

// Import reads canonical JSONL (as Export writes it, or as the ingest route accepts it) and
// stores it in batches of about batchEvents events, cut only between sessions so each batch
// stands on its own. A line that is not a valid event is counted and reported; the rest is
// kept.
func (s *Store) Import(ctx context.Context, r io.Reader, batchEvents int, stamp Stamp) (*view.ImportSummary, error) {
	if batchEvents <= 0 {
		batchEvents = 50_000
	}
	sum := &view.ImportSummary{}
	var pending []session.Event
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		out, err := s.Upsert(ctx, pending, stamp)
		if err != nil {
			return err
		}
		for _, k := range []struct{ dst, src *view.Tally }{{&sum.Inserted, &out.Inserted}, {&sum.Matched, &out.Matched}, {&sum.Rejected, &out.Rejected}} {
			k.dst.Sessions += k.src.Sessions
			k.dst.Messages += k.src.Messages
			k.dst.Parts += k.src.Parts
		}
		for _, row := range out.Rows {
			if row.Error != "" && len(sum.Errors) < 100 {
				sum.Errors = append(sum.Errors, row.Error)
			}
		}
		pending = pending[:0]
		return nil
	}
	br := bufio.NewReaderSize(r, 1<<20)
	line := 0
	for {
		raw, err := br.ReadBytes('\n')
		if len(raw) > 0 {
			line++
			var e session.Event
			if jerr := json.Unmarshal(raw, &e); jerr != nil {
				if len(sum.Errors) < 100 {
					sum.Errors = append(sum.Errors, fmt.Sprintf("line %d: %v", line, jerr))
				}
				sum.Malformed++
			} else {
				sum.Events++
				if e.Kind() == session.KindSession && len(pending) >= batchEvents {
					if ferr := flush(); ferr != nil {
						return sum, ferr
					}
				}
				pending = append(pending, e)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return sum, err
		}
	}
	return sum, flush()
}
