package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/pondhq/pond/internal/atomicfile"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/redact"
)

// redactedFile, in the data directory, counts the secrets replaced so far, per rule.
const redactedFile = "redacted.json"

// redaction is the store's side of opt-in secret redaction.
type redaction struct {
	mu     sync.Mutex
	r      *redact.Redactor // nil: off
	counts redact.Counts    // loaded on first use
}

// SetRedaction turns secret redaction of new rows on or off (config privacy.redact). The rule
// set is loaded the first time it is turned on.
func (s *Store) SetRedaction(on bool) error {
	s.redaction.mu.Lock()
	defer s.redaction.mu.Unlock()
	if !on {
		s.redaction.r = nil
		return nil
	}
	if s.redaction.r != nil {
		return nil
	}
	r, err := redact.New()
	if err != nil {
		return err
	}
	s.redaction.r = r
	return nil
}

func (s *Store) redactor() *redact.Redactor {
	s.redaction.mu.Lock()
	defer s.redaction.mu.Unlock()
	return s.redaction.r
}

// Redaction reports whether redaction is on and the secrets replaced so far, per rule.
func (s *Store) Redaction() (view.Redaction, error) {
	s.redaction.mu.Lock()
	defer s.redaction.mu.Unlock()
	if err := s.loadRedactedLocked(); err != nil {
		return view.Redaction{}, err
	}
	out := view.Redaction{Enabled: s.redaction.r != nil, Rules: map[string]int{}}
	for k, v := range s.redaction.counts {
		out.Rules[k] = v
		out.Total += v
	}
	return out, nil
}

func (s *Store) loadRedactedLocked() error {
	if s.redaction.counts != nil {
		return nil
	}
	s.redaction.counts = redact.Counts{}
	b, err := os.ReadFile(filepath.Join(s.opts.DataDir, redactedFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		err = json.Unmarshal(b, &s.redaction.counts)
	}
	if err != nil {
		return fmt.Errorf("store: redaction counts: %w", err)
	}
	return nil
}

// countRedacted adds c to the counts on disk; the caller holds the store lock.
func (s *Store) countRedacted(c redact.Counts) error {
	if len(c) == 0 {
		return nil
	}
	s.redaction.mu.Lock()
	defer s.redaction.mu.Unlock()
	if err := s.loadRedactedLocked(); err != nil {
		return err
	}
	s.redaction.counts.Add(c)
	b, err := json.MarshalIndent(s.redaction.counts, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(s.opts.DataDir, redactedFile), append(b, '\n'), paths.FileMode)
}

// redactBatch replaces the secrets in the rows a write is about to insert.
func (s *Store) redactBatch(r *redact.Redactor, b *batch) redact.Counts {
	events := make([]session.Event, 0, len(b.sessions)+len(b.messages)+len(b.parts))
	for _, x := range b.sessions {
		events = append(events, session.Event{Session: x})
	}
	for _, x := range b.messages {
		events = append(events, session.Event{Message: x})
	}
	for _, x := range b.parts {
		events = append(events, session.Event{Part: x})
	}
	return r.Events(events)
}

// RedactAll applies redaction to what is already stored (pond redact --all): every session
// holding a secret is read, redacted, erased with its bytes (as Erase does, but not
// denylisted) and written again, under one hold of the store lock. progress is told after each
// session rewritten. It reports the sessions rewritten and the secrets replaced.
func (s *Store) RedactAll(ctx context.Context, progress func(done, total int)) (*view.RedactReport, error) {
	r, err := redact.New()
	if err != nil {
		return nil, err
	}
	ids, err := s.SessionIDs(ctx)
	if err != nil {
		return nil, err
	}
	rep := &view.RedactReport{Rules: map[string]int{}, Scanned: len(ids)}
	var changed []string
	redacted := map[string][]session.Event{}
	total := redact.Counts{}
	for i, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t, err := s.ReadTranscript(ctx, id)
		if err != nil {
			return nil, err
		}
		events := t.Events()
		c := r.Events(events)
		if len(c) > 0 {
			changed = append(changed, id)
			redacted[id] = events
			total.Add(c)
		}
		if progress != nil && i%100 == 0 {
			progress(i, len(ids))
		}
	}
	if len(changed) == 0 {
		return rep, nil
	}
	lock, err := AcquireLock(ctx, s.opts.StateDir, s.opts.Command, nil)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	erase := &view.EraseReport{}
	if err := s.purgeLocked(ctx, changed, nil, erase); err != nil {
		return nil, err
	}
	rewritten := make([]erasure, 0, len(changed))
	now := time.Now().UTC()
	for _, id := range changed {
		if _, err := s.upsertLocked(ctx, redacted[id], Stamp{Adapter: "redact", KeepIngest: true}); err != nil {
			return nil, fmt.Errorf("store: write %s back redacted: %w", id, err)
		}
		rewritten = append(rewritten, erasure{SessionID: id, At: now, Action: actionRewritten})
	}
	// Other machines sharing the archive replace their mirrors' copies (erasures.go).
	if err := s.logErasures(ctx, rewritten); err != nil {
		return nil, err
	}
	if err := s.countRedacted(total); err != nil {
		return nil, err
	}
	rep.Sessions = len(changed)
	for k, v := range total {
		rep.Rules[k] = v
		rep.Total += v
	}
	rep.BytesReclaimed = erase.BytesReclaimed
	return rep, nil
}
