package hermes

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/pondhq/pond/adapters"
)

// openDB opens a store read-only through the environment's opener.
func openDB(env adapters.Env, path string) (*sql.DB, error) {
	if env.OpenSQLite == nil {
		return nil, fmt.Errorf("hermes: open %s: no SQLite reader in this environment", path)
	}
	db, err := env.OpenSQLite(path)
	if err != nil {
		return nil, fmt.Errorf("hermes: open %s: %w", path, err)
	}
	return db, nil
}

// scanDB lists the sessions of one store, each with a stamp of what a read would see; Size is
// the session's message rows, Hint its id.
func scanDB(ctx context.Context, env adapters.Env, path, rel string) ([]adapters.Source, error) {
	db, err := openDB(env, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	// Every column of the session row can change (titles, counters, end_reason); the messages
	// only grow, or flip active/compacted, or are rewritten under new ids.
	rows, err := db.QueryContext(ctx, `SELECT s.*, m.n, m.top, m.live, m.packed FROM sessions s LEFT JOIN
		(SELECT session_id, count(*) AS n, max(id) AS top, total(active) AS live, total(compacted) AS packed
		 FROM messages GROUP BY session_id) m ON m.session_id = s.id ORDER BY s.id`)
	if err != nil {
		return nil, fmt.Errorf("hermes: scan %s: %w", path, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("hermes: scan %s: %w", path, err)
	}
	var out []adapters.Source
	for rows.Next() {
		vals, err := adapters.ScanRow(rows, len(cols))
		if err != nil {
			return nil, fmt.Errorf("hermes: scan %s: %w", path, err)
		}
		rec := adapters.RowJSON(cols, vals)
		id, _ := vals[adapters.Column(cols, "id")].(string)
		if id == "" {
			continue
		}
		n, _ := vals[len(cols)-4].(int64)
		out = append(out, adapters.Source{
			Key:   rel + "#" + id,
			Path:  path,
			Stamp: "row:" + adapters.Digest(rec),
			Size:  n,
			Hint:  id,
		})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("hermes: scan %s: %w", path, err)
	}
	return out, nil
}

// dbSession is one session as read from a store, in one read transaction.
type dbSession struct {
	cols    []string
	row     []any
	msgCols []string
	msgs    [][]any
}

func (s *dbSession) get(name string) any {
	if i := adapters.Column(s.cols, name); i >= 0 {
		return s.row[i]
	}
	return nil
}

// loadDB reads session id and its messages from one snapshot of the store.
func loadDB(ctx context.Context, env adapters.Env, path, id string) (*dbSession, error) {
	db, err := openDB(env, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	s := &dbSession{}
	one := func(q string, arg any) ([]string, []any, error) {
		rows, err := tx.QueryContext(ctx, q, arg)
		if err != nil {
			return nil, nil, err
		}
		defer rows.Close()
		cols, err := rows.Columns()
		if err != nil {
			return nil, nil, err
		}
		if !rows.Next() {
			return cols, nil, rows.Err()
		}
		vals, err := adapters.ScanRow(rows, len(cols))
		return cols, vals, err
	}
	if s.cols, s.row, err = one(`SELECT * FROM sessions WHERE id = ?`, id); err != nil {
		return nil, err
	}
	if s.row == nil {
		return nil, nil // deleted since the scan
	}
	rows, err := tx.QueryContext(ctx, `SELECT * FROM messages WHERE session_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if s.msgCols, err = rows.Columns(); err != nil {
		return nil, err
	}
	for rows.Next() {
		vals, err := adapters.ScanRow(rows, len(s.msgCols))
		if err != nil {
			return nil, err
		}
		s.msgs = append(s.msgs, vals)
	}
	return s, rows.Err()
}

// readDB reads one session of a store.
func readDB(ctx context.Context, env adapters.Env, src adapters.Source, out adapters.Emitter) error {
	s, err := loadDB(ctx, env, src.Path, src.Hint)
	if err != nil {
		return fmt.Errorf("hermes: read %s: %w", src.Key, err)
	}
	if s == nil {
		return nil
	}
	rel, _, _ := strings.Cut(src.Key, "#")
	e := newEmitter(out, src.Path)
	str := func(k string) string { v, _ := s.get(k).(string); return v }
	info := sessionInfo{
		id:          src.Hint,
		parent:      str("parent_session_id"),
		source:      str("source"),
		cwd:         str("cwd"),
		modelConfig: str("model_config"),
		started:     epoch(s.get("started_at")),
		profile:     profileOf(rel),
	}
	if len(s.msgs) > 0 {
		if j := adapters.Column(s.msgCols, "timestamp"); j >= 0 && !epoch(s.msgs[0][j]).IsZero() {
			e.fallback = epoch(s.msgs[0][j])
		}
	}
	srcOpt := adapters.Object(
		adapters.Field{Key: "db", Value: adapters.String(rel)},
		adapters.Field{Key: "table", Value: adapters.String("sessions")},
		adapters.Field{Key: "record", Value: adapters.RowJSON(s.cols, s.row)},
	)
	if err := e.session(info, srcOpt); err != nil {
		return err
	}
	for i, vals := range s.msgs {
		rec := adapters.RowJSON(s.msgCols, vals)
		m := message{}
		get := func(k string) any {
			if j := adapters.Column(s.msgCols, k); j >= 0 {
				return vals[j]
			}
			return nil
		}
		rowID, _ := get("id").(int64)
		m.id = rowKey(rowID)
		m.role, _ = get("role").(string)
		m.content = textOf(get("content"))
		m.toolCallID, _ = get("tool_call_id").(string)
		m.toolName, _ = get("tool_name").(string)
		if tc, ok := get("tool_calls").(string); ok && tc != "" {
			m.toolCalls = json.RawMessage(tc)
		}
		m.reasoning = textOf(get("reasoning"))
		if m.reasoning == "" {
			m.reasoning = textOf(get("reasoning_content"))
		}
		m.at = epoch(get("timestamp"))
		live := true
		if a, ok := get("active").(int64); ok && a == 0 {
			live = false
		}
		compacted, _ := get("compacted").(int64)
		summary := get("_compressed_summary")
		m.injected = summary != nil && summary != int64(0) && summary != ""
		m.hermes = adapters.Object(
			adapters.Field{Key: "live", Value: boolJSON(live)},
			adapters.Field{Key: "compacted", Value: boolJSON(compacted != 0)},
		)
		m.source = adapters.Object(
			adapters.Field{Key: "db", Value: adapters.String(rel)},
			adapters.Field{Key: "table", Value: adapters.String("messages")},
			adapters.Field{Key: "line", Value: json.RawMessage(strconv.Itoa(i + 1))},
			adapters.Field{Key: "record", Value: rec},
		)
		if err := e.message(m, adapters.Location{Path: src.Path + "#" + m.id}); err != nil {
			return err
		}
	}
	return nil
}

func boolJSON(b bool) json.RawMessage {
	if b {
		return json.RawMessage(`true`)
	}
	return json.RawMessage(`false`)
}

// textOf is a TEXT column's value ("" for NULL; a number as written).
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return ""
}

// profileOf is the profile a store's relative path belongs to.
func profileOf(rel string) string {
	if rest, ok := strings.CutPrefix(rel, "profiles/"); ok {
		name, _, _ := strings.Cut(rest, "/")
		return name
	}
	return "default"
}

// rowKey is a message row's id as a message id: zero-padded, so that ids sort as Hermes orders
// its rows.
func rowKey(id int64) string { return fmt.Sprintf("%012d", id) }
