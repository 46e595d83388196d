package sqlite

import (
	"bufio"
	"context"
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

	"github.com/pondhq/pond/session/view"
)

// parquetBatchBytes bounds the cell data a Parquet export holds before it writes a row group:
// a row count would not do, since a few thousand rows of 8 MiB cells are gigabytes.
const parquetBatchBytes = 16 << 20

// writeParquet writes rows as one Parquet file, one row group per parquetBatchBytes of cell
// data, and stops once the file and the batch in hand reach ExportCap. Column types are
// inferred from the first 1,024 rows (or the first batch's worth, if smaller: integers, reals,
// text; all-NULL columns are text); a later value that does not fit its column is an error that
// says to CAST it in the query. It returns the most cell data it held at once.
func writeParquet(st *statement, cw *countingWriter, sum *view.SQLExport) (peak int64, err error) {
	cols := st.cols
	var held int64 // cell data read and not yet written
	hold := func(n int64) {
		held += n
		peak = max(peak, held)
	}
	var head [][]any
	for len(head) < 1024 && held < parquetBatchBytes {
		vals, err := st.next()
		if err != nil {
			return peak, err
		}
		if vals == nil {
			break
		}
		hold(rowBytes(vals))
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
		return peak, fmt.Errorf("parquet: %w", err)
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
		held = 0
		if rec.NumRows() == 0 {
			return nil
		}
		return fw.Write(rec)
	}
	for i, vals := range head {
		if err := add(vals); err != nil {
			return peak, err
		}
		head[i] = nil // held once, in the builder
	}
	sum.Rows = len(head)
	for {
		if held >= parquetBatchBytes {
			if err := flush(); err != nil {
				return peak, err
			}
		}
		// Snappy and Parquet's encodings do not grow text, so the batch in hand is about what
		// it adds to the file.
		if cw.n+held >= ExportCap {
			sum.Truncated = true
			break
		}
		vals, err := st.next()
		if err != nil {
			return peak, err
		}
		if vals == nil {
			break
		}
		hold(rowBytes(vals))
		if err := add(vals); err != nil {
			return peak, err
		}
		sum.Rows++
	}
	if err := flush(); err != nil {
		return peak, err
	}
	return peak, fw.Close()
}

// rowBytes is about what a row's cells take in an Arrow builder.
func rowBytes(vals []any) int64 {
	var n int64
	for _, v := range vals {
		switch v := v.(type) {
		case string: // blobs arrive as strings too (statement.next)
			n += int64(len(v))
		default:
			n += 8
		}
	}
	return n
}

// ExportCap bounds an export file.
const ExportCap = 100 << 20

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
// bytes) as ndjson (one JSON object per row, NULLs omitted), csv (a header, then rows) or
// parquet.
func (r *Reader) Export(ctx context.Context, q string, format string, timeout time.Duration, w io.Writer) (*view.SQLExport, error) {
	if format != "ndjson" && format != "csv" && format != "parquet" {
		return nil, fmt.Errorf("unknown export format %q (ndjson, csv or parquet)", format)
	}
	st, err := r.run(ctx, q, timeout, 0)
	if err != nil {
		return nil, err
	}
	defer st.close()
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &countingWriter{w: bw}
	sum := &view.SQLExport{Format: format}
	switch format {
	case "parquet":
		_, err = writeParquet(st, cw, sum)
	case "csv":
		err = writeCSV(st, cw, sum)
	default:
		err = writeNDJSON(st, cw, sum)
	}
	if err != nil {
		return nil, err
	}
	if err := st.err(); err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	sum.Bytes = cw.n
	sum.ElapsedMs = st.elapsedMs()
	return sum, nil
}

func writeNDJSON(st *statement, cw *countingWriter, sum *view.SQLExport) error {
	enc := json.NewEncoder(cw)
	enc.SetEscapeHTML(false)
	for cw.n < ExportCap {
		vals, err := st.next()
		if err != nil || vals == nil {
			return err
		}
		if err := enc.Encode(rowMap(st.cols, vals)); err != nil {
			return err
		}
		sum.Rows++
	}
	sum.Truncated = true
	return nil
}

func writeCSV(st *statement, cw *countingWriter, sum *view.SQLExport) error {
	cv := csv.NewWriter(cw)
	if err := cv.Write(st.cols); err != nil {
		return err
	}
	rec := make([]string, len(st.cols))
	for {
		if cw.n >= ExportCap {
			sum.Truncated = true
			break
		}
		vals, err := st.next()
		if err != nil {
			return err
		}
		if vals == nil {
			break
		}
		for i, v := range vals {
			rec[i] = ""
			if v != nil {
				rec[i] = fmt.Sprint(v)
			}
		}
		if err := cv.Write(rec); err != nil {
			return err
		}
		sum.Rows++
	}
	cv.Flush()
	return cv.Error()
}
