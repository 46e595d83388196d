package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mattn/go-sqlite3"

	"github.com/pondhq/pond/paths"
)

// Mirror is the SQLite copy of the Lance tables: the read-only SQL surface, and the writer's
// fast index of which keys are stored. Its tables and columns carry the original system's SQL
// names (sessions.session_id, messages.message_id, …) so agents' learned queries work.
//
// Every row carries the ingest_seq the store gave it; the mirror records, per writer, the
// highest sequence applied, so after a crash between a Lance commit and the mirror's
// transaction, or after other machines' commits to a shared archive, the store can replay the
// rows it lacks from Lance (Watermarks, then Apply).
type Mirror struct {
	db   *sql.DB
	path string
	ckpt *checkpointer
	// commits counts this Mirror's commits (it is the mirror's only writer while it is
	// open): Summary is read again only after one.
	commits atomic.Uint64
	summary struct {
		sync.Mutex
		ok     bool
		commit uint64
		v      Summary
	}
}

// SchemaVersion is the mirror's layout version; a mirror of another version is rebuilt from
// Lance. 2: the large JSON columns packed (pack.go), in message_rows and part_rows behind the
// views messages and parts. 3: raw records packed with a dictionary. 4: a text part that is its
// message's search text is stored once, as derived (textpart.go). 5: no raw records: the
// messages view reads them from Lance (records.go), and who stored each session's first
// message is kept in _pond_first_ingest. 6: no long tool bodies or part records: the parts
// view reads them from Lance (records.go). 7: search text packed (pack.go), the full-text
// indexes reading it unpacked through _pond_fts_content. 8: the word index keeps sub-agents'
// messages in a column of their own (fts.go). A mirror of an earlier layout holds copies of
// values Lance keeps, plain text, or indexes of another shape, which only a rewrite gives back:
// it is rebuilt.
const SchemaVersion = 8

