package openclaw

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/jsonl"
	"github.com/pondhq/pond/adapters/pi"
	"github.com/pondhq/pond/session"
)

// The database's tables this adapter reads (agent schema 23, OpenClaw 2026.9), and the one it
// cannot do without.
const (
	tableWindows = "session_windows"
	tableNodes   = "session_nodes"
	tableEvents  = "transcript_events"
)

func openDB(env adapters.Env, path string) (*sql.DB, error) {
	if env.OpenSQLite == nil {
		return nil, fmt.Errorf("openclaw: open %s: no SQLite reader in this environment", path)
	}
	db, err := env.OpenSQLite(path)
	if err != nil {
		return nil, fmt.Errorf("openclaw: open %s: %w", path, err)
	}
	return db, nil
}

// columns are the columns of the tables a database has: the schema moves with OpenClaw's
// releases, and a database may be from any of them.
type columns map[string]map[string]bool

func columnsOf(ctx context.Context, db *sql.DB) (columns, error) {
	cols := columns{}
	for _, t := range []string{tableWindows, tableNodes, tableEvents} {
		rows, err := db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", t)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return nil, err
			}
			if cols[t] == nil {
				cols[t] = map[string]bool{}
			}
			cols[t][n] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return cols, nil
}

// usable says whether a database holds sessions this adapter can read.
func (c columns) usable() bool {
	return c[tableWindows]["session_id"] && c[tableEvents]["session_id"] && c[tableEvents]["seq"] && c[tableEvents]["event_json"]
}

// dbKey is the source key of one session window.
func dbKey(agent, id string) string { return "agents/" + agent + "/agent/" + dbName + "#" + id }

// scanDB lists the session windows of one agent's database, each stamped with its own
// change marks (its row's and its node's update times, its events' count and last seq), so a
// commit to one session leaves the others fresh.
func scanDB(ctx context.Context, env adapters.Env, root, agent, path string) ([]adapters.Source, error) {
	db, err := openDB(env, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	cols, err := columnsOf(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("openclaw: scan %s: %w", path, err)
	}
	if !cols.usable() {
		return nil, nil // not a database of sessions this adapter knows
	}
	updated := "0"
	if cols[tableWindows]["updated_at"] {
		updated = "w.updated_at"
	}
	node, join := "0", ""
	if cols[tableNodes]["updated_at"] && cols[tableNodes]["session_key"] && cols[tableWindows]["session_key"] {
		node, join = "n.updated_at", " LEFT JOIN "+tableNodes+" n ON n.session_key = w.session_key"
	}
	q := "SELECT w.session_id, " + updated + ", " + node + ", " +
		"(SELECT count(*) FROM " + tableEvents + " e WHERE e.session_id = w.session_id), " +
		"(SELECT max(seq) FROM " + tableEvents + " e WHERE e.session_id = w.session_id) " +
		"FROM " + tableWindows + " w" + join + " ORDER BY w.session_id"
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("openclaw: scan %s: %w", path, err)
	}
	defer rows.Close()
	var out []adapters.Source
	for rows.Next() {
		var id string
		var wUpd, nUpd sql.NullInt64
		var count int64
		var last sql.NullInt64
		if err := rows.Scan(&id, &wUpd, &nUpd, &count, &last); err != nil {
			return nil, fmt.Errorf("openclaw: scan %s: %w", path, err)
		}
		latest := max(wUpd.Int64, nUpd.Int64)
		out = append(out, adapters.Source{
			Key:     dbKey(agent, id),
			Path:    path,
			Stamp:   fmt.Sprintf("w%d/n%d/e%d/s%d", wUpd.Int64, nUpd.Int64, count, last.Int64),
			Size:    count,
			ModTime: time.UnixMilli(latest),
			Hint:    id,
		})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("openclaw: scan %s: %w", path, err)
	}
	return out, nil
}

