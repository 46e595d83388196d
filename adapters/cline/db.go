package cline

import (
	"context"

	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// dbKeyPrefix opens the key of a session only sessions.db knows: "db#<db file>#<id>".
const dbKeyPrefix = "db#"

// databases are where the SDK has kept its index of sessions, relative to the data dir.
var databases = []string{"db/sessions.db", "sessions/sessions.db"}

// maxRows bounds the rows a scan takes from one database.
const maxRows = 100000

// scanDB lists the rows of sessions.db whose sessions have no files (known holds the ids that
// have), one source each, listed as unsupported: the SDK writes a session's row and its files
// together, and the files are the record (cline 3.0.65 lists its history from the manifests
// when the database is gone), so a row without them holds no conversation, only the metadata
// of a run that never saved a message (or whose files were deleted). Listing it keeps it
// counted where pond sync reports what it did not read. Without a SQLite opener, or a
// database, it lists nothing.
func scanDB(ctx context.Context, env adapters.Env, root string, known map[string]bool) ([]adapters.Source, error) {
	var srcs []adapters.Source
	for _, rel := range databases {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) || env.OpenSQLite == nil {
			continue
		}
		rows, err := sessionRows(ctx, env, path)
		if err != nil {
			return nil, fmt.Errorf("cline: scan %s: %w", path, err)
		}
		for _, r := range rows {
			if known[r.id] || session.CheckID(r.id) != nil {
				continue
			}
			srcs = append(srcs, adapters.Source{Key: dbKeyPrefix + rel + "#" + r.id, Path: path,
				Stamp: "row@" + adapters.Digest(r.json), Size: int64(len(r.json)), ModTime: r.updated, Skip: adapters.SkipUnsupported})
		}
	}
	return srcs, nil
}

type row struct {
	id      string
	json    json.RawMessage
	updated time.Time
}

// sessionRows reads every row of the sessions table as a JSON object of its columns, whatever
// columns this version has.
func sessionRows(ctx context.Context, env adapters.Env, path string) ([]row, error) {
	db, err := env.OpenSQLite(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'sessions'").Scan(&n); err != nil || n == 0 {
		return nil, err
	}
	rs, err := db.QueryContext(ctx, "SELECT * FROM sessions ORDER BY rowid LIMIT ?", maxRows)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, err
	}
	var out []row
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		fs := make([]adapters.Field, 0, len(cols))
		var r row
		for i, c := range cols {
			v := columnJSON(vals[i])
			fs = append(fs, adapters.Field{Key: c, Value: v})
			switch c {
			case "session_id":
				r.id = adapters.Str(v)
			case "updated_at":
				r.updated = adapters.Time(v)
			}
		}
		r.json = adapters.Object(fs...)
		out = append(out, r)
	}
	return out, rs.Err()
}

// columnJSON is a column's value as JSON: text as a string, numbers as numbers, null as null.
func columnJSON(v any) json.RawMessage {
	switch v := v.(type) {
	case nil:
		return json.RawMessage("null")
	case int64:
		return json.RawMessage(strconv.FormatInt(v, 10))
	case float64:
		return json.RawMessage(strconv.FormatFloat(v, 'g', -1, 64))
	case []byte:
		return adapters.String(string(v))
	case string:
		return adapters.String(v)
	case bool:
		return json.RawMessage(strconv.FormatBool(v))
	case time.Time:
		return adapters.String(v.UTC().Format(time.RFC3339Nano))
	}
	return adapters.String(fmt.Sprint(v))
}
