package sqlite

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// ExportCap bounds an export file.
const ExportCap = 100 << 20

// ExportSummary says what an export wrote.
type ExportSummary struct {
	Format    string `json:"format"`
	Rows      int    `json:"rows"`
	Bytes     int64  `json:"bytes"`
	Truncated bool   `json:"truncated"` // stopped at ExportCap
	ElapsedMs int64  `json:"elapsed_ms"`
}

// countingWriter counts what passes through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Export runs one read-only statement and writes every row (no row cap, at most ExportCap
// bytes) as ndjson (one JSON object per row, NULLs omitted) or csv (a header, then rows).
func (r *Reader) Export(ctx context.Context, q string, format string, timeout time.Duration, w io.Writer) (*ExportSummary, error) {
	if format != "ndjson" && format != "csv" {
		return nil, fmt.Errorf("unknown export format %q (ndjson or csv)", format)
	}
	if err := CheckStatement(q); err != nil {
		return nil, err
	}
	q, _ = splitFirst(q)
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	timeout = min(timeout, MaxTimeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	rows, err := r.db.QueryContext(ctx, q)
	if err != nil {
		return nil, classify(ctx, err, timeout)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &countingWriter{w: bw}
	sum := &ExportSummary{Format: format}
	var cv *csv.Writer
	if format == "csv" {
		cv = csv.NewWriter(cw)
		if err := cv.Write(cols); err != nil {
			return nil, err
		}
	}
	enc := json.NewEncoder(cw)
	enc.SetEscapeHTML(false)
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	rec := make([]string, len(cols))
	for rows.Next() {
		if cw.n >= ExportCap {
			sum.Truncated = true
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		if cv != nil {
			for i, v := range vals {
				switch x := v.(type) {
				case nil:
					rec[i] = ""
				case []byte:
					rec[i] = string(x)
				default:
					rec[i] = fmt.Sprint(x)
				}
			}
			if err := cv.Write(rec); err != nil {
				return nil, err
			}
		} else {
			row := make(map[string]any, len(cols))
			for i, c := range cols {
				v := vals[i]
				if b, ok := v.([]byte); ok {
					v = string(b)
				}
				if v != nil {
					row[c] = v
				}
			}
			if err := enc.Encode(row); err != nil {
				return nil, err
			}
		}
		sum.Rows++
	}
	if err := rows.Err(); err != nil {
		return nil, classify(ctx, err, timeout)
	}
	if cv != nil {
		cv.Flush()
		if err := cv.Error(); err != nil {
			return nil, err
		}
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	sum.Bytes = cw.n
	sum.ElapsedMs = time.Since(start).Milliseconds()
	return sum, nil
}
