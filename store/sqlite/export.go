package sqlite

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/apache/arrow/go/v17/parquet"
	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/apache/arrow/go/v17/parquet/pqarrow"
)

// writeParquet writes rows as one Parquet file. Column types are inferred from the first 1,024
// rows (integers, reals, text; all-NULL columns are text); a later value that does not fit its
// column is an error that says to CAST it in the query.
func writeParquet(rows *sql.Rows, cols []string, cw *countingWriter, sum *ExportSummary) error {
	scan := func() ([]any, error) {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		return vals, nil
	}
	var head [][]any
	for len(head) < 1024 && rows.Next() {
		vals, err := scan()
		if err != nil {
			return err
		}
		head = append(head, vals)
	}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		kind := arrow.DataType(arrow.PrimitiveTypes.Int64)
		seen := false
		for _, row := range head {
			switch row[i].(type) {
			case nil:
				continue
			case int64:
			case float64:
				if kind.ID() == arrow.INT64 {
					kind = arrow.PrimitiveTypes.Float64
				}
			default:
				kind = arrow.BinaryTypes.String
			}
			seen = true
			if kind.ID() == arrow.STRING {
				break
			}
		}
		if !seen {
			kind = arrow.BinaryTypes.String
		}
		fields[i] = arrow.Field{Name: c, Type: kind, Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	fw, err := pqarrow.NewFileWriter(schema, cw, parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy)), pqarrow.DefaultWriterProps())
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	rowNo := 0
	add := func(vals []any) error {
		rowNo++
		for i, v := range vals {
			fb := b.Field(i)
			if v == nil {
				fb.AppendNull()
				continue
			}
			switch fb := fb.(type) {
			case *array.Int64Builder:
				x, ok := v.(int64)
				if !ok {
					return fmt.Errorf("column %s holds integers but row %d has %T; CAST it in the query", cols[i], rowNo, v)
				}
				fb.Append(x)
			case *array.Float64Builder:
				switch x := v.(type) {
				case float64:
					fb.Append(x)
				case int64:
					fb.Append(float64(x))
				default:
					return fmt.Errorf("column %s holds numbers but row %d has %T; CAST it in the query", cols[i], rowNo, v)
				}
			case *array.StringBuilder:
				fb.Append(fmt.Sprint(v))
			}
		}
		return nil
	}
	flush := func() error {
		rec := b.NewRecord()
		defer rec.Release()
		if rec.NumRows() == 0 {
			return nil
		}
		return fw.Write(rec)
	}
	for _, vals := range head {
		if err := add(vals); err != nil {
			return err
		}
	}
	sum.Rows = len(head)
	for rows.Next() {
		if cw.n >= ExportCap {
			sum.Truncated = true
			break
		}
		vals, err := scan()
		if err != nil {
			return err
		}
		if err := add(vals); err != nil {
			return err
		}
		sum.Rows++
		if sum.Rows%4096 == 0 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return fw.Close()
}

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
	if format != "ndjson" && format != "csv" && format != "parquet" {
		return nil, fmt.Errorf("unknown export format %q (ndjson, csv or parquet)", format)
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
	if format == "parquet" {
		if err := writeParquet(rows, cols, cw, sum); err != nil {
			return nil, err
		}
		if err := rows.Err(); err != nil {
			return nil, classify(ctx, err, timeout)
		}
		if err := bw.Flush(); err != nil {
			return nil, err
		}
		sum.Bytes = cw.n
		sum.ElapsedMs = time.Since(start).Milliseconds()
		return sum, nil
	}
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
