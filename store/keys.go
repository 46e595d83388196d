package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/pondhq/pond/store/lance"
	"github.com/pondhq/pond/store/sqlite"
)

// TableNames are the archive's tables, sessions first.
func TableNames() []string { return append([]string(nil), tableNames...) }

// KeySep joins the parts of a row's key in KeyCounts and MirrorKeys: session id, then message
// id, then part id.
const KeySep = "\x00"

// SessionOfKey is the session id a key of KeyCounts or MirrorKeys starts with.
func SessionOfKey(k string) string {
	id, _, _ := strings.Cut(k, KeySep)
	return id
}

// KeyCounts counts every row of table in Lance by its key (sessions: id; messages: session
// id and id; parts: session id, message id and id, joined by KeySep). Lance is the archive's
// truth and has no unique keys of its own, so a key counted twice is a duplicated row.
func (s *Store) KeyCounts(ctx context.Context, table string) (map[string]int, error) {
	t, ok := s.tables[table]
	if !ok {
		return nil, fmt.Errorf("store: no table %q", table)
	}
	out := map[string]int{}
	err := t.Scan(ctx, lance.Query{Columns: keyColumns[table], BatchRows: 8192}, func(r arrow.Record) error {
		cols := make([]*array.String, r.NumCols())
		for i := range cols {
			cols[i] = r.Column(i).(*array.String)
		}
		var b strings.Builder
		for i := 0; i < int(r.NumRows()); i++ {
			b.Reset()
			for j, c := range cols {
				if j > 0 {
					b.WriteString(KeySep)
				}
				b.WriteString(c.Value(i))
			}
			out[b.String()]++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: keys of %s: %w", table, err)
	}
	return out, nil
}

// MirrorKeys is the set of keys of table the mirror holds (as KeyCounts joins them): what
// Upsert believes stored.
func (s *Store) MirrorKeys(ctx context.Context, table string) (map[string]bool, error) {
	q, ok := mirrorKeySQL[table]
	if !ok {
		return nil, fmt.Errorf("store: no table %q", table)
	}
	rows, err := s.mirror.DB().QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("store: keys of %s: %w", table, err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		out[k] = true
	}
	return out, rows.Err()
}

// EmbeddingModels are the models the stored message vectors were made with, most used first,
// from the mirror ("" is not one: messages without a vector).
func (s *Store) EmbeddingModels(ctx context.Context) ([]string, error) {
	return sqlite.QueryStrings(ctx, s.mirror.DB(), `SELECT embedding_model FROM messages
		WHERE embedding_model IS NOT NULL AND embedding_model <> '' GROUP BY embedding_model ORDER BY count(*) DESC, embedding_model`)
}