var mirrorDDL = []string{
	`CREATE TABLE IF NOT EXISTS sessions (
		session_id        TEXT PRIMARY KEY,
		parent_session_id TEXT,
		parent_message_id TEXT,
		source_agent      TEXT NOT NULL,
		created_at        TEXT NOT NULL,
		project           TEXT NOT NULL,
		options           TEXT,
		ingest_seq        INTEGER NOT NULL
	)`,
	// The *_packed columns hold pack's form (pack.go), text or a zstd frame, hence BLOB: the
	// affinity that converts neither. The views below are the SQL surface.
	`CREATE TABLE IF NOT EXISTS message_rows (
		session_id      TEXT NOT NULL,
		message_id      TEXT NOT NULL,
		timestamp       TEXT NOT NULL,
		role            TEXT NOT NULL,
		source_agent    TEXT NOT NULL,
		project         TEXT NOT NULL,
		content         TEXT,
		search_text     BLOB,
		embedding_model TEXT,
		ingest_seq      INTEGER NOT NULL,
		PRIMARY KEY (session_id, message_id)
	)`,
	`CREATE TABLE IF NOT EXISTS part_rows (
		session_id          TEXT NOT NULL,
		message_id          TEXT NOT NULL,
		id                  TEXT NOT NULL,
		ordinal             INTEGER NOT NULL,
		type                TEXT NOT NULL,
		provenance          TEXT NOT NULL,
		tool_name           TEXT,
		call_id             TEXT,
		is_failure          INTEGER,
		variant_data_packed BLOB,
		options_packed      BLOB,
		ingest_seq          INTEGER NOT NULL,
		PRIMARY KEY (session_id, message_id, id)
	)`,
	// A message's raw record is read from Lance, a session at a time (records.go). The call
	// names ingest_seq, which no index holds, so that a query over every message's record
	// reads the table in the order the messages were stored, the order read-ahead follows,
	// rather than an index holding session_id and message_id in session order.
	`CREATE VIEW IF NOT EXISTS messages AS
		SELECT session_id, message_id, timestamp, role, source_agent, project, content,
			` + unpackedSQL("search_text") + ` AS search_text,
			embedding_model, pond_message_options(session_id, message_id, ingest_seq) AS options, ingest_seq
		FROM message_rows`,
	// What the full-text indexes read as their external content (fts.go), by message_rows'
	// rowid: the search text unpacked, for the word index in the column of the message's kind
	// (wordColumnsSQL), for the trigram index whole.
	`CREATE VIEW IF NOT EXISTS _pond_fts_content (rid, search_text, subagent_search_text) AS
		SELECT rowid, ` + wordColumnsSQL(unpackedSQL("search_text"), "source_agent") + ` FROM message_rows`,
	`CREATE VIEW IF NOT EXISTS _pond_cjk_content AS
		SELECT rowid AS rid, ` + unpackedSQL("search_text") + ` AS search_text FROM message_rows`,
	// A short value is stored as text and read as it is, without a call into Go. A value left
	// to Lance is read like a raw record (records.go), and the call names ingest_seq for the
	// same reason.
	`CREATE VIEW IF NOT EXISTS parts AS
		SELECT p.session_id, p.message_id, p.id, p.ordinal, p.type, p.provenance, p.tool_name, p.call_id, p.is_failure,
			` + variantDataSQL(partValueSQL("variant_data")) + ` AS variant_data,
			` + optionsSQL(partValueSQL("options")) + ` AS options, p.ingest_seq
		FROM part_rows p`,
	// The parts as the mirror holds them, NULL where a value is left to Lance: for a reader
	// that takes those from Lance itself, a batch of sessions at once (store's transcripts),
	// or needs none of them (a search text's recomputation, StoredMessages).
	`CREATE VIEW IF NOT EXISTS _pond_parts_here AS
		SELECT p.session_id, p.message_id, p.id, p.ordinal, p.type, p.provenance,
			` + variantDataSQL("NULL") + ` AS variant_data, ` + optionsSQL("NULL") + ` AS options
		FROM part_rows p`,
	derivedTextTrigger,
	`CREATE INDEX IF NOT EXISTS messages_session_time ON message_rows(session_id, timestamp, message_id)`,
	`CREATE INDEX IF NOT EXISTS messages_message_id ON message_rows(message_id)`,
	`CREATE INDEX IF NOT EXISTS messages_agent_time ON message_rows(source_agent, timestamp)`,
	`CREATE INDEX IF NOT EXISTS parts_tool_name ON part_rows(tool_name) WHERE tool_name IS NOT NULL`,
	`CREATE INDEX IF NOT EXISTS parts_call_id ON part_rows(session_id, call_id) WHERE call_id IS NOT NULL`,
	`CREATE INDEX IF NOT EXISTS sessions_agent ON sessions(source_agent, created_at)`,
	`CREATE INDEX IF NOT EXISTS sessions_parent ON sessions(parent_session_id) WHERE parent_session_id IS NOT NULL`,
	// Views for the common questions: every tool call with its result, and one row per session.
	// CROSS JOIN keeps the calls the outer loop, walked in the order they were stored (or by
	// session, with a session_id condition), so that the results' bodies, which may be read
	// from Lance, are asked for session after session as read-ahead expects (records.go): led
	// by messages_agent_time, a question over every result's body read one session per call.
	`CREATE VIEW IF NOT EXISTS tool_calls AS
		SELECT c.session_id, c.message_id, c.id AS part_id, c.call_id, c.tool_name,
			json_extract(c.variant_data, '$.params') AS params,
			r.message_id AS result_message_id, json_extract(r.variant_data, '$.result') AS result,
			r.is_failure, m.timestamp, m.source_agent, m.project
		FROM parts c
		CROSS JOIN messages m ON m.session_id = c.session_id AND m.message_id = c.message_id
		LEFT JOIN parts r ON r.session_id = c.session_id AND r.call_id = c.call_id AND r.type = 'tool_result'
		WHERE c.type = 'tool_call'`,
	`CREATE VIEW IF NOT EXISTS session_summary AS
		SELECT s.session_id, s.parent_session_id, s.source_agent, s.project, s.created_at,
			count(m.message_id) AS messages,
			sum(m.role = 'user') AS user_messages,
			min(m.timestamp) AS first_message_at, max(m.timestamp) AS last_message_at,
			(SELECT count(*) FROM parts p WHERE p.session_id = s.session_id AND p.type = 'tool_call') AS tool_calls,
			(SELECT count(*) FROM parts p WHERE p.session_id = s.session_id AND p.type = 'tool_result' AND p.is_failure = 1) AS tool_failures
		FROM sessions s LEFT JOIN messages m ON m.session_id = s.session_id
		GROUP BY s.session_id`,
	`CREATE TABLE IF NOT EXISTS _pond_marks (table_name TEXT NOT NULL, writer INTEGER NOT NULL, seq INTEGER NOT NULL,
		PRIMARY KEY (table_name, writer)) WITHOUT ROWID`,
	// Who each writer is, from the capture record of the newest message applied from it, and
	// how many of its sessions and messages the mirror holds.
	`CREATE TABLE IF NOT EXISTS _pond_writers (writer INTEGER PRIMARY KEY, hostname TEXT, username TEXT, last_capture TEXT,
		sessions INTEGER NOT NULL DEFAULT 0, messages INTEGER NOT NULL DEFAULT 0)`,
	`CREATE TABLE IF NOT EXISTS _pond_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	// Who stored each session's first message (the adapter in its raw record's
	// pond.ingest.adapter, "" for none), kept as the messages arrive: the writer asks it of
	// every session it writes to, and the raw records themselves are in Lance.
	`CREATE TABLE IF NOT EXISTS _pond_first_ingest (session_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, adapter TEXT NOT NULL)`,
}

// ErrOtherLayout is OpenMirror's error for a mirror written in another layout: the store
// rebuilds it from Lance.
var ErrOtherLayout = errors.New("the mirror must be rebuilt from Lance (pond mirror rebuild)")

// OpenMirror opens (creating when missing) the writable mirror at path. Only the store's writer
// opens it this way, under the store lock.
func OpenMirror(ctx context.Context, path string) (*Mirror, error) {
	if err := createPrivate(path); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("_synchronous", "NORMAL")
	q.Set("_busy_timeout", "10000")
	q.Set("_foreign_keys", "0")
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	// The writer's own reads never ask for what only Lance keeps: its connections have no
	// archive (transcripts read it apart, readTranscript in store).
	hook := func(c *sqlite3.SQLiteConn) error { return registerFunctions(c, newArchiveValues(nil, nil)) }
	db := openDB(dsn, hook)
	// One connection: writes are serialised anyway, and temp state stays on one connection.
	db.SetMaxOpenConns(1)
	m := &Mirror{db: db, path: path}
	if err := m.init(ctx); err != nil {
		db.Close()
		return nil, err
	}
	ck := openDB(dsn, hook)
	ck.SetMaxOpenConns(1)
	m.ckpt = startCheckpointer(ck)
	return m, nil
}

// createPrivate creates the mirror's file 0600 when it is missing and narrows it and its log
// files to 0600 when they exist. SQLite would create the file with the umask's mode (0644
// usually), and it gives the -wal and -shm files it creates the database file's mode.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, paths.FileMode)
	if err != nil {
		return fmt.Errorf("mirror: create %s: %w", path, err)
	}
	f.Close()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := paths.ChmodPrivate(path + suffix); err != nil {
			return fmt.Errorf("mirror: %w", err)
		}
	}
	return nil
}

func (m *Mirror) init(ctx context.Context) error {
	// Large pages suit rows that carry kilobytes of tool output (a new file only; SQLite keeps
	// an existing file's page size), then WAL so readers never block the writer.
	// The log is copied into the database by the checkpointer, not by the committing writer.
	for _, p := range []string{`PRAGMA page_size = 16384`, `PRAGMA journal_mode = WAL`, `PRAGMA wal_autocheckpoint = 0`} {
		if _, err := m.db.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("mirror: %s: %w", p, err)
		}
	}
	var v string
	err := m.db.QueryRowContext(ctx, `SELECT value FROM _pond_meta WHERE key = 'schema_version'`).Scan(&v)
	if err == nil && v != fmt.Sprint(SchemaVersion) {
		return fmt.Errorf("mirror: %s has layout %s, want %d: %w", m.path, v, SchemaVersion, ErrOtherLayout)
	}
	if err != nil {
		// No layout recorded: a new file, or one from before layouts were, which holds tables.
		var tables int
		if err := m.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('messages', 'message_rows')`).Scan(&tables); err != nil {
			return fmt.Errorf("mirror: init: %w", err)
		}
		if tables > 0 {
			return fmt.Errorf("mirror: %s has no layout recorded, want %d: %w", m.path, SchemaVersion, ErrOtherLayout)
		}
	}
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("mirror: init: %w", err)
	}
	defer tx.Rollback()
	// Views hold no data: each open makes them again, so that they are the ones this binary's
	// functions and read paths expect, whichever binary made the file.
	views, err := QueryStrings(ctx, tx, `SELECT name FROM sqlite_master WHERE type = 'view'`)
	if err != nil {
		return fmt.Errorf("mirror: init: %w", err)
	}
	for _, v := range views {
		if _, err := tx.ExecContext(ctx, `DROP VIEW "`+v+`"`); err != nil {
			return fmt.Errorf("mirror: init: %w", err)
		}
	}
	for _, ddl := range mirrorDDL {
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("mirror: init: %w", err)
		}
	}
	if err := ensureFTS(ctx, tx); err != nil {
		return fmt.Errorf("mirror: init: %w", err)
	}
	if err := ensureRank(ctx, tx); err != nil {
		return fmt.Errorf("mirror: init: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO _pond_meta(key, value) VALUES ('schema_version', ?)`, fmt.Sprint(SchemaVersion)); err != nil {
		return fmt.Errorf("mirror: init: %w", err)
	}
	return tx.Commit()
}

