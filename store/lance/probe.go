package lance

import (
	"context"
	"fmt"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"
)

// Probe proves the native library works: it creates a table at loc, appends a row, reopens it
// and counts with a filter.
func Probe(ctx context.Context, loc Location) error {
	db, err := Open(ctx, loc, Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}}, nil)
	t, err := db.CreateTable(ctx, "probe", schema)
	if err != nil {
		return err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	b.Field(0).(*array.StringBuilder).Append("probe")
	rec := b.NewRecord()
	b.Release()
	defer rec.Release()
	err = t.Append(ctx, rec)
	t.Close()
	if err != nil {
		return err
	}
	t, err = db.OpenTable(ctx, "probe")
	if err != nil {
		return err
	}
	defer t.Close()
	n, err := t.Count(ctx, "id = "+Quote("probe"))
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("lance: probe counted %d rows, want 1", n)
	}
	return nil
}