// agentOfKey is the agent folder a source key names ("" for a key not under agents/).
func agentOfKey(key string) string {
	rest, ok := strings.CutPrefix(key, "agents/")
	if !ok {
		return ""
	}
	agent, _, _ := strings.Cut(rest, "/")
	return agent
}

// readDB reads one session window: its facts from the window and node rows, then its events
// in seq order through pi's mapping, from where cur stopped when only events were added since
// (its stamp says when it changed); keys are the events' ids, so a re-read from the start
// matches what was stored.
func readDB(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	db, err := openDB(env, src.Path)
	if err != nil {
		return adapters.Cursor{}, err
	}
	defer db.Close()
	cols, err := columnsOf(ctx, db)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("openclaw: read %s: %w", src.Key, err)
	}
	if !cols.usable() {
		return adapters.Cursor{}, fmt.Errorf("openclaw: read %s: no session tables", src.Key)
	}
	f, err := windowFacts(ctx, db, cols, agentOfKey(src.Key), src.Hint)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("openclaw: read %s: %w", src.Key, err)
	}
	// Events are appended with a growing seq: a read goes on after the last seq the cursor
	// read while the events up to it are as many as then and OpenClaw has not rewritten the
	// transcript since (its rewrite watermark); else it starts over.
	rewrite := rewriteMark(ctx, db, src.Hint)
	var st dbState
	var lines *pi.Lines
	resumed := false
	if json.Unmarshal(cur.State, &st) == nil && st.V == dbStateVersion && st.N > 0 && st.Rewrite == rewrite && eventsUpTo(ctx, db, src.Hint, st.Seq) == st.N {
		lines, resumed = pi.ResumeLines(ctx, src, out, f.host(""), st.Pi)
	}
	if !resumed {
		st = dbState{Seq: -1 << 62}
		lines = pi.NewLines(ctx, src, out, f.host(""))
	}
	zcol := "NULL"
	if cols[tableEvents]["event_zstd"] {
		zcol = "event_zstd"
	}
	ccol := "NULL"
	if cols[tableEvents]["created_at"] {
		ccol = "created_at"
	}
	rows, err := db.QueryContext(ctx, "SELECT seq, event_json, "+zcol+", "+ccol+" FROM "+tableEvents+" WHERE session_id = ? AND seq > ? ORDER BY seq", src.Hint, st.Seq)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("openclaw: read %s: %w", src.Key, err)
	}
	defer rows.Close()
	var dec *zstd.Decoder
	defer func() {
		if dec != nil {
			dec.Close()
		}
	}()
	limit := env.Limits.Line()
	n := st.N
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return adapters.Cursor{}, err
		}
		var seq int64
		var text sql.NullString
		var blob []byte
		var created sql.NullInt64
		if err := rows.Scan(&seq, &text, &blob, &created); err != nil {
			return adapters.Cursor{}, fmt.Errorf("openclaw: read %s: %w", src.Key, err)
		}
		n, st.Seq = n+1, seq
		// The event's line number is its place in the session (seq may start anywhere and
		// skip, and is kept beside it), which a restore's JSONL replays.
		at := adapters.Location{Path: src.Path, Line: n}
		var raw []byte
		switch {
		case text.Valid:
			raw = []byte(text.String)
		case blob != nil:
			if dec == nil {
				if dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(limit)+1)); err != nil {
					return adapters.Cursor{}, fmt.Errorf("openclaw: read %s: %w", src.Key, err)
				}
			}
			if raw, err = inflate(dec, blob, limit); err != nil {
				out.Malformed(at, fmt.Errorf("openclaw: event seq %d of session %s: %w", seq, src.Hint, err))
				continue
			}
		default:
			out.Malformed(at, fmt.Errorf("openclaw: event seq %d of session %s holds no event", seq, src.Hint))
			continue
		}
		if int64(len(raw)) > limit {
			out.Malformed(at, fmt.Errorf("openclaw: event seq %d of session %s is %w of %d bytes a line", seq, src.Hint, adapters.ErrTooLarge, limit))
			continue
		}
		// The row's own facts beside the event: its seq, when it was stored, and whether
		// OpenClaw compressed it.
		db := []adapters.Field{{Key: "seq", Value: strconv.AppendInt(nil, seq, 10)}}
		if created.Valid {
			db = append(db, adapters.Field{Key: "created_at", Value: strconv.AppendInt(nil, created.Int64, 10)})
		}
		if blob != nil && !text.Valid {
			db = append(db, adapters.Field{Key: "encoding", Value: adapters.String("zstd")})
		}
		if err := lines.Row(raw, n, adapters.Object(db...)); err != nil {
			return adapters.Cursor{}, fmt.Errorf("openclaw: read %s: %w", src.Key, err)
		}
	}
	if err := rows.Err(); err != nil {
		return adapters.Cursor{}, fmt.Errorf("openclaw: read %s: %w", src.Key, err)
	}
	rows.Close()
	if n == 0 {
		if err := readCold(ctx, env, db, src, lines, out); err != nil {
			return adapters.Cursor{}, err
		}
	}
	if lines.Session() == nil {
		// A window without events yet: the session still exists.
		s := f.host("").Session
		if err := out.Event(session.Event{Session: &s}); err != nil {
			return adapters.Cursor{}, err
		}
	}
	next := adapters.Cursor{Stamp: src.Stamp, Line: n}
	if n > 0 {
		st.V, st.N, st.Rewrite = dbStateVersion, n, rewrite
		if st.Pi, err = lines.State(); err != nil {
			return adapters.Cursor{}, fmt.Errorf("openclaw: read %s: %w", src.Key, err)
		}
		if next.State, err = json.Marshal(st); err != nil {
			return adapters.Cursor{}, fmt.Errorf("openclaw: read %s: %w", src.Key, err)
		}
	}
	return next, nil
}

