package store

import (
	"context"
	"fmt"

	"github.com/pondhq/pond/store/lance"
)

// KeepVersionsSecs is how long Optimize keeps old table versions (Lance's own default): long
// enough that a reader still on an older version is never cut off.
const KeepVersionsSecs = 7 * 24 * 3600

// TableOptimize is what Optimize did to one table.
type TableOptimize struct {
	Table  string               `json:"table"`
	Before lance.Stats          `json:"before"`
	After  lance.Stats          `json:"after"`
	Result lance.OptimizeResult `json:"result"`
}

// Optimize compacts each Lance table's small fragments (appends and backfills leave many),
// folds new rows into existing indexes and removes versions older than KeepVersionsSecs, under
// the store lock.
func (s *Store) Optimize(ctx context.Context) ([]TableOptimize, error) {
	lock, err := AcquireLock(ctx, s.opts.StateDir, s.opts.Command, func(h Holder) {
		s.log.Info("store: optimize waiting for the store lock", "holder", h.String())
	})
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	keep := int64(KeepVersionsSecs)
	var out []TableOptimize
	for _, name := range tableNames {
		t := s.tables[name]
		r := TableOptimize{Table: name}
		if r.Before, err = t.Stats(ctx); err != nil {
			return out, err
		}
		if r.Result, err = t.Optimize(ctx, lance.OptimizeSpec{Compact: true, Index: true, PruneOlderThanSecs: &keep}); err != nil {
			return out, fmt.Errorf("store: optimize %s: %w", name, err)
		}
		if r.After, err = t.Stats(ctx); err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}
