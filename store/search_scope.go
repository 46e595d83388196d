package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// scopeCache keeps searchableInScope's answers until the mirror changes. Summing the scope
// counters walks every counter row the filters keep (tens of thousands at a million messages:
// 3-10 ms, more than a rare-word FTS5 query itself), and most searches repeat the same few
// scopes. The mirror's PRAGMA data_version, read on one pinned connection (it is per
// connection), moves whenever any other connection commits, so a cached answer is never
// stale.
type scopeCache struct {
	mu      sync.Mutex
	conn    *sql.Conn
	version int64
	entries map[string]scopeEntry
}

type scopeEntry struct {
	searchable int
	values     *scopeValues
}

// maxScopeEntries bounds the cache; past it the cache starts over.
const maxScopeEntries = 256

// scopeOf is searchableInScope through the cache.
func (s *Store) scopeOf(ctx context.Context, db *sql.DB, p *plan) (int, error) {
	if p.req.Filters.SessionID != "" {
		return s.searchableInScope(ctx, db, p) // one session's rows: cheap, and not reused
	}
	filters, args := messageFilters(p, "m", true)
	key := filters + fmt.Sprint(args...)
	c := &s.scopes
	c.mu.Lock()
	version, err := c.dataVersion(ctx, db)
	if err != nil {
		c.mu.Unlock()
		return 0, fmt.Errorf("store: search: scope: %w", err)
	}
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		p.scope = e.values
		return e.searchable, nil
	}
	n, err := s.searchableInScope(ctx, db, p)
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	if c.version == version {
		if len(c.entries) >= maxScopeEntries {
			clear(c.entries)
		}
		c.entries[key] = scopeEntry{searchable: n, values: p.scope}
	}
	c.mu.Unlock()
	return n, nil
}

// dataVersion reads the mirror's data version and drops the entries of an older one. The
// caller holds c.mu.
func (c *scopeCache) dataVersion(ctx context.Context, db *sql.DB) (int64, error) {
	if c.conn == nil {
		conn, err := db.Conn(ctx)
		if err != nil {
			return 0, err
		}
		c.conn = conn
	}
	var v int64
	if err := c.conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		c.conn.Close()
		c.conn = nil
		return 0, err
	}
	if v != c.version || c.entries == nil {
		c.version, c.entries = v, map[string]scopeEntry{}
	}
	return v, nil
}

// close releases the pinned connection.
func (c *scopeCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		return nil
	}
	err := c.conn.Close()
	c.conn = nil
	return err
}