// dbStateVersion changes whenever dbState does; a cursor of another version starts over.
const dbStateVersion = 1

// dbState is where a read of a session window stopped, kept in Cursor.State.
type dbState struct {
	V       int             `json:"v"`
	N       int             `json:"n"`                 // events read, the last one's line number
	Seq     int64           `json:"seq"`               // the last event's seq
	Rewrite string          `json:"rewrite,omitempty"` // OpenClaw's rewrite watermark then
	Pi      json.RawMessage `json:"pi,omitempty"`      // pi's parse state (pi.Lines.State)
}

// eventsUpTo counts a window's events up to seq.
func eventsUpTo(ctx context.Context, db *sql.DB, id string, seq int64) int {
	var n int
	if db.QueryRowContext(ctx, "SELECT count(*) FROM "+tableEvents+" WHERE session_id = ? AND seq <= ?", id, seq).Scan(&n) != nil {
		return -1
	}
	return n
}

// rewriteMark is the generation of a window's last transcript rewrite
// (transcript_rewrite_watermarks), "" when it has none or the table is not there.
func rewriteMark(ctx context.Context, db *sql.DB, id string) string {
	var gen, at sql.NullString
	_ = db.QueryRowContext(ctx, "SELECT generation, updated_at FROM transcript_rewrite_watermarks WHERE session_id = ?", id).Scan(&gen, &at)
	if !gen.Valid {
		return ""
	}
	return gen.String + "@" + at.String
}

// inflate decompresses one event, reading at most limit bytes of it (a zstd frame can claim
// any size; past the cap it is adapters.ErrTooLarge, never held whole).
func inflate(dec *zstd.Decoder, blob []byte, limit int64) ([]byte, error) {
	if err := dec.Reset(bytes.NewReader(blob)); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(dec, limit+1))
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("decompressed, it is %w of %d bytes", adapters.ErrTooLarge, limit)
	}
	return b, nil
}