// Close closes the mirror.
func (m *Mirror) Close() error { return errors.Join(m.ckpt.close(), m.db.Close()) }

// Path is the mirror's file.
func (m *Mirror) Path() string { return m.path }

// A row's ingest_seq holds its writer's number from bit WriterShift up and the writer's own
// count below it: each machine writing one archive numbers its rows in a range of its own, so
// a mirror can tell, per writer, up to where it holds that writer's rows. Rows written before
// writers were numbered are writer 0's.
const WriterShift = 47

// WriterOf is the writer of the row numbered seq.
func WriterOf(seq int64) int64 { return seq >> WriterShift }

// Watermarks are the highest ingest_seq applied to table, per writer.
func (m *Mirror) Watermarks(ctx context.Context, table string) (map[int64]int64, error) {
	rows, err := m.db.QueryContext(ctx, `SELECT writer, seq FROM _pond_marks WHERE table_name = ?`, table)
	if err != nil {
		return nil, fmt.Errorf("mirror: watermarks: %w", err)
	}
	defer rows.Close()
	out := map[int64]int64{}
	for rows.Next() {
		var w, seq int64
		if err := rows.Scan(&w, &seq); err != nil {
			return nil, err
		}
		out[w] = seq
	}
	return out, rows.Err()
}

// RaiseMarks raises table's watermarks to marks (per writer) where they are lower: for a
// table whose rows the mirror does not copy (the erasures log), once they are applied.
func (m *Mirror) RaiseMarks(ctx context.Context, table string, marks map[int64]int64) error {
	for w, seq := range marks {
		if _, err := m.db.ExecContext(ctx, `INSERT INTO _pond_marks(table_name, writer, seq) VALUES (?, ?, ?)
			ON CONFLICT(table_name, writer) DO UPDATE SET seq = max(seq, excluded.seq)`, table, w, seq); err != nil {
			return fmt.Errorf("mirror: watermark: %w", err)
		}
	}
	return nil
}

