package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/pondhq/pond/embed"
	"github.com/pondhq/pond/internal/atomicfile"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/lance"
	"github.com/pondhq/pond/store/sqlite"
)

// Options configure an open store.
type Options struct {
	DataDir string // holds lance/ and mirror.db
	// Storage is where the Lance tables live when not in DataDir's lance/ folder: a local
	// path, s3://bucket/prefix or s3+http(s)://host:port/bucket/prefix (lance.ParseLocation).
	// The mirror stays in DataDir either way: it is this machine's own copy.
	Storage  string
	StateDir string // holds the store lock
	// Command names this process in the lock's holder file ("pond sync", "pond daemon").
	Command string
	// MaxValueBytes caps one stored value (0: session.DefaultMaxValueBytes).
	MaxValueBytes int
	// Lance tunes the Lance tables (read consistency, cache sizes).
	Lance lance.Options
	// Stamp is the ingest provenance stamped on new messages.
	Stamp  Stamp
	Logger *slog.Logger
	// ReadOnly opens an archive to read it only (the source of pond copy): its Lance tables
	// must exist already, and nothing is created, migrated or written there. Upsert refuses.
	// The mirror in DataDir is still this process's to build (RebuildMirror).
	ReadOnly bool
}

// ErrReadOnly is returned by a write to a store opened ReadOnly.
var ErrReadOnly = errors.New("store: opened read-only")

// Store is the archive: three Lance tables and their SQLite mirror.
type Store struct {
	opts   Options
	log    *slog.Logger
	db     *lance.DB
	tables map[string]*lance.Table
	mirror *sqlite.Mirror
	// versions are the Lance table versions the mirror is known to reflect (set by the writer
	// after catching up), so the next write skips the catch-up scan when nothing changed.
	versions map[string]uint64
	// writer is this machine's writer number in the archive (writer.go), once known.
	writer int64
	// erasures is the archive's log of erasures and lifts (erasures.go); nil in a read-only
	// archive that predates it.
	erasures *lance.Table
	// leases holds the claims of the archive's leases (lease.go), opened on first use.
	leases *lance.Table
	// reader is a read-only store's claim on a local archive's versions (readers.go).
	reader *readerFile
	// appends counts the writer's Lance commits since lancedb-go's connection was last
	// refreshed (see lance.DB.Refresh).
	appends int

	// Search reads the mirror through its own read-only pool, opened on first use, and asks
	// embedder (nil: semantic search off) for query vectors.
	embedMu   sync.Mutex
	embedder  embed.Embedder
	searchMu  sync.Mutex
	search    *sql.DB
	scopes    scopeCache
	textIndex textIndexState
	// vectorIndexMin overrides VectorIndexMinRows (tests).
	vectorIndexMin int
	// fragmentRows and roundRows override fragmentRows and compactRoundRows (tests).
	fragmentRows, roundRows int
	// denied is the erase denylist (denylist.go).
	denied denylist
	// redaction is opt-in secret redaction at capture (redaction.go).
	redaction redaction
}

