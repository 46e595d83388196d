package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/sqlite"
)

// RebuildMirror recreates the SQLite mirror from Lance, under the store lock. The old mirror is
// kept until the new one is complete.
func (s *Store) RebuildMirror(ctx context.Context) (sqlite.Counts, error) {
	lock, err := AcquireLock(ctx, s.opts.StateDir, s.opts.Command, nil)
	if err != nil {
		return sqlite.Counts{}, err
	}
	defer lock.Release()
	return s.rebuildMirrorLocked(ctx)
}

// upgradeMirror makes the mirror of another layout again from Lance, once: a process that
// waited for the store lock while another rebuilt it opens the rebuilt one.
func (s *Store) upgradeMirror(ctx context.Context) error {
	lock, err := AcquireLock(ctx, s.opts.StateDir, s.opts.Command, func(h Holder) {
		s.log.Warn("the SQL mirror is in an earlier layout; waiting for the archive's lock, which may be rebuilding it", "holder", h.String())
	})
	if err != nil {
		return err
	}
	defer lock.Release()
	m, err := sqlite.OpenMirror(ctx, s.MirrorPath())
	if err == nil {
		s.mirror = m
		return nil
	}
	if !errors.Is(err, sqlite.ErrOtherLayout) {
		return err
	}
	// An upgrade changed the mirror's layout: it is a copy, so it is made again from Lance
	// (minutes for a large archive, once).
	s.log.Warn("rebuilding the SQL mirror in this version's layout (once; minutes for a large archive)", "err", err)
	_, err = s.rebuildMirrorLocked(ctx)
	return err
}

// rebuildMirrorLocked is RebuildMirror under the store lock.
func (s *Store) rebuildMirrorLocked(ctx context.Context) (sqlite.Counts, error) {
	path := s.MirrorPath()
	fresh := path + ".rebuild"
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(fresh + suffix)
	}
	m, err := sqlite.OpenMirror(ctx, fresh)
	if err != nil {
		return sqlite.Counts{}, err
	}
	old := s.mirror
	s.mirror = m
	s.versions = map[string]uint64{}
	if err := s.catchUp(ctx); err != nil {
		s.mirror = old
		m.Close()
		return sqlite.Counts{}, err
	}
	counts, err := m.Counts(ctx)
	if err != nil {
		return counts, err
	}
	if old != nil { // nil when the store opens a mirror of another layout
		old.Close()
	}
	m.Close()
	for _, suffix := range []string{"-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	if err := os.Rename(fresh, path); err != nil {
		return counts, fmt.Errorf("store: install rebuilt mirror: %w", err)
	}
	if s.mirror, err = sqlite.OpenMirror(ctx, path); err != nil {
		return counts, err
	}
	// Searches read the replaced file until their pool reopens it.
	return counts, s.closeSearchDB()
}

var keyColumns = map[string][]string{
	TableSessions: {"id"},
	TableMessages: {"session_id", "id"},
	TableParts:    {"session_id", "message_id", "id"},
}

var mirrorKeySQL = map[string]string{
	TableSessions: `SELECT session_id FROM sessions`,
	TableMessages: `SELECT session_id || char(0) || message_id FROM messages`,
	TableParts:    `SELECT session_id || char(0) || message_id || char(0) || id FROM parts`,
}

// Verify compares the keys of every table in Lance and in the mirror.
func (s *Store) Verify(ctx context.Context) ([]view.Drift, error) {
	var out []view.Drift
	for _, name := range tableNames {
		d := view.Drift{Table: name}
		lanceKeys, err := s.KeyCounts(ctx, name)
		if err != nil {
			return nil, err
		}
		for k, n := range lanceKeys {
			d.Lance += int64(n)
			if n > 1 {
				d.Duplicates = appendFew(d.Duplicates, k)
			}
		}
		mirrorKeys, err := s.MirrorKeys(ctx, name)
		if err != nil {
			return nil, err
		}
		d.Mirror = int64(len(mirrorKeys)) // the mirror's keys are its primary keys
		for k := range mirrorKeys {
			if lanceKeys[k] == 0 {
				d.MissingLance = appendFew(d.MissingLance, k)
			}
		}
		for k := range lanceKeys {
			if !mirrorKeys[k] {
				d.MissingMirror = appendFew(d.MissingMirror, k)
			}
		}
		slices.Sort(d.MissingMirror)
		slices.Sort(d.MissingLance)
		out = append(out, d)
	}
	return out, nil
}

func appendFew(list []string, k string) []string {
	if len(list) < 10 {
		list = append(list, k)
	}
	return list
}