// Writer is one machine that wrote rows of the archive, as far as this mirror has applied them.
type Writer struct {
	Writer   int64
	Hostname string
	Username string
	// LastCapture is when the newest message applied from it was captured (RFC 3339).
	LastCapture        string
	Sessions, Messages int64
}

// Writers lists the writers of the rows this mirror holds.
func (m *Mirror) Writers(ctx context.Context) ([]Writer, error) {
	rows, err := m.db.QueryContext(ctx, `SELECT writer, coalesce(hostname, ''), coalesce(username, ''), coalesce(last_capture, ''),
		sessions, messages FROM _pond_writers WHERE sessions > 0 OR messages > 0 ORDER BY writer`)
	if err != nil {
		return nil, fmt.Errorf("mirror: writers: %w", err)
	}
	defer rows.Close()
	var out []Writer
	for rows.Next() {
		var w Writer
		if err := rows.Scan(&w.Writer, &w.Hostname, &w.Username, &w.LastCapture, &w.Sessions, &w.Messages); err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// SessionRow is a sessions row in the mirror's column names; times are ISO-8601 UTC text and
// JSON is text.
type SessionRow struct {
	SessionID, ParentSessionID, ParentMessageID, SourceAgent, CreatedAt, Project, Options string
	IngestSeq                                                                             int64
}

// MessageRow is a messages row.
type MessageRow struct {
	SessionID, MessageID, Timestamp, Role, SourceAgent, Project string
	Content, SearchText, EmbeddingModel, Options                string
	IngestSeq                                                   int64
}

// PartRow is a parts row.
type PartRow struct {
	SessionID, MessageID, ID string
	Ordinal                  int
	Type, Provenance         string
	ToolName, CallID         string
	IsFailure                *bool
	VariantData, Options     string
	IngestSeq                int64
}

// SearchTextUpdate is a stored message whose search text was recomputed (it gained text parts
// after it was stored), with the sequence number of that change.
type SearchTextUpdate struct {
	SessionID, MessageID, SearchText string
	IngestSeq                        int64
}

// Rows are rows of the three tables to apply together.
type Rows struct {
	Sessions []SessionRow
	Messages []MessageRow
	Parts    []PartRow
	Updates  []SearchTextUpdate
}

// Len is the number of rows.
func (r *Rows) Len() int { return len(r.Sessions) + len(r.Messages) + len(r.Parts) + len(r.Updates) }

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Apply inserts rows in one transaction and raises each table's watermark to the highest
// ingest_seq it applied. Rows already present are left alone, so applying twice converges.
func (m *Mirror) Apply(ctx context.Context, r *Rows) error { return m.ApplyWhen(ctx, r, nil) }

// ApplyWhen is Apply that commits only once ready (when not nil) returns nil, and rolls back
// when it returns an error, which it returns. The writer inserts the rows while it commits the
// same rows to Lance, and the mirror still never gets ahead of Lance.
func (m *Mirror) ApplyWhen(ctx context.Context, r *Rows, ready func() error) error {
	if r.Len() == 0 {
		if ready != nil {
			return ready()
		}
		return nil
	}
	packed := packRows(r)
	var stale map[[2]string]bool // messages of r stored before: their parts are not derived
	m.ckpt.settle(ctx, m.db)
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("mirror: begin: %w", err)
	}
	defer tx.Rollback()
	ctx = rowContext(ctx)
	type mark struct {
		table  string
		writer int64
	}
	marks := map[mark]int64{}
	added := map[int64]*[2]int64{} // per writer: sessions, messages inserted
	count := func(res sql.Result, seq int64, i int) {
		if n, err := res.RowsAffected(); err == nil && n > 0 {
			w := WriterOf(seq)
			if added[w] == nil {
				added[w] = &[2]int64{}
			}
			added[w][i]++
		}
	}
	raise := func(table string, seq int64) {
		k := mark{table, WriterOf(seq)}
		if seq > marks[k] {
			marks[k] = seq
		}
	}
	if len(r.Sessions) > 0 {
		st, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO sessions VALUES (?,?,?,?,?,?,?,?)`)
		if err != nil {
			return fmt.Errorf("mirror: %w", err)
		}
		for _, s := range r.Sessions {
			res, err := st.ExecContext(ctx, s.SessionID, nullable(s.ParentSessionID), nullable(s.ParentMessageID),
				s.SourceAgent, s.CreatedAt, s.Project, nullable(s.Options), s.IngestSeq)
			if err != nil {
				return fmt.Errorf("mirror: insert session %s: %w", s.SessionID, err)
			}
			count(res, s.IngestSeq, 0)
			raise("sessions", s.IngestSeq)
		}
		st.Close()
	}
	if len(r.Messages) > 0 {
		// Rows inserted below get rowids above every existing one: that is how the full-text
		// indexes find them afterwards.
		var before int64
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(rowid), 0) FROM message_rows`).Scan(&before); err != nil {
			return fmt.Errorf("mirror: %w", err)
		}
		// A plain insert, one row per statement, needs no statement journal. An upsert would:
		// it may fire the update triggers, and SQLite then copies every page each row touches
		// into a journal that a statement abort could roll back (~6 pages of 16 KiB a message).
		st, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO message_rows VALUES (?,?,?,?,?,?,?,?,?,?)`)
		if err != nil {
			return fmt.Errorf("mirror: %w", err)
		}
		var present []MessageRow
		rowids := make([]int64, len(r.Messages)) // of the rows inserted here; 0 for those present
		for i, x := range r.Messages {
			res, err := st.ExecContext(ctx, x.SessionID, x.MessageID, x.Timestamp, x.Role, x.SourceAgent, x.Project,
				nullable(x.Content), packed.searchText[i], nullable(x.EmbeddingModel), x.IngestSeq)
			if err != nil {
				return fmt.Errorf("mirror: insert message %s/%s: %w", x.SessionID, x.MessageID, err)
			}
			n, err := res.RowsAffected()
			if err == nil && n == 1 {
				if rowids[i], err = res.LastInsertId(); err != nil {
					return fmt.Errorf("mirror: insert message %s/%s: %w", x.SessionID, x.MessageID, err)
				}
			}
			if err == nil && n == 0 {
				present = append(present, x)
				if stale == nil {
					stale = map[[2]string]bool{}
				}
				stale[[2]string{x.SessionID, x.MessageID}] = true
			}
			count(res, x.IngestSeq, 1)
			raise("messages", x.IngestSeq)
		}
		st.Close()
		if err := noteFirstIngest(ctx, tx, r.Messages); err != nil {
			return err
		}
		if err := indexNewMessages(ctx, tx, before, r.Messages, rowids); err != nil {
			return err
		}
		// A replayed message may carry a newer search text or embedding model than the copy
		// here; those are the only columns that ever change.
		enc, _ := codecs()
		for _, x := range present {
			if _, err := tx.ExecContext(ctx, `UPDATE message_rows SET search_text = ?, embedding_model = ?, ingest_seq = ?
				WHERE session_id = ? AND message_id = ? AND ingest_seq < ?`,
				pack(enc, x.SearchText), nullable(x.EmbeddingModel), x.IngestSeq, x.SessionID, x.MessageID, x.IngestSeq); err != nil {
				return fmt.Errorf("mirror: update message %s/%s: %w", x.SessionID, x.MessageID, err)
			}
		}
	}
	if len(r.Parts) > 0 {
		st, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO part_rows VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`)
		if err != nil {
			return fmt.Errorf("mirror: %w", err)
		}
		derive, err := m.deriver(ctx, tx, packed.texts, stale)
		if err != nil {
			return err
		}
		for i, p := range r.Parts {
			var fail any
			if p.IsFailure != nil {
				fail = *p.IsFailure
			}
			data, err := derive(&p, packed.partData[i])
			if err != nil {
				return err
			}
			if _, err := st.ExecContext(ctx, p.SessionID, p.MessageID, p.ID, p.Ordinal, p.Type, p.Provenance,
				nullable(p.ToolName), nullable(p.CallID), fail, data, packed.partOptions[i], p.IngestSeq); err != nil {
				return fmt.Errorf("mirror: insert part %s/%s/%s: %w", p.SessionID, p.MessageID, p.ID, err)
			}
			raise("parts", p.IngestSeq)
		}
		st.Close()
	}
	enc, _ := codecs()
	for _, u := range r.Updates {
		if _, err := tx.ExecContext(ctx, `UPDATE message_rows SET search_text = ?, embedding_model = NULL, ingest_seq = ? WHERE session_id = ? AND message_id = ?`,
			pack(enc, u.SearchText), u.IngestSeq, u.SessionID, u.MessageID); err != nil {
			return fmt.Errorf("mirror: update message %s/%s: %w", u.SessionID, u.MessageID, err)
		}
		raise("messages", u.IngestSeq)
	}
	for k, seq := range marks {
		if _, err := tx.ExecContext(ctx, `INSERT INTO _pond_marks(table_name, writer, seq) VALUES (?, ?, ?)
			ON CONFLICT(table_name, writer) DO UPDATE SET seq = max(seq, excluded.seq)`, k.table, k.writer, seq); err != nil {
			return fmt.Errorf("mirror: watermark: %w", err)
		}
	}
	if err := noteWriters(ctx, tx, r.Messages, added); err != nil {
		return err
	}
	if ready != nil {
		if err := ready(); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("mirror: commit: %w", err)
	}
	m.commits.Add(1)
	m.ckpt.committed()
	return nil
}

