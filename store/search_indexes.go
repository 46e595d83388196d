package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pondhq/pond/store/lance"
)

// filterIndexes are Lance scalar indexes on the message columns that search filters name. A
// prefilter without them reads that column for every row on every query (150-250 ms at a
// million messages for a project and role filter); with them it reads bitmaps (20-50 ms),
// measured by BenchmarkVectorSweep. They build in well under a second at a million messages
// and cost nothing at ingest: rows appended since are scanned until upkeep folds them in.
// The filters reach them as plain equality and IN lists (see lanceFilters). Replace sends the
// build through pond-native's table handle, the one upkeep compacts with: lancedb-go's own
// handle can lag behind a compaction and then loses the commit race ("preempted by concurrent
// transaction Rewrite").
var filterIndexes = []lance.IndexSpec{
	{Column: "source_agent", Kind: lance.IndexBitmap, Name: "messages_source_agent", Replace: true},
	{Column: "project", Kind: lance.IndexBitmap, Name: "messages_project", Replace: true},
	{Column: "role", Kind: lance.IndexBitmap, Name: "messages_role", Replace: true},
	{Column: "timestamp", Kind: lance.IndexBTree, Name: "messages_timestamp", Replace: true},
	// A bitmap, though session ids are many: a session's rows are stored together, so each id's
	// bitmap is one short run, and the index is a twentieth of a B-tree's size (which holds
	// every row's id: 23 MB at 500,000 messages) for the same lookups.
	{Column: "session_id", Kind: lance.IndexBitmap, Name: "messages_session_id", Replace: true},
}

// partsSessionIndex is the parts table's index on session_id, built with the filter indexes
// and folded by upkeep like any other index of that table. The mirror reads tool bodies from
// the parts table a session at a time (sqlite.Archive); without it each such read scans the
// session_id of every part (a question over every tool result of 2,000 sessions: 17 s, 7.5 s
// with it). A bitmap for the reason messages_session_id is one: 0.3 MB against a B-tree's
// 5.7 MB on 500 sessions, reads as fast.
var partsSessionIndex = lance.IndexSpec{Column: "session_id", Kind: lance.IndexBitmap, Name: "parts_session_id", Replace: true}

// MaintainSearchIndexes keeps the Lance indexes of the messages table up to date for the
// search arms. Every call folds newly added rows into the text index, whose unindexed rows
// cost each query a tokenizing scan. With full (upkeep and pond optimize) it also folds every
// other index (the filter indexes, whose unindexed rows cost only a plain scan, and the vector
// index), and builds what is missing once the archive holds as many messages as FTS5 alone
// serves quickly (textRouteLimit): the filter indexes in under a second, the text index in
// about two minutes at a million messages. The vector index has its own threshold
// (EnsureVectorIndex). Queries never wait: until the text index exists and has caught up, they
// use FTS5. It takes the store lock.
//
// Each index is folded by its own call: one call naming all six took 5 s at a million
// messages, six calls 0.5 s.
func (s *Store) MaintainSearchIndexes(ctx context.Context, full bool) (string, error) {
	lock, err := AcquireLock(ctx, s.opts.StateDir, s.opts.Command, nil)
	if err != nil {
		return "", err
	}
	defer lock.Release()
	t := s.tables[TableMessages]
	defer s.textIndex.checkedAt.Store(0) // look again on the next query
	have, err := s.indexNames(ctx)
	if err != nil {
		return "", err
	}
	fold := func(name string) error {
		_, err := t.Optimize(ctx, lance.OptimizeSpec{Index: true, IndexNames: []string{name}})
		return err
	}
	var done []string
	hasText := slices.Contains(have, textIndexName)
	if hasText {
		if err := fold(textIndexName); err != nil {
			return "", err
		}
		done = append(done, "new rows folded into the text index")
	}
	if !full {
		if !hasText {
			done = append(done, "no text index yet (upkeep and pond optimize build it)")
		}
		return "search indexes: " + strings.Join(done, "; "), nil
	}
	folded := 0
	for _, name := range have {
		if name != textIndexName {
			if err := fold(name); err != nil {
				return "", err
			}
			folded++
		}
	}
	if folded > 0 {
		done = append(done, fmt.Sprintf("new rows folded into %d other indexes", folded))
	}
	n, err := t.Count(ctx, "")
	if err != nil {
		return "", err
	}
	if n < int64(s.textIndex.limit()) {
		return "search indexes: " + strings.Join(append(done, fmt.Sprintf("text and filter indexes not needed yet (%d messages; built from %d)", n, s.textIndex.limit())), "; "), nil
	}
	built := 0
	for _, spec := range filterIndexes {
		if !slices.Contains(have, spec.Name) {
			if err := t.CreateIndex(ctx, spec); err != nil {
				return "", err
			}
			built++
		}
	}
	parts, err := s.tables[TableParts].Indexes(ctx)
	if err != nil {
		return "", err
	}
	if !slices.ContainsFunc(parts, func(ix lance.IndexInfo) bool { return ix.Name == partsSessionIndex.Name }) {
		if err := s.tables[TableParts].CreateIndex(ctx, partsSessionIndex); err != nil {
			return "", err
		}
		built++
	}
	if built > 0 {
		done = append(done, fmt.Sprintf("built %d filter indexes", built))
	}
	if !hasText {
		began := time.Now()
		if err = t.CreateIndex(ctx, textIndexSpec()); err != nil {
			return "", err
		}
		done = append(done, fmt.Sprintf("text index built over %d messages in %s", n, time.Since(began).Round(time.Millisecond)))
	}
	return "search indexes: " + strings.Join(done, "; "), nil
}

// indexNames lists the messages table's index names.
func (s *Store) indexNames(ctx context.Context) ([]string, error) {
	idx, err := s.tables[TableMessages].Indexes(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, i := range idx {
		names = append(names, i.Name)
	}
	return names, nil
}
