package opencode

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pondhq/pond/adapters"
)

// databases lists the databases named stem in root: <stem>.db (OpenCode's opencode.db), then
// <stem>-<channel>.db.
func databases(root, stem string) ([]string, error) {
	main := stem + ".db"
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if n != main && !(strings.HasPrefix(n, stem+"-") && strings.HasSuffix(n, ".db")) {
			continue
		}
		if e.Type().IsRegular() || e.Type()&os.ModeSymlink != 0 {
			out = append(out, filepath.Join(root, n))
		}
	}
	sort.Slice(out, func(i, j int) bool {
		// opencode.db first: the stable channel's copy of a session wins ties in the store.
		if a, b := filepath.Base(out[i]) == main, filepath.Base(out[j]) == main; a != b {
			return a
		}
		return out[i] < out[j]
	})
	return out, nil
}

func openDB(env adapters.Env, path string) (*sql.DB, error) {
	if env.OpenSQLite == nil {
		return nil, fmt.Errorf("opencode: open %s: no SQLite reader in this environment", path)
	}
	db, err := env.OpenSQLite(path)
	if err != nil {
		return nil, fmt.Errorf("opencode: open %s: %w", path, err)
	}
	return db, nil
}

// scanDB lists the sessions of one database with their stamps.
func scanDB(ctx context.Context, env adapters.Env, path string) ([]adapters.Source, error) {
	db, err := openDB(env, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	sch, err := schemaOf(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("opencode: scan %s: %w", path, err)
	}
	stamps, err := sessionStamps(ctx, db, sch, "")
	if err != nil {
		return nil, fmt.Errorf("opencode: scan %s: %w", path, err)
	}
	name := filepath.Base(path)
	srcs := make([]adapters.Source, 0, len(stamps))
	for _, st := range stamps {
		srcs = append(srcs, adapters.Source{
			Key:     name + "#" + st.id,
			Path:    path,
			Stamp:   st.String(),
			Size:    st.rows(),
			ModTime: time.UnixMilli(st.latest()),
			Hint:    st.id,
		})
	}
	return srcs, nil
}

// schema is which tables, and which of their columns, a database has: OpenCode's schema grows
// with every release, and a database may be from any of them.
type schema map[string]map[string]bool

func (s schema) has(table, col string) bool { return s[table][col] }

func schemaOf(ctx context.Context, q queryer) (schema, error) {
	rows, err := q.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table'")
	if err != nil {
		return nil, err
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		tables = append(tables, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	s := schema{}
	for _, t := range tables {
		switch t {
		case "session", "message", "part", "project", "session_message":
		default:
			continue
		}
		cols, err := q.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", t)
		if err != nil {
			return nil, err
		}
		s[t] = map[string]bool{}
		for cols.Next() {
			var n string
			if err := cols.Scan(&n); err != nil {
				cols.Close()
				return nil, err
			}
			s[t][n] = true
		}
		cols.Close()
		if err := cols.Err(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// stamp is what changes whenever a session or any of its rows change: the session's
// time_updated and, for its message, part and session_message rows, their count (catching a
// deleted row), latest time_updated (an added or edited row) and the sum of their
// time_updated − time_created (an edited row other than the latest, within the same
// millisecond; differences, so the sum never overflows).
type stamp struct {
	id      string
	updated int64
	tables  [3]tableStamp
}

type tableStamp struct{ rows, latest, sum int64 }

// stampTables are the tables a session's rows live in, as counted in a stamp.
var stampTables = [3]string{"message", "part", "session_message"}

func (s stamp) String() string {
	b := strconv.AppendInt(nil, s.updated, 10)
	for i, t := range s.tables {
		b = append(b, ' ', "mpx"[i])
		b = strconv.AppendInt(b, t.rows, 10)
		b = append(b, '@')
		b = strconv.AppendInt(b, t.latest, 10)
		b = append(b, '+')
		b = strconv.AppendInt(b, t.sum, 10)
	}
	return string(b)
}

func (s stamp) rows() int64 { return 1 + s.tables[0].rows + s.tables[1].rows + s.tables[2].rows }

func (s stamp) latest() int64 {
	return max(s.updated, s.tables[0].latest, s.tables[1].latest, s.tables[2].latest)
}

// sessionStamps stamps every session, or only the session id when it is not empty, aggregating
// each table in one pass.
func sessionStamps(ctx context.Context, q queryer, sch schema, id string) ([]stamp, error) {
	if !sch.has("session", "id") {
		return nil, nil // a database OpenCode has not set up yet
	}
	var args []any
	cols := []string{"s.id", "0"}
	if sch.has("session", "time_updated") {
		cols[1] = "coalesce(s.time_updated, 0)"
	}
	from := "session s"
	for i, t := range stampTables {
		if !sch.has(t, "session_id") {
			cols = append(cols, "0", "0", "0")
			continue
		}
		latest, sum := "0", "0"
		if sch.has(t, "time_updated") {
			latest = "max(time_updated)"
			sum = "sum(time_updated)"
			if sch.has(t, "time_created") {
				sum = "sum(time_updated - time_created)"
			}
		}
		a := fmt.Sprintf("a%d", i)
		sub := fmt.Sprintf("SELECT session_id, count(*) AS n, %s AS hi, %s AS tot FROM %s", latest, sum, t)
		if id != "" {
			sub += " WHERE session_id = ?"
			args = append(args, id)
		}
		from += fmt.Sprintf(" LEFT JOIN (%s GROUP BY session_id) %s ON %s.session_id = s.id", sub, a, a)
		cols = append(cols, "coalesce("+a+".n, 0)", "coalesce("+a+".hi, 0)", "coalesce("+a+".tot, 0)")
	}
	query := "SELECT " + strings.Join(cols, ", ") + " FROM " + from
	if id != "" {
		query += " WHERE s.id = ?"
		args = append(args, id)
	}
	rows, err := q.QueryContext(ctx, query+" ORDER BY s.id", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []stamp
	for rows.Next() {
		var s stamp
		// Lenient about types: OpenCode writes integers, but a column holds what was put in it.
		var v [10]sql.NullFloat64
		dest := []any{&s.id}
		for i := range v {
			dest = append(dest, &v[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		s.updated = int64(v[0].Float64)
		for i := range s.tables {
			s.tables[i] = tableStamp{int64(v[1+3*i].Float64), int64(v[2+3*i].Float64), int64(v[3+3*i].Float64)}
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// readDB reads one session of a database: everything is loaded in one read transaction (one
// snapshot, which a WAL writer never waits for), the database is closed, then the events are
// emitted.
func readDB(ctx context.Context, env adapters.Env, src adapters.Source, out adapters.Emitter) (adapters.Cursor, error) {
	id := src.Hint
	if id == "" {
		_, id, _ = strings.Cut(src.Key, "#")
	}
	l, err := loadDBSession(ctx, env, src.Path, id)
	if err != nil {
		return adapters.Cursor{}, err
	}
	if l == nil { // deleted since the scan
		return adapters.Cursor{Stamp: src.Stamp}, nil
	}
	for _, p := range l.orphans {
		out.Malformed(p.loc, fmt.Errorf("part of message %s, which the session does not hold", p.messageID))
	}
	held, err := emitSession(ctx, l.session, l.messages, l.extra, out)
	if err != nil {
		return adapters.Cursor{}, err
	}
	return adapters.Cursor{Stamp: pendingStamp(l.stamp, held)}, nil
}

type dbSession struct {
	stamp    string
	session  sessionRecord
	messages []messageRecord
	extra    []extraRecord
	orphans  []orphan
}

type orphan struct {
	loc       adapters.Location
	messageID string
}

func loadDBSession(ctx context.Context, env adapters.Env, path, id string) (*dbSession, error) {
	db, err := openDB(env, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("opencode: read %s: %w", path, err)
	}
	defer tx.Rollback()
	fail := func(err error) (*dbSession, error) {
		return nil, fmt.Errorf("opencode: read %s#%s: %w", path, id, err)
	}
	sch, err := schemaOf(ctx, tx)
	if err != nil {
		return fail(err)
	}
	stamps, err := sessionStamps(ctx, tx, sch, id)
	if err != nil {
		return fail(err)
	}
	srows, err := queryRows(ctx, tx, "SELECT * FROM session WHERE id = ?", id)
	if err != nil {
		return fail(err)
	}
	if len(stamps) == 0 || len(srows) == 0 {
		return nil, nil
	}
	name := filepath.Base(path)
	at := func(rowID string) adapters.Location { return adapters.Location{Path: path + "#" + rowID} }
	sr := srows[0]
	l := &dbSession{stamp: stamps[0].String()}
	s := sessionRecord{
		id:         id,
		parentID:   sr.str("parent_id"),
		directory:  sr.str("directory"),
		projectID:  sr.str("project_id"),
		created:    sr.int("time_created"),
		hasCreated: sr.get("time_created") != nil,
		updated:    sr.int("time_updated"),
		loc:        at(id),
	}
	extra := []any{"db", name}
	if s.projectID != "" && sch["project"] != nil {
		prows, err := queryRows(ctx, tx, "SELECT * FROM project WHERE id = ?", s.projectID)
		if err != nil {
			return fail(err)
		}
		if len(prows) > 0 {
			if wt := prows[0].str("worktree"); wt != "/" { // the "global" project's worktree
				s.worktree = wt
			}
			extra = append(extra, "project", prows[0].json())
		}
	}
	s.source = sourceJSON("table", "session", sr.json(), extra...)
	l.session = s

	rowRecord := func(table string, r row) record {
		raw := r.json()
		rid := r.str("id")
		if rid == "" {
			rid = adapters.RecordID(raw)
		}
		rec := record{id: rid, created: r.int("time_created"), source: sourceJSON("table", table, raw), loc: at(rid)}
		if rec.data, rec.err = readDoc([]byte(r.str("data"))); rec.err != nil {
			rec.err = fmt.Errorf("%s data: %w", table, rec.err)
		}
		return rec
	}
	index := map[string]int{}
	if sch.has("message", "session_id") {
		order := "id"
		if sch.has("message", "time_created") {
			order = "time_created, id"
		}
		mrows, err := queryRows(ctx, tx, "SELECT * FROM message WHERE session_id = ? ORDER BY "+order, id)
		if err != nil {
			return fail(err)
		}
		for _, r := range mrows {
			index[r.str("id")] = len(l.messages)
			l.messages = append(l.messages, messageRecord{record: rowRecord("message", r)})
		}
	}
	if sch.has("part", "session_id") {
		prows, err := queryRows(ctx, tx, "SELECT * FROM part WHERE session_id = ? ORDER BY id", id)
		if err != nil {
			return fail(err)
		}
		for _, r := range prows {
			mid := r.str("message_id")
			i, ok := index[mid]
			if !ok {
				l.orphans = append(l.orphans, orphan{loc: at(r.str("id")), messageID: mid})
				continue
			}
			l.messages[i].parts = append(l.messages[i].parts, rowRecord("part", r))
		}
	}
	if sch.has("session_message", "session_id") {
		order := "id"
		switch {
		case sch.has("session_message", "seq"):
			order = "seq, id"
		case sch.has("session_message", "time_created"):
			order = "time_created, id"
		}
		xrows, err := queryRows(ctx, tx, "SELECT * FROM session_message WHERE session_id = ? ORDER BY "+order, id)
		if err != nil {
			return fail(err)
		}
		for _, r := range xrows {
			rec := rowRecord("session_message", r)
			rec.id = "session_message:" + rec.id // its own id space, apart from message ids
			l.extra = append(l.extra, extraRecord{record: rec, what: "session_message rows (kept raw, not mapped)"})
		}
	}
	return l, nil
}

// queryer is a *sql.DB or a *sql.Tx.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// row is one database row, columns in table order.
type row struct {
	cols []string
	vals []any
}

func queryRows(ctx context.Context, q queryer, query string, args ...any) ([]row, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []row
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, row{cols: cols, vals: vals})
	}
	return out, rows.Err()
}

func (r row) get(col string) any {
	for i, c := range r.cols {
		if c == col {
			return r.vals[i]
		}
	}
	return nil
}

func (r row) str(col string) string {
	switch v := r.get(col).(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	return ""
}

func (r row) int(col string) int64 {
	switch v := r.get(col).(type) {
	case int64:
		return v
	case float64:
		if v >= -1<<62 && v <= 1<<62 {
			return int64(v)
		}
	case string:
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	case time.Time:
		return v.UnixMilli()
	}
	return 0
}

// json is the row verbatim as a JSON object of its columns in table order: TEXT as strings
// (so a JSON column keeps its exact bytes), integers and reals as numbers, NULL as null, a
// BLOB that is not UTF-8 as {"base64": …}.
func (r row) json() ownJSON {
	n := 2
	for i, c := range r.cols {
		n += len(c) + 8
		switch x := r.vals[i].(type) {
		case string:
			n += len(x) + len(x)/4 // room for escaped quotes: the data column is JSON
		case []byte:
			n += len(x) + len(x)/4
		}
	}
	var b bytes.Buffer
	b.Grow(n)
	b.WriteByte('{')
	for i, c := range r.cols {
		if i > 0 {
			b.WriteByte(',')
		}
		var v any
		switch x := r.vals[i].(type) {
		case []byte:
			if utf8.Valid(x) {
				v = string(x)
			} else {
				v = map[string]string{"base64": base64.StdEncoding.EncodeToString(x)}
			}
		case float64:
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				v = x
			}
		case time.Time:
			v = x.UTC().Format(time.RFC3339Nano)
		default:
			v = x
		}
		writeMember(&b, c, v)
	}
	b.WriteByte('}')
	return b.Bytes()
}
