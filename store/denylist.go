package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/pondhq/pond/internal/atomicfile"
	"github.com/pondhq/pond/paths"
)

// erasedFile, in the data directory, lists the sessions erased from the archive: a write of
// rows of one of them is refused (the agent's file may still hold the session, and the next
// sync would bring it back), until `pond erase --lift` takes the id off. It lives with the
// archive, not in the mirror, which is rebuilt from Lance. An entry still Pending is an erase
// that did not finish; the next erase finishes it.
const erasedFile = "erased.json"

// ErasedEntry is one denylisted session.
type ErasedEntry struct {
	Agent    string    `json:"agent,omitempty"`
	ErasedAt time.Time `json:"erased_at"`
	Pending  bool      `json:"pending,omitempty"`
}

// denylist is the in-memory copy of erasedFile.
type denylist struct {
	mu      sync.RWMutex
	loaded  bool
	entries map[string]ErasedEntry
}

func (s *Store) erasedPath() string { return filepath.Join(s.opts.DataDir, erasedFile) }

// loadDenylist reads erasedFile once (a missing file is an empty list).
func (s *Store) loadDenylist() error {
	d := &s.denied
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.loaded {
		return nil
	}
	d.entries = map[string]ErasedEntry{}
	b, err := os.ReadFile(s.erasedPath())
	if errors.Is(err, fs.ErrNotExist) {
		d.loaded = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: read the erase denylist: %w", err)
	}
	var f struct {
		Sessions map[string]ErasedEntry `json:"sessions"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("store: %s: %w", s.erasedPath(), err)
	}
	if f.Sessions != nil {
		d.entries = f.Sessions
	}
	d.loaded = true
	return nil
}

// saveDenylistLocked writes the list; the caller holds d.mu and the store lock.
func (s *Store) saveDenylistLocked() error {
	b, err := json.MarshalIndent(struct {
		Sessions map[string]ErasedEntry `json:"sessions"`
	}{s.denied.entries}, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(s.erasedPath(), append(b, '\n'), paths.FileMode); err != nil {
		return fmt.Errorf("store: write the erase denylist: %w", err)
	}
	return nil
}

// isDenied reports whether id was erased (the list is loaded).
func (s *Store) isDenied(id string) bool {
	s.denied.mu.RLock()
	defer s.denied.mu.RUnlock()
	_, ok := s.denied.entries[id]
	return ok
}

// deny adds ids (pending) to the list; the caller holds the store lock.
func (s *Store) deny(agents map[string]string) error {
	if err := s.loadDenylist(); err != nil {
		return err
	}
	s.denied.mu.Lock()
	defer s.denied.mu.Unlock()
	now := time.Now().UTC()
	for id, agent := range agents {
		s.denied.entries[id] = ErasedEntry{Agent: agent, ErasedAt: now, Pending: true}
	}
	return s.saveDenylistLocked()
}

// settleDenied marks ids' erases as done; the caller holds the store lock.
func (s *Store) settleDenied(ids []string) error {
	s.denied.mu.Lock()
	defer s.denied.mu.Unlock()
	for _, id := range ids {
		if e, ok := s.denied.entries[id]; ok {
			e.Pending = false
			s.denied.entries[id] = e
		}
	}
	return s.saveDenylistLocked()
}

// pendingErases lists the ids whose erase did not finish.
func (s *Store) pendingErases() []string {
	s.denied.mu.RLock()
	defer s.denied.mu.RUnlock()
	var out []string
	for id, e := range s.denied.entries {
		if e.Pending {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// Denied lists the erased sessions a write refuses, by id.
func (s *Store) Denied() (map[string]ErasedEntry, error) {
	if err := s.loadDenylist(); err != nil {
		return nil, err
	}
	s.denied.mu.RLock()
	defer s.denied.mu.RUnlock()
	out := make(map[string]ErasedEntry, len(s.denied.entries))
	for k, v := range s.denied.entries {
		out[k] = v
	}
	return out, nil
}

// lockDenylist takes the store lock, under which the list changes, and loads the list.
func (s *Store) lockDenylist(ctx context.Context) (release func(), err error) {
	lock, err := AcquireLock(ctx, s.opts.StateDir, s.opts.Command, nil)
	if err != nil {
		return nil, err
	}
	if err := s.loadDenylist(); err != nil {
		lock.Release()
		return nil, err
	}
	return func() { lock.Release() }, nil
}

// Lift takes ids off the denylist, under the store lock, so the next sync captures them again.
// It returns the ids that were on it.
func (s *Store) Lift(ctx context.Context, ids []string) (lifted, notFound []string, err error) {
	release, err := s.lockDenylist(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	s.denied.mu.Lock()
	defer s.denied.mu.Unlock()
	for _, id := range ids {
		if _, ok := s.denied.entries[id]; ok {
			delete(s.denied.entries, id)
			lifted = append(lifted, id)
		} else {
			notFound = append(notFound, id)
		}
	}
	if len(lifted) == 0 {
		return lifted, notFound, nil
	}
	if err := s.saveDenylistLocked(); err != nil {
		return nil, nil, err
	}
	// Other machines sharing the archive take them off their lists too.
	entries := make([]erasure, 0, len(lifted))
	now := time.Now().UTC()
	for _, id := range lifted {
		entries = append(entries, erasure{SessionID: id, At: now, Action: actionLifted})
	}
	return lifted, notFound, s.logErasures(ctx, entries)
}

// DenyAbsent puts on the erase denylist the sessions of entries (another archive's erasures,
// which pond copy carries) that this archive neither holds nor lists already, and logs them
// for the other machines sharing it, so no machine captures them again. A session this
// archive holds is left alone and returned in held: erasing it here is the user's call.
func (s *Store) DenyAbsent(ctx context.Context, entries map[string]ErasedEntry) (added, held []string, err error) {
	if len(entries) == 0 {
		return nil, nil, nil
	}
	release, err := s.lockDenylist(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	ids := slices.Sorted(maps.Keys(entries))
	stored, err := s.mirror.Sessions(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	s.denied.mu.Lock()
	defer s.denied.mu.Unlock()
	var log []erasure
	for _, id := range ids {
		if _, ok := stored[id]; ok {
			held = append(held, id)
			continue
		}
		if _, ok := s.denied.entries[id]; ok {
			continue
		}
		e := entries[id]
		e.Pending = false
		s.denied.entries[id] = e
		added = append(added, id)
		log = append(log, erasure{SessionID: id, Agent: e.Agent, At: e.ErasedAt, Action: actionErased})
	}
	if len(added) == 0 {
		return added, held, nil
	}
	if err := s.saveDenylistLocked(); err != nil {
		return nil, nil, err
	}
	return added, held, s.logErasures(ctx, log)
}
