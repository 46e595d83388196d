package goose

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pondhq/pond/adapters"
)

// openDB opens the database read-only through the environment's opener.
func openDB(env adapters.Env, path string) (*sql.DB, error) {
	if env.OpenSQLite == nil {
		return nil, fmt.Errorf("goose: open %s: no SQLite reader in this environment", path)
	}
	db, err := env.OpenSQLite(path)
	if err != nil {
		return nil, fmt.Errorf("goose: open %s: %w", path, err)
	}
	return db, nil
}

// columns lists a table's columns (an older store lacks some: goose added them migration by
// migration).
func columns(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, table string) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out[name] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no table %s", table)
	}
	return out, nil
}

// selectList is the columns of table for a SELECT, each by name, with any the driver would
// turn into a time (declared TIMESTAMP, DATETIME or DATE) wrapped in an expression that has no
// declared type, so its value comes back as goose wrote it and is kept byte for byte.
func selectList(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, table, prefix string) (string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, type FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return "", err
		}
		id := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		switch t := strings.ToUpper(typ); {
		case strings.Contains(t, "TIME") || strings.Contains(t, "DATE"):
			cols = append(cols, "CASE WHEN 1 THEN "+prefix+id+" END AS "+id)
		default:
			cols = append(cols, prefix+id)
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if len(cols) == 0 {
		return "", fmt.Errorf("no table %s", table)
	}
	return strings.Join(cols, ", "), nil
}

// scanDB lists the database's sessions, each with a stamp of what a read would see; Size is
// the session's message rows, Hint its id.
func scanDB(ctx context.Context, env adapters.Env, path string) ([]adapters.Source, error) {
	db, err := openDB(env, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	msgCols, err := columns(ctx, db, "messages")
	if err != nil {
		return nil, fmt.Errorf("goose: scan %s: %w", path, err)
	}
	// The session row changes with every message (updated_at), its name and counters; the
	// messages grow, or are rewritten under new row ids (a truncation, a replaced
	// conversation), or have agentVisible flipped in place by a compaction.
	meta := `0 AS meta, 0 AS hidden`
	if msgCols["metadata_json"] {
		meta = `total(length(metadata_json)) AS meta, total(instr(metadata_json, '"agentVisible":false') > 0) AS hidden`
	}
	list, err := selectList(ctx, db, "sessions", "s.")
	if err != nil {
		return nil, fmt.Errorf("goose: scan %s: %w", path, err)
	}
	rows, err := db.QueryContext(ctx, `SELECT `+list+`, m.n, m.top, m.meta, m.hidden FROM sessions s LEFT JOIN
		(SELECT session_id, count(*) AS n, max(id) AS top, `+meta+`
		 FROM messages GROUP BY session_id) m ON m.session_id = s.id ORDER BY s.id`)
	if err != nil {
		return nil, fmt.Errorf("goose: scan %s: %w", path, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("goose: scan %s: %w", path, err)
	}
	idCol := adapters.Column(cols, "id")
	var out []adapters.Source
	for rows.Next() {
		vals, err := adapters.ScanRow(rows, len(cols))
		if err != nil {
			return nil, fmt.Errorf("goose: scan %s: %w", path, err)
		}
		id, _ := vals[idCol].(string)
		if id == "" {
			continue
		}
		n, _ := vals[len(cols)-4].(int64)
		out = append(out, adapters.Source{
			Key:   filepath.Base(path) + "#" + id,
			Path:  path,
			Stamp: "row:" + adapters.Digest(adapters.RowJSON(cols, vals)),
			Size:  n,
			Hint:  id,
		})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("goose: scan %s: %w", path, err)
	}
	return out, nil
}

// dbSession is one session as read from the database, in one read transaction.
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

// loadDB reads session id and its messages, in goose's order, from one snapshot of the database.
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
	list, err := selectList(ctx, tx, "sessions", "")
	if err != nil {
		return nil, err
	}
	msgList, err := selectList(ctx, tx, "messages", "")
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+list+` FROM sessions WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if s.cols, err = rows.Columns(); err != nil {
		rows.Close()
		return nil, err
	}
	if rows.Next() {
		s.row, err = adapters.ScanRow(rows, len(s.cols))
	}
	if err == nil {
		err = rows.Err()
	}
	rows.Close()
	if err != nil {
		return nil, err
	}
	if s.row == nil {
		return nil, nil // deleted since the scan
	}
	// goose's own load: ORDER BY created_timestamp, id (a tool request and its response are
	// often in one second; the row id keeps their order).
	rows, err = tx.QueryContext(ctx, `SELECT `+msgList+` FROM messages WHERE session_id = ? ORDER BY created_timestamp, id`, id)
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
