package lance

import (
	"context"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/pondhq/pond/internal/s3test"
)

// A database on moto's S3 server: created, appended to, reopened and counted through both
// connections (lancedb-go's and pond-native's), with no local file involved.
func TestObjectStore(t *testing.T) {
	srv := s3test.Start(t)
	raw := srv.Bucket(t, "pond-lance", "archive/one")
	loc, err := ParseLocation(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !loc.Remote() || loc.URI() != "s3://pond-lance/archive/one" || loc.Dir() != "" {
		t.Fatalf("location %q: remote %v uri %q dir %q", raw, loc.Remote(), loc.URI(), loc.Dir())
	}
	ctx := context.Background()
	if err := Probe(ctx, loc); err != nil {
		t.Fatal(err)
	}
	db, err := Open(ctx, loc, Options{ReadConsistency: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}}, nil)
	tbl, err := db.CreateTable(ctx, "rows", schema)
	if err != nil {
		t.Fatal(err)
	}
	if !tbl.Location().Remote() || tbl.Dir() != "" {
		t.Fatalf("table location %v", tbl.Location())
	}
	for _, id := range []string{"a", "b", "c"} {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		b.Field(0).(*array.StringBuilder).Append(id)
		rec := b.NewRecord()
		b.Release()
		if err := tbl.Append(ctx, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	tbl.Close()
	names, err := db.TableNames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 2 { // probe and rows
		t.Fatalf("tables %v", names)
	}
	tbl, err = db.OpenTable(ctx, "rows")
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	if n, err := tbl.Count(ctx, "id != "+Quote("b")); err != nil || n != 2 {
		t.Fatalf("count %d, %v", n, err)
	}
	if v, err := tbl.Version(ctx); err != nil || v < 4 {
		t.Fatalf("version %d, %v", v, err)
	}
}

// A second endpoint in one process would reach Lance through the same environment.
func TestOneEndpointPerProcess(t *testing.T) {
	a, err := ParseLocation("s3+http://127.0.0.1:1/bucket-a/p")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseLocation("s3+http://127.0.0.1:2/bucket-b/p")
	if err != nil {
		t.Fatal(err)
	}
	endpointMu.Lock()
	saved := endpointSet
	endpointSet = "http://127.0.0.1:1"
	endpointMu.Unlock()
	defer func() { endpointMu.Lock(); endpointSet = saved; endpointMu.Unlock() }()
	if err := a.exportEnv(); err != nil {
		t.Fatal(err)
	}
	if err := b.exportEnv(); err == nil {
		t.Fatal("a second endpoint was accepted")
	}
}
