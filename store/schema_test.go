package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store/lance"
)

// TestLargeColumnsAreCompressed checks that the columns schema.go marks packed reach Lance with
// their compression, and that Lance then stores tool output and raw records in fewer bytes than
// they hold: without the field metadata it writes them plain.
func TestLargeColumnsAreCompressed(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	for _, name := range tableNames {
		schema, err := s.Table(name).Schema(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range schemas[name].Fields() {
			want, _ := f.Metadata.GetValue("lance-encoding:compression")
			i := schema.FieldIndices(f.Name)
			if len(i) == 0 {
				t.Fatalf("%s.%s: not in the table", name, f.Name)
			}
			got, _ := schema.Field(i[0]).Metadata.GetValue("lance-encoding:compression")
			if got != want {
				t.Errorf("%s.%s: compression %q, want %q", name, f.Name, got, want)
			}
		}
	}

	// A session of tool calls whose results are build logs, each line differing a little, as
	// agents' outputs do; every result also sits in its record's raw JSON (options).
	ev := []session.Event{{Session: &session.Session{ID: "s", SourceAgent: "claude-code", Project: "/p", CreatedAt: base}}}
	logical := 0
	for i := range 200 {
		var b strings.Builder
		for j := range 100 {
			fmt.Fprintf(&b, "ok  \tgithub.com/example/project/internal/pkg%03d\t%d.%03ds\tcoverage: %d.%d%% of statements\n", j, i%7, j*13%1000, j%100, i%10)
		}
		out, _ := json.Marshal(b.String())
		id := fmt.Sprintf("m%03d", i)
		raw, _ := json.Marshal(map[string]any{"record": map[string]any{"type": "user", "toolUseResult": map[string]any{"stdout": b.String()}}})
		ev = append(ev, session.Event{Message: &session.Message{SessionID: "s", ID: id, Role: session.RoleTool, Timestamp: base.Add(time.Duration(i) * time.Second)}},
			session.Event{Part: &session.Part{SessionID: "s", MessageID: id, ID: "p0", Type: session.PartToolResult, Provenance: session.Conversational,
				CallID: "c" + id, Name: "Bash", Result: out, Options: session.Options{"source": raw}}})
		logical += len(out) + len(raw)
	}
	upsert(t, s, ev)
	st, err := s.Table(TableParts).Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("parts: %d bytes on disk for %d bytes of results and raw records", st.Bytes, logical)
	if st.Bytes*3 > int64(logical) {
		t.Errorf("parts: %d bytes on disk for %d bytes of results and raw records, want under a third", st.Bytes, logical)
	}
}

// TestArchiveWithPlainColumnsStillTakesWrites opens an archive whose tables were created before
// the packed columns (no field metadata): rows written with the new schema must still append,
// merge and read back whole.
func TestArchiveWithPlainColumnsStillTakesWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := lance.Open(ctx, lance.LocalDir(paths.LanceDir(filepath.Join(dir, "data"))), lance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range tableNames {
		var plain []arrow.Field
		for _, f := range schemas[name].Fields() {
			f.Metadata = arrow.Metadata{}
			plain = append(plain, f)
		}
		tb, err := db.CreateTable(ctx, name, arrow.NewSchema(plain, nil))
		if err != nil {
			t.Fatal(err)
		}
		tb.Close()
	}
	db.Close()
	s := openTestStore(t, dir)
	upsert(t, s, everyKind("s1"))
	upsert(t, s, everyKind("s1")) // all matched
	tr, err := s.ReadTranscript(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(tr.Events()), len(everyKind("s1")); got != want {
		t.Errorf("read back %d events, want %d", got, want)
	}
	// The rows came back whole from Lance too (the mirror rebuilt from it).
	if _, err := s.RebuildMirror(ctx); err != nil {
		t.Fatal(err)
	}
	again, err := s.ReadTranscript(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(tr.Events(), again.Events()); d != "" {
		t.Errorf("after a rebuild from Lance (-before +after):\n%s", d)
	}
}