// windowFacts reads a window's row and its node's, and finds its parent: the generation
// before it, else a fork's source, else the window of the key that spawned it that was
// current when it started.
func windowFacts(ctx context.Context, db *sql.DB, cols columns, agent, id string) (*facts, error) {
	f := &facts{ID: id, Force: true, Agent: agent}
	if session.CheckID(id) != nil {
		f.ID = adapters.RecordID([]byte(id)) // kept verbatim in the window row
	}
	w, err := rowObject(ctx, db, "SELECT * FROM "+tableWindows+" WHERE session_id = ?", id)
	if err != nil {
		return nil, err
	}
	if w == nil {
		return nil, errors.New("the session window is gone")
	}
	f.Key = w.str("session_key")
	f.Created = time.UnixMilli(w.int("started_at"))
	if w.int("started_at") == 0 {
		f.Created = time.UnixMilli(w.int("created_at"))
	}
	f.Kept = append(f.Kept, adapters.Field{Key: "window", Value: w.json()})
	var n *row
	if f.Key != "" && cols[tableNodes]["session_key"] {
		if n, err = rowObject(ctx, db, "SELECT * FROM "+tableNodes+" WHERE session_key = ?", f.Key); err != nil {
			return nil, err
		}
		if n != nil {
			f.Kept = append(f.Kept, adapters.Field{Key: "node", Value: n.json()})
		}
	}
	f.Parent = w.str("previous_session_id")
	if n != nil {
		// A forked conversation's first window: its parent is the session forked from, cut at
		// the entry the fork started after.
		if from := n.str("fork_source_session_id"); from != "" && (f.Parent == "" || f.Parent == from && w.str("reason") == "fork") {
			f.Parent, f.ParentMsg = from, n.str("fork_source_entry_id")
		}
	}
	if f.Parent == "" {
		spawner := w.str("parent_session_key")
		if spawner == "" {
			spawner = w.str("spawned_by")
		}
		if spawner != "" {
			f.Parent = spawnerWindow(ctx, db, spawner, w.int("created_at"))
		}
	}
	return f, nil
}

// spawnerWindow is the window of key current when a child created at ms started: the latest
// one created by then, else the key's current one.
func spawnerWindow(ctx context.Context, db *sql.DB, key string, ms int64) string {
	var id string
	err := db.QueryRowContext(ctx, "SELECT session_id FROM "+tableWindows+" WHERE session_key = ? AND created_at <= ? ORDER BY created_at DESC, session_id DESC LIMIT 1", key, ms).Scan(&id)
	if err == nil {
		return id
	}
	_ = db.QueryRowContext(ctx, "SELECT current_session_id FROM "+tableNodes+" WHERE session_key = ?", key).Scan(&id)
	return id
}

// row is one database row by column, in the table's order.
type row struct {
	names  []string
	values []any
}