// rowContext is the context a transaction's statements run under: ctx without its
// cancellation. go-sqlite3 runs every Exec given a cancellable context on a goroutine of its
// own, to interrupt it (a goroutine, a channel and two thread hand-offs per row: a fifth of a
// sync's CPU); the transaction, begun with ctx, is rolled back by database/sql as soon as ctx is
// cancelled, and every statement after that fails.
func rowContext(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// noteFirstIngest records, for each session of msgs, who stored the earliest of its messages
// (lowest ingest_seq) unless an earlier one is recorded: the adapter its raw record names.
func noteFirstIngest(ctx context.Context, tx *sql.Tx, msgs []MessageRow) error {
	first := map[string]int{}
	for i, x := range msgs {
		if j, ok := first[x.SessionID]; !ok || x.IngestSeq < msgs[j].IngestSeq {
			first[x.SessionID] = i
		}
	}
	st, err := tx.PrepareContext(ctx, `INSERT INTO _pond_first_ingest(session_id, seq, adapter)
		VALUES (?1, ?2, CASE WHEN json_valid(?3) THEN coalesce(json_extract(?3, '$.pond.ingest.adapter'), '') ELSE '' END)
		ON CONFLICT(session_id) DO UPDATE SET seq = excluded.seq, adapter = excluded.adapter WHERE excluded.seq < seq`)
	if err != nil {
		return fmt.Errorf("mirror: %w", err)
	}
	defer st.Close()
	for id, i := range first {
		if _, err := st.ExecContext(ctx, id, msgs[i].IngestSeq, msgs[i].Options); err != nil {
			return fmt.Errorf("mirror: first ingest of %s: %w", id, err)
		}
	}
	return nil
}

// noteWriters adds the sessions and messages inserted per writer to their counts and records
// who each writer is, from the capture record (options.pond.ingest) of its newest message
// among msgs.
func noteWriters(ctx context.Context, tx *sql.Tx, msgs []MessageRow, added map[int64]*[2]int64) error {
	for w, n := range added {
		if _, err := tx.ExecContext(ctx, `INSERT INTO _pond_writers(writer, sessions, messages) VALUES (?, ?, ?)
			ON CONFLICT(writer) DO UPDATE SET sessions = sessions + excluded.sessions, messages = messages + excluded.messages`,
			w, n[0], n[1]); err != nil {
			return fmt.Errorf("mirror: writers: %w", err)
		}
	}
	newest := map[int64]int{}
	for i, x := range msgs {
		w := WriterOf(x.IngestSeq)
		if j, ok := newest[w]; !ok || x.IngestSeq > msgs[j].IngestSeq {
			newest[w] = i
		}
	}
	for w, i := range newest {
		if _, err := tx.ExecContext(ctx, `UPDATE _pond_writers SET
				hostname = coalesce(json_extract(?2, '$.pond.ingest.host.hostname'), hostname),
				username = coalesce(json_extract(?2, '$.pond.ingest.host.username'), username),
				last_capture = max(coalesce(last_capture, ''), coalesce(json_extract(?2, '$.pond.ingest.at'), ''))
			WHERE writer = ?1 AND json_valid(?2)`, w, msgs[i].Options); err != nil {
			return fmt.Errorf("mirror: writers: %w", err)
		}
	}
	return nil
}

// MessageKey names a message.
type MessageKey struct{ SessionID, MessageID string }

// SetEmbeddingModel records which model embedded the messages keys names.
func (m *Mirror) SetEmbeddingModel(ctx context.Context, model string, keys []MessageKey) error {
	tx, err := m.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("mirror: %w", err)
	}
	defer tx.Rollback()
	ctx = rowContext(ctx)
	stmt, err := tx.PrepareContext(ctx, `UPDATE message_rows SET embedding_model = ? WHERE session_id = ? AND message_id = ?`)
	if err != nil {
		return fmt.Errorf("mirror: %w", err)
	}
	defer stmt.Close()
	for _, k := range keys {
		if _, err := stmt.ExecContext(ctx, model, k.SessionID, k.MessageID); err != nil {
			return fmt.Errorf("mirror: set embedding model: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("mirror: commit: %w", err)
	}
	m.commits.Add(1)
	m.ckpt.committed()
	return nil
}

// StoredSession is what the writer needs to know of a stored session.
type StoredSession struct {
	SourceAgent, Project string
}

// Sessions looks up which of ids are stored, with their immutable labels.
func (m *Mirror) Sessions(ctx context.Context, ids []string) (map[string]StoredSession, error) {
	out := map[string]StoredSession{}
	err := inChunks(ids, func(chunk []string) error {
		rows, err := m.db.QueryContext(ctx, `SELECT session_id, source_agent, project FROM sessions WHERE session_id IN (`+placeholders(len(chunk))+`)`, anys(chunk)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var s StoredSession
			if err := rows.Scan(&id, &s.SourceAgent, &s.Project); err != nil {
				return err
			}
			out[id] = s
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("mirror: look up sessions: %w", err)
	}
	return out, nil
}

// FirstIngest returns, for each of the sessions with stored messages, who stored its first
// message: the adapter recorded in that message's options.pond.ingest ("api", "import", or
// the local adapter's name; "" when it has none).
func (m *Mirror) FirstIngest(ctx context.Context, sessionIDs []string) (map[string]string, error) {
	out := map[string]string{}
	err := inChunks(sessionIDs, func(chunk []string) error {
		rows, err := m.db.QueryContext(ctx, `SELECT session_id, adapter FROM _pond_first_ingest
			WHERE session_id IN (`+placeholders(len(chunk))+`)`, anys(chunk)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, adapter string
			if err := rows.Scan(&id, &adapter); err != nil {
				return err
			}
			out[id] = adapter
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("mirror: look up who stored sessions: %w", err)
	}
	return out, nil
}

// MessageKeys returns the stored message ids of each of the sessions.
func (m *Mirror) MessageKeys(ctx context.Context, sessionIDs []string) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	err := inChunks(sessionIDs, func(chunk []string) error {
		rows, err := m.db.QueryContext(ctx, `SELECT session_id, message_id FROM messages WHERE session_id IN (`+placeholders(len(chunk))+`)`, anys(chunk)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var s, id string
			if err := rows.Scan(&s, &id); err != nil {
				return err
			}
			if out[s] == nil {
				out[s] = map[string]bool{}
			}
			out[s][id] = true
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("mirror: look up messages: %w", err)
	}
	return out, nil
}

// PartKeys returns the stored part keys ("message\x00part") of each of the sessions.
func (m *Mirror) PartKeys(ctx context.Context, sessionIDs []string) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	err := inChunks(sessionIDs, func(chunk []string) error {
		rows, err := m.db.QueryContext(ctx, `SELECT session_id, message_id, id FROM parts WHERE session_id IN (`+placeholders(len(chunk))+`)`, anys(chunk)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var s, msg, id string
			if err := rows.Scan(&s, &msg, &id); err != nil {
				return err
			}
			if out[s] == nil {
				out[s] = map[string]bool{}
			}
			out[s][msg+"\x00"+id] = true
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("mirror: look up parts: %w", err)
	}
	return out, nil
}

// StoredPart is what search text needs of a stored part.
type StoredPart struct {
	ID, Type, Provenance, VariantData string
}

// StoredMessage is what recomputing a stored message's search text needs of it.
type StoredMessage struct {
	Role, SearchText string
	Parts            []StoredPart // in ordinal order
}

// StoredMessages reads the messages keys names with their parts, a few hundred keys per query;
// a key the mirror lacks is left out of the answer.
func (m *Mirror) StoredMessages(ctx context.Context, keys []MessageKey) (map[MessageKey]*StoredMessage, error) {
	out := map[MessageKey]*StoredMessage{}
	for len(keys) > 0 {
		chunk := keys[:min(len(keys), 400)]
		keys = keys[len(chunk):]
		args := make([]any, 0, 2*len(chunk))
		for _, k := range chunk {
			args = append(args, k.SessionID, k.MessageID)
		}
		in := `(session_id, message_id) IN (VALUES ` + strings.Repeat(",(?,?)", len(chunk))[1:] + `)`
		rows, err := m.db.QueryContext(ctx, `SELECT session_id, message_id, role, coalesce(search_text, '') FROM messages WHERE `+in, args...)
		if err != nil {
			return nil, fmt.Errorf("mirror: read messages: %w", err)
		}
		for rows.Next() {
			var k MessageKey
			sm := &StoredMessage{}
			if err := rows.Scan(&k.SessionID, &k.MessageID, &sm.Role, &sm.SearchText); err != nil {
				rows.Close()
				return nil, fmt.Errorf("mirror: read messages: %w", err)
			}
			out[k] = sm
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("mirror: read messages: %w", err)
		}
		// What the mirror holds itself: a search text is made of text and file parts, never of
		// the tool bodies it leaves to Lance, which this connection cannot read.
		rows, err = m.db.QueryContext(ctx, `SELECT session_id, message_id, id, type, provenance, coalesce(variant_data, '') FROM _pond_parts_here
			WHERE `+in+` ORDER BY session_id, message_id, ordinal, id`, args...)
		if err != nil {
			return nil, fmt.Errorf("mirror: read parts: %w", err)
		}
		for rows.Next() {
			var k MessageKey
			var p StoredPart
			if err := rows.Scan(&k.SessionID, &k.MessageID, &p.ID, &p.Type, &p.Provenance, &p.VariantData); err != nil {
				rows.Close()
				return nil, fmt.Errorf("mirror: read parts: %w", err)
			}
			if sm := out[k]; sm != nil {
				sm.Parts = append(sm.Parts, p)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("mirror: read parts: %w", err)
		}
	}
	return out, nil
}

// Counts are row counts per table.
type Counts struct {
	Sessions, Messages, Parts int64
}

// Counts counts the mirror's rows.
func (m *Mirror) Counts(ctx context.Context) (Counts, error) {
	var c Counts
	err := m.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM messages), (SELECT count(*) FROM parts)`).
		Scan(&c.Sessions, &c.Messages, &c.Parts)
	return c, err
}

// Commits is how many commits this Mirror has made since it was opened.
func (m *Mirror) Commits() uint64 { return m.commits.Load() }

// Summary is what the mirror holds, in all and per agent.
type Summary struct {
	Counts
	Agents []AgentCount // by sessions, most first, then by name
}

// AgentCount is one agent's sessions and their messages.
type AgentCount struct {
	Agent              string
	Sessions, Messages int64
}

// Summary counts what the mirror holds, in all and per agent. The per-agent count joins every
// message to its session (about 0.3 s at a million messages), and status asks for it on every
// change the tray hears of, so the answer is kept until the mirror's next commit.
func (m *Mirror) Summary(ctx context.Context) (Summary, error) {
	m.summary.Lock()
	defer m.summary.Unlock()
	commit := m.commits.Load()
	if m.summary.ok && m.summary.commit == commit {
		return m.summary.v, nil
	}
	var v Summary
	var err error
	if v.Counts, err = m.Counts(ctx); err != nil {
		return Summary{}, err
	}
	rows, err := m.db.QueryContext(ctx, `SELECT s.source_agent, count(DISTINCT s.session_id), count(m.message_id)
		FROM sessions s LEFT JOIN message_rows m ON m.session_id = s.session_id GROUP BY s.source_agent ORDER BY 2 DESC, 1`)
	if err != nil {
		return Summary{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var a AgentCount
		if err := rows.Scan(&a.Agent, &a.Sessions, &a.Messages); err != nil {
			return Summary{}, err
		}
		v.Agents = append(v.Agents, a)
	}
	if err := rows.Err(); err != nil {
		return Summary{}, err
	}
	// Kept as of the commit seen before reading: one made meanwhile makes the next call read
	// again.
	m.summary.ok, m.summary.commit, m.summary.v = true, commit, v
	return v, nil
}

// DB exposes the connection for the store's own queries (export, pages).
func (m *Mirror) DB() *sql.DB { return m.db }

// inChunks calls f over ids in chunks that stay under SQLite's bound-parameter limit.
func inChunks(ids []string, f func([]string) error) error {
	const max = 500
	for len(ids) > 0 {
		n := min(max, len(ids))
		if err := f(ids[:n]); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func anys(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
