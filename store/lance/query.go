package lance

/*
#include <stdlib.h>
#include "pond_native.h"
*/
import "C"

import (
	"context"
	"fmt"
	"io"
	"unsafe"

	"github.com/apache/arrow/go/v17/arrow"
)

// Query describes a scan, a full-text search or a vector search. Filter is an SQL predicate
// pushed down into Lance; build its literals with Quote.
type Query struct {
	Columns   []string `json:"columns,omitempty"`
	Filter    string   `json:"filter,omitempty"`
	Limit     int      `json:"limit,omitempty"`
	Offset    int      `json:"offset,omitempty"`
	WithRowID bool     `json:"with_row_id,omitempty"`
	// BatchRows bounds the rows per record handed back (default 1024), and so the memory a
	// reader holds at once.
	BatchRows int          `json:"batch_rows,omitempty"`
	FTS       *FTSQuery    `json:"fts,omitempty"`
	Vector    *VectorQuery `json:"vector,omitempty"`
}

// FTSQuery is a BM25 full-text match over an inverted index. Results carry a `_score` column.
// Rows the index has not caught up with are scanned, so new rows are found at once.
type FTSQuery struct {
	Query    string `json:"query"`
	Column   string `json:"column,omitempty"`
	Operator string `json:"operator,omitempty"` // "or" (default) or "and"
}

// VectorQuery is a nearest-neighbour search. Results carry a `_distance` column.
type VectorQuery struct {
	Column       string    `json:"column"`
	Vector       []float32 `json:"vector"`
	Distance     string    `json:"distance,omitempty"` // cosine (default), l2, dot
	NProbes      int       `json:"nprobes,omitempty"`
	RefineFactor int       `json:"refine_factor,omitempty"`
	Exact        bool      `json:"exact,omitempty"`      // ignore any index
	PostFilter   bool      `json:"postfilter,omitempty"` // filter after the search
}

// Stream yields a query's results one Arrow record at a time. It is not safe for concurrent
// use; Close it when done.
type Stream struct {
	table  *Table
	native *C.PondStream
	done   func() // ends the read the stream is (reads.begin)
}

// Query starts q.
func (t *Table) Query(ctx context.Context, q Query) (*Stream, error) {
	s := &Stream{table: t, done: t.db.reads.begin()}
	err := t.use(func(nt *C.PondTable) error {
		return callJSON(q, func(cs *C.char) *C.char { return C.pond_table_query(nt, cs, &s.native) })
	})
	if err != nil {
		s.done()
		return nil, fmt.Errorf("lance: query %s: %w", t.name, err)
	}
	return s, nil
}

// Next returns the next record, which the caller releases, or io.EOF after the last.
func (s *Stream) Next() (arrow.Record, error) {
	if s.native == nil {
		return nil, io.EOF
	}
	var buf *C.uint8_t
	var n C.size_t
	err := s.table.use(func(*C.PondTable) error { return nativeErr(C.pond_stream_next(s.native, &buf, &n)) })
	if err != nil {
		s.done()
		return nil, fmt.Errorf("lance: read %s: %w", s.table.name, err)
	}
	if buf == nil {
		s.done() // a stream read to its end reads no more files, closed or not
		return nil, io.EOF
	}
	data := C.GoBytes(unsafe.Pointer(buf), C.int(n))
	C.pond_bytes_free(buf, n)
	return decodeIPC(data)
}

// Close ends the query.
func (s *Stream) Close() {
	s.done()
	if s.native != nil {
		C.pond_stream_close(s.native)
		s.native = nil
	}
}

// Scan runs q and calls fn with each record (released after fn returns).
func (t *Table) Scan(ctx context.Context, q Query, fn func(arrow.Record) error) error {
	s, err := t.Query(ctx, q)
	if err != nil {
		return err
	}
	defer s.Close()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := s.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		err = fn(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
}