// rowObject reads the one row q finds, nil when none.
func rowObject(ctx context.Context, db *sql.DB, q string, args ...any) (*row, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if !rows.Next() {
		return nil, rows.Err()
	}
	r := &row{names: names, values: make([]any, len(names))}
	ptrs := make([]any, len(names))
	for i := range ptrs {
		ptrs[i] = &r.values[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *row) get(name string) any {
	for i, n := range r.names {
		if n == name {
			return r.values[i]
		}
	}
	return nil
}

func (r *row) str(name string) string {
	switch v := r.get(name).(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

func (r *row) int(name string) int64 {
	switch v := r.get(name).(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	case string:
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	}
	return 0
}

// json is the row as an object of its columns in order: numbers and text as they are, blobs
// as base64 text, NULL as null.
func (r *row) json() json.RawMessage {
	fields := make([]adapters.Field, len(r.names))
	for i, n := range r.names {
		var v json.RawMessage
		switch x := r.values[i].(type) {
		case nil:
			v = json.RawMessage("null")
		case int64:
			v = strconv.AppendInt(nil, x, 10)
		case float64:
			v = strconv.AppendFloat(nil, x, 'g', -1, 64)
		case string:
			v = adapters.String(x)
		case []byte:
			v = adapters.String(base64.StdEncoding.EncodeToString(x))
		case bool:
			v = strconv.AppendBool(nil, x)
		case time.Time:
			v = adapters.String(x.UTC().Format(time.RFC3339Nano))
		default:
			v = adapters.String(fmt.Sprint(x))
		}
		fields[i] = adapters.Field{Key: n, Value: v}
	}
	return adapters.Object(fields...)
}

// tableCold holds the archives of windows moved to cold storage.
const tableCold = "session_transcript_cold_archives"

// readCold reads a window whose events OpenClaw moved to cold storage: a zstd JSONL of
// records ({"kind":"header"}, then {"kind":"event","row":{seq, event_json, created_at}} and
// the rows of its indexes), kept in the database (storage 'sqlite') or in
// agents/<agentId>/sessions/cold/<archive_name> ('file'). Its events are read as the hot ones
// are, with "cold" beside their seq; the rest is an index OpenClaw rebuilds.
func readCold(ctx context.Context, env adapters.Env, db *sql.DB, src adapters.Source, lines *pi.Lines, out adapters.Emitter) error {
	var name, storage string
	var blob []byte
	err := db.QueryRowContext(ctx, "SELECT archive_name, storage, archive_blob FROM "+tableCold+" WHERE session_id = ?", src.Hint).Scan(&name, &storage, &blob)
	if err != nil {
		return nil // no cold archive (or no such table): a window without events
	}
	at := adapters.Location{Path: src.Path}
	if storage == "file" {
		if !coldName.MatchString(name) {
			out.Malformed(at, fmt.Errorf("openclaw: session %s: cold archive name %q is not OpenClaw's", src.Hint, name))
			return nil
		}
		path := filepath.Join(filepath.Dir(filepath.Dir(src.Path)), "sessions", "cold", name)
		if blob, err = adapters.ReadFile(path, env.Limits.Decompressed()); err != nil {
			out.Malformed(at, fmt.Errorf("openclaw: session %s: cold archive: %w", src.Hint, err))
			return nil
		}
		at.Path = path
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(env.Limits.Decompressed())+1))
	if err != nil {
		return err
	}
	defer dec.Close()
	data, err := inflate(dec, blob, env.Limits.Decompressed())
	if err != nil {
		out.Malformed(at, fmt.Errorf("openclaw: session %s: cold archive: %w", src.Hint, err))
		return nil
	}
	n := 0
	return jsonl.Each(ctx, bytes.NewReader(data), at.Path, env.Limits.Line(), func(line []byte, no int) error {
		var rec struct {
			Kind string `json:"kind"`
			Row  struct {
				Seq       *int64  `json:"seq"`
				EventJSON *string `json:"event_json"`
				CreatedAt *int64  `json:"created_at"`
			} `json:"row"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			out.Malformed(adapters.Location{Path: at.Path, Line: no}, fmt.Errorf("openclaw: cold archive record: %w", err))
			return nil
		}
		if rec.Kind != "event" || rec.Row.EventJSON == nil || rec.Row.Seq == nil {
			return nil
		}
		n++
		db := []adapters.Field{{Key: "seq", Value: strconv.AppendInt(nil, *rec.Row.Seq, 10)}}
		if rec.Row.CreatedAt != nil {
			db = append(db, adapters.Field{Key: "created_at", Value: strconv.AppendInt(nil, *rec.Row.CreatedAt, 10)})
		}
		db = append(db, adapters.Field{Key: "cold", Value: adapters.String(storage)})
		return lines.Row([]byte(*rec.Row.EventJSON), n, adapters.Object(db...))
	}, out.Malformed)
}

// coldName is a cold archive's file name (session-cold-storage-codec.ts).
var coldName = regexp.MustCompile(`^[a-f0-9]{64}\.jsonl\.zst$`)