// Open opens the store in opts.DataDir, creating its tables when missing and adding columns a
// newer Pond expects (additive migrations). It takes no lock: reading needs none, and writes
// take the store lock per write.
func Open(ctx context.Context, opts Options) (*Store, error) {
	if opts.DataDir == "" || opts.StateDir == "" {
		return nil, errors.New("store: data and state directories are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Command == "" {
		opts.Command = "pond"
	}
	raiseOpenFileLimit()
	// The archive is private whoever created its directories first (paths.MkdirPrivate). A
	// Lance folder elsewhere is made by storageLocation.
	for _, dir := range []string{opts.DataDir, opts.StateDir} {
		if err := paths.MkdirPrivate(dir); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	s := &Store{opts: opts, log: opts.Logger, tables: map[string]*lance.Table{}, versions: map[string]uint64{}}
	if err := checkLayout(opts.DataDir, opts.ReadOnly); err != nil {
		return nil, err
	}
	loc, err := storageLocation(opts)
	if err != nil {
		return nil, err
	}
	switch {
	case loc.Remote():
	case opts.ReadOnly:
		// Before any table is opened: the writer's prune keeps what this store will read.
		if s.reader, err = registerReader(loc.Dir()); err != nil {
			return nil, err
		}
	default:
		// Made by the writer, so that a reader changes nothing in the Lance folder itself.
		if err := paths.MkdirPrivate(readersDir(loc.Dir())); err != nil {
			return nil, fmt.Errorf("store: readers: %w", err)
		}
	}
	if s.db, err = lance.Open(ctx, loc, opts.Lance); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.openTables(ctx); err != nil {
		s.Close()
		return nil, err
	}
	s.mirror, err = sqlite.OpenMirror(ctx, s.MirrorPath())
	if errors.Is(err, sqlite.ErrOtherLayout) {
		err = s.upgradeMirror(ctx)
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// namedStorage says whether opts name where the Lance tables live ("", "local" and "default"
// are the data directory's own lance/ folder).
func (opts Options) namedStorage() bool {
	return opts.Storage != "" && opts.Storage != "local" && opts.Storage != "default"
}

// storageLocation is where opts puts the Lance tables.
func storageLocation(opts Options) (lance.Location, error) {
	loc := lance.LocalDir(paths.LanceDir(opts.DataDir))
	if opts.namedStorage() {
		var err error
		if loc, err = lance.ParseLocation(opts.Storage); err != nil {
			return loc, fmt.Errorf("store: %w", err)
		}
	}
	if !loc.Remote() && opts.ReadOnly {
		if _, err := os.Stat(loc.Dir()); err != nil {
			return loc, fmt.Errorf("store: no archive at %s: %w", loc.Dir(), err)
		}
	} else if !loc.Remote() {
		if err := paths.MkdirPrivate(loc.Dir()); err != nil {
			return loc, fmt.Errorf("store: %w", err)
		}
	}
	return loc, nil
}

// Location is where the Lance tables live.
func (s *Store) Location() lance.Location { return s.db.Location() }

// DiskCache reports the disk cache of an archive on an object store; nil without one.
func (s *Store) DiskCache() (*view.DiskCache, error) {
	st, ok, err := s.db.DiskCacheStats()
	if err != nil || !ok {
		return nil, err
	}
	return &view.DiskCache{Dir: s.opts.Lance.DiskCache.Dir, Files: st.Files, Bytes: st.Bytes, LimitBytes: st.LimitBytes,
		Hits: st.Hits, Misses: st.Misses}, nil
}

// layoutFile records the Lance layout's version, so an older Pond refuses a newer archive instead
// of misreading it.
const layoutFile = "store.json"

// checkLayout refuses an archive of a newer layout, and marks an older one (or a new one) with
// this layout unless it is opened to read only: what this Pond writes, an older one misreads.
func checkLayout(dataDir string, readOnly bool) error {
	path := filepath.Join(dataDir, layoutFile)
	mark := func() error {
		return atomicfile.Write(path, []byte(fmt.Sprintf("{\"schema_version\": %d}\n", SchemaVersion)), paths.FileMode)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return mark()
	}
	if err == nil {
		err = paths.ChmodPrivate(path)
	}
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	var l struct {
		SchemaVersion int `json:"schema_version"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return fmt.Errorf("store: %s: %w", path, err)
	}
	if l.SchemaVersion > SchemaVersion {
		return fmt.Errorf("store: the archive in %s has layout %d, newer than this Pond understands (%d): upgrade Pond", dataDir, l.SchemaVersion, SchemaVersion)
	}
	if l.SchemaVersion < SchemaVersion && !readOnly {
		if err := mark(); err != nil {
			return fmt.Errorf("store: %w", err)
		}
	}
	return nil
}

// MirrorPath is the SQLite mirror's file.
func (s *Store) MirrorPath() string { return paths.MirrorFile(s.opts.DataDir) }

func (s *Store) openTables(ctx context.Context) error {
	existing, err := s.db.TableNames(ctx)
	if err != nil {
		return err
	}
	for _, name := range tableNames {
		var t *lance.Table
		listed := slices.Contains(existing, name)
		if listed {
			t, err = s.db.OpenTable(ctx, name)
		}
		switch {
		case listed && !errors.Is(err, lance.ErrTableNotFound):
			// Opened, or failed for a reason err gives.
		case s.opts.ReadOnly:
			return fmt.Errorf("store: %s holds no Pond archive (no %s table)", s.db.Location(), name)
		default:
			// Not there, or a creation killed before its first commit (OpenTable). Two
			// processes may race to create a table; the loser opens the winner's.
			t, err = s.db.CreateTable(ctx, name, schemas[name])
			if err != nil {
				if t2, err2 := s.db.OpenTable(ctx, name); err2 == nil {
					t, err = t2, nil
				}
			}
		}
		if err != nil {
			return err
		}
		s.tables[name] = t
		if s.opts.ReadOnly {
			continue // never upgraded here: a table lacking a column fails the read that needs it
		}
		if err := s.migrate(ctx, t, schemas[name]); err != nil {
			return err
		}
	}
	return s.openErasures(ctx, existing)
}

// migrate adds the columns of want that the table lacks, as nulls.
func (s *Store) migrate(ctx context.Context, t *lance.Table, want *arrow.Schema) error {
	have, err := t.Schema(ctx)
	if err != nil {
		return err
	}
	var missing []arrow.Field
	for _, f := range want.Fields() {
		if len(have.FieldIndices(f.Name)) == 0 {
			f.Nullable = true
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	s.log.Info("store: adding columns", "table", t.Name(), "columns", len(missing))
	return t.AddNullColumns(ctx, missing...)
}

// Close closes the tables, the mirror and the database.
func (s *Store) Close() error {
	var errs []error
	for _, t := range s.tables {
		errs = append(errs, t.Close())
	}
	if s.erasures != nil {
		errs = append(errs, s.erasures.Close())
	}
	if s.leases != nil {
		errs = append(errs, s.leases.Close())
	}
	if s.mirror != nil {
		errs = append(errs, s.mirror.Close())
	}
	errs = append(errs, s.closeSearchDB())
	if s.db != nil {
		errs = append(errs, s.db.Close())
	}
	if s.reader != nil {
		errs = append(errs, s.reader.Close())
	}
	return errors.Join(errs...)
}

// Table returns one of the Lance tables by name.
func (s *Store) Table(name string) *lance.Table { return s.tables[name] }

// Mirror is the SQLite mirror.
func (s *Store) Mirror() *sqlite.Mirror { return s.mirror }

// catchUp applies to the mirror every Lance row it lacks (missingFilter): the rows a crash
// left between a Lance commit and the mirror's transaction, and those other machines wrote to
// a shared archive; then the erasures and lifts other machines logged (erasures.go). Callers
// hold the store lock.
func (s *Store) catchUp(ctx context.Context) error {
	_, err := s.catchUpCount(ctx)
	return err
}

// catchUpCount is catchUp, returning how many rows it applied, per table.
func (s *Store) catchUpCount(ctx context.Context) (view.Tally, error) {
	var total view.Tally
	// In the order writers commit (messages, parts, then sessions): a session another machine
	// stored shows here with its messages, not before them.
	for _, name := range []string{TableMessages, TableParts, TableSessions} {
		t := s.tables[name]
		v, err := t.Version(ctx)
		if err != nil {
			return total, err
		}
		if known, ok := s.versions[name]; ok && known == v {
			continue
		}
		marks, err := s.mirror.Watermarks(ctx, name)
		if err != nil {
			return total, err
		}
		filter := missingFilter(marks)
		n, err := t.Count(ctx, filter)
		if err != nil {
			return total, err
		}
		if n > 0 {
			s.log.Info("store: mirror catching up from Lance", "table", name, "rows", n)
			if err := s.replay(ctx, name, filter); err != nil {
				return total, err
			}
			switch name {
			case TableSessions:
				total.Sessions += int(n)
			case TableMessages:
				total.Messages += int(n)
			case TableParts:
				total.Parts += int(n)
			}
		}
		s.versions[name] = v
	}
	return total, s.catchUpErasures(ctx)
}

// CatchUp applies to the mirror the rows other machines committed to a shared archive since
// it last looked (and any a crash left behind), under the store lock; it returns how many.
func (s *Store) CatchUp(ctx context.Context) (view.Tally, error) {
	if s.opts.ReadOnly {
		return view.Tally{}, ErrReadOnly
	}
	lock, err := AcquireLock(ctx, s.opts.StateDir, s.opts.Command, nil)
	if err != nil {
		return view.Tally{}, err
	}
	defer lock.Release()
	return s.catchUpCount(ctx)
}

// replay copies the Lance rows matching filter into the mirror, in bounded batches.
func (s *Store) replay(ctx context.Context, name, filter string) error {
	cols := mirrorColumns[name]
	return s.tables[name].Scan(ctx, lance.Query{Columns: cols, Filter: filter, BatchRows: 4096}, func(r arrow.Record) error {
		rows, err := rowsFromRecord(name, r)
		if err != nil {
			return err
		}
		return s.mirror.Apply(ctx, rows)
	})
}

// mirrorColumns are the Lance columns the mirror keeps (everything but vectors and payloads).
var mirrorColumns = map[string][]string{
	TableSessions: {"id", "parent_session_id", "parent_message_id", "source_agent", "project", "created_at", "options", "ingest_seq"},
	TableMessages: {"session_id", "id", "timestamp", "role", "source_agent", "project", "content", "search_text", "embedding_model", "options", "ingest_seq"},
	TableParts:    {"session_id", "message_id", "id", "ordinal", "type", "provenance", "tool_name", "call_id", "is_failure", "variant_data", "options", "ingest_seq"},
}

// rowsFromRecord converts a Lance record with mirrorColumns[name] into mirror rows, the raw
// records decoded (rawrecord.go).
func rowsFromRecord(name string, r arrow.Record) (*sqlite.Rows, error) {
	col := func(n string) arrow.Array { return r.Column(r.Schema().FieldIndices(n)[0]) }
	s := func(n string, i int) string {
		a := col(n).(*array.String)
		if a.IsNull(i) {
			return ""
		}
		return a.Value(i)
	}
	i64 := func(n string, i int) int64 { return col(n).(*array.Int64).Value(i) }
	out := &sqlite.Rows{}
	var ref []byte
	rows := int(r.NumRows())
	for i := 0; i < rows; i++ {
		switch name {
		case TableSessions:
			out.Sessions = append(out.Sessions, sqlite.SessionRow{
				SessionID: s("id", i), ParentSessionID: s("parent_session_id", i), ParentMessageID: s("parent_message_id", i),
				SourceAgent: s("source_agent", i), Project: s("project", i), CreatedAt: isoTime(microTime(i64("created_at", i))),
				Options: s("options", i), IngestSeq: i64("ingest_seq", i),
			})
		case TableMessages:
			record, err := decodeRecord(s("options", i), s("search_text", i), &ref)
			if err != nil {
				return nil, fmt.Errorf("%s/%s: %w", s("session_id", i), s("id", i), err)
			}
			out.Messages = append(out.Messages, sqlite.MessageRow{
				SessionID: s("session_id", i), MessageID: s("id", i), Timestamp: isoTime(microTime(i64("timestamp", i))),
				Role: s("role", i), SourceAgent: s("source_agent", i), Project: s("project", i), Content: s("content", i),
				SearchText: s("search_text", i), EmbeddingModel: s("embedding_model", i), Options: record,
				IngestSeq: i64("ingest_seq", i),
			})
		case TableParts:
			var fail *bool
			if b := col("is_failure").(*array.Boolean); !b.IsNull(i) {
				v := b.Value(i)
				fail = &v
			}
			out.Parts = append(out.Parts, sqlite.PartRow{
				SessionID: s("session_id", i), MessageID: s("message_id", i), ID: s("id", i),
				Ordinal: int(col("ordinal").(*array.Int32).Value(i)), Type: s("type", i), Provenance: s("provenance", i),
				ToolName: s("tool_name", i), CallID: s("call_id", i), IsFailure: fail, VariantData: s("variant_data", i),
				Options: s("options", i), IngestSeq: i64("ingest_seq", i),
			})
		}
	}
	return out, nil
}

// ReadOnly reports whether the store was opened to read only (Options.ReadOnly).
func (s *Store) ReadOnly() bool { return s.opts.ReadOnly }
