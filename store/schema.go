package store

import (
	"slices"

	"github.com/apache/arrow/go/v17/arrow"
)

// The Lance tables. Keys are scoped by session: sessions (id), messages (session_id, id), parts
// (session_id, message_id, id). Timestamps are Int64 microseconds since the epoch, UTC
// (lancedb-go cannot read Timestamp columns back). JSON is kept as UTF-8 text, verbatim.
const (
	TableSessions = "sessions"
	TableMessages = "messages"
	TableParts    = "parts"
)

// VectorDim is the width of the messages.vector column (multilingual-e5-small and its family).
const VectorDim = 384

// SchemaVersion is the Lance layout's version. Adding a column is additive and handled on open
// (missing columns are added as nulls); anything else bumps this.
//
// 2: messages.options holds raw records encoded against their row's search text
// (rawrecord.go), which an older Pond would hand out as they are. Records of a layout-1 archive
// are plain and read as they are; opening one to write marks it 2 before anything is written.
const SchemaVersion = 2

func str(name string, nullable bool) arrow.Field {
	return arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: nullable}
}

// packed is a string column Lance stores zstd-compressed, page by page: the large texts that
// only sequential scans read (the mirror serves reads; rebuild, export, erase, the text index's
// build and the embedding backfill scan). Raw records (options), tool bodies (variant_data),
// system texts (content) and search text shrink several times over (docs/benchmarks.md). No
// read takes these columns row by row: a compressed page is decompressed whole for any row of
// it (the Lance text arm checks its hits on the mirror's text instead). The metadata is set
// when a table is created; an archive created before keeps writing plain pages.
func packed(name string) arrow.Field {
	f := str(name, true)
	f.Metadata = arrow.NewMetadata([]string{"lance-encoding:compression", "lance-encoding:compression-level"}, []string{"zstd", "3"})
	return f
}

// key is a string column of identifiers (session, message and part ids) that Lance stores
// FSST-compressed: a symbol table per page, each value compressed on its own, so a take of one
// row still reads that row alone (zstd would decompress the whole page for it). A page of few
// distinct values (a cold sync's small batches) is dictionary-encoded before this applies; a
// compacted page of hundreds of sessions was stored plain, 36 bytes a row (docs/benchmarks.md,
// 2026-12-07). Only for columns that are never null: Lance 0.37's FSST encoder panics on a page
// of nulls. Like packed, the metadata is set when a table is created.
func key(name string) arrow.Field {
	f := str(name, false)
	f.Metadata = arrow.NewMetadata([]string{"lance-encoding:compression"}, []string{"fsst"})
	return f
}

func i64(name string) arrow.Field { return arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64} }

var sessionsSchema = arrow.NewSchema([]arrow.Field{
	str("id", false),
	str("parent_session_id", true),
	str("parent_message_id", true),
	str("source_agent", false),
	str("project", false),
	i64("created_at"),
	packed("options"),
	i64("ingest_seq"),
}, nil)

var messagesSchema = arrow.NewSchema([]arrow.Field{
	key("session_id"),
	key("id"),
	i64("timestamp"),
	str("role", false),
	str("source_agent", false),
	str("project", false),
	packed("content"),
	packed("search_text"),
	{Name: "vector", Type: arrow.FixedSizeListOf(VectorDim, arrow.PrimitiveTypes.Float32), Nullable: true},
	str("embedding_model", true),
	packed("options"),
	i64("ingest_seq"),
}, nil)

// messagesAppendSchema is the slice of the messages table a capture writes: every column but
// the vector and the model that computed it, which the embedding backfill sets later. Lance
// reads a column a fragment has no data for as nulls, so leaving them out stores the same
// rows, without building, copying and encoding 1.5 KB of null floats for every message.
var messagesAppendSchema = withoutFields(messagesSchema, "vector", "embedding_model")

func withoutFields(s *arrow.Schema, names ...string) *arrow.Schema {
	var keep []arrow.Field
	for _, f := range s.Fields() {
		if !slices.Contains(names, f.Name) {
			keep = append(keep, f)
		}
	}
	return arrow.NewSchema(keep, nil)
}

var partsSchema = arrow.NewSchema([]arrow.Field{
	key("session_id"),
	key("message_id"),
	key("id"),
	{Name: "ordinal", Type: arrow.PrimitiveTypes.Int32},
	str("type", false),
	str("provenance", false),
	str("tool_name", true),
	str("call_id", true),
	{Name: "is_failure", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	packed("variant_data"),
	{Name: "data", Type: arrow.BinaryTypes.Binary, Nullable: true},
	packed("options"),
	i64("ingest_seq"),
}, nil)

var schemas = map[string]*arrow.Schema{
	TableSessions: sessionsSchema,
	TableMessages: messagesSchema,
	TableParts:    partsSchema,
}

var tableNames = []string{TableSessions, TableMessages, TableParts}
