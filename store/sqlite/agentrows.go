package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/pondhq/pond/adapters/restore"
)

// agentWriteBusy is how long a restore waits for an agent's own writer to finish before it
// gives up (the agent keeps its transactions short; a restore is rare and can wait).
const agentWriteBusy = 10_000 // milliseconds

// WriteAgentRows inserts a restore's rows into an agent's SQLite database (restore.RowWriter):
// one immediate transaction with a busy timeout, so the agent's own writers are waited for, never
// interrupted, and the rows appear all at once or not at all. A database that does not exist is
// created from rows.Create (0600), and removed again when the write fails. Every insert is a
// plain INSERT: a row whose key is taken fails the whole restore with restore.ErrRowExists,
// nothing is ever replaced. Columns the target table lacks are added when this write created the
// database, else left out and returned; planned
// row ids of a rows.Renumber table are dropped when any is taken.
//
// The database is the agent's, not Pond's: its schema is trusted no more than at capture
// (trusted_schema off, so its triggers and views call innocuous functions only), and no
// statement but the planned inserts and the schema look-ups runs on it.
func WriteAgentRows(ctx context.Context, path string, rows *restore.Rows) (leftOut []string, err error) {
	created := false
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		if rows.Create == "" {
			return nil, fmt.Errorf("sqlite: restore into %s: %w (and the restore brings no schema to create it)", path, err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, fmt.Errorf("sqlite: restore into %s: %w", path, err)
		}
		f.Close()
		created = true
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: restore into %s: %w", path, err)
	}
	defer func() {
		if err != nil && created {
			for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
				os.Remove(path + suffix)
			}
		}
	}()

	q := url.Values{}
	q.Set("mode", "rw")
	q.Set("_busy_timeout", fmt.Sprint(agentWriteBusy))
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: restore into %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlite: restore into %s: %w", path, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA trusted_schema = OFF`); err != nil {
		return nil, fmt.Errorf("sqlite: restore into %s: %w", path, err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("sqlite: restore into %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if created {
		if _, err := tx.ExecContext(ctx, rows.Create); err != nil {
			return nil, fmt.Errorf("sqlite: restore into %s: create the agent's tables: %w", path, err)
		}
	}
	leftOut, err = insertRows(ctx, tx, rows, created)
	if err != nil {
		return nil, fmt.Errorf("sqlite: restore into %s: %w", path, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("sqlite: restore into %s: commit: %w", path, err)
	}
	return leftOut, nil
}

// insertRows runs the planned inserts inside tx. In a database the restore created (grow), a
// column the agent's schema of rows.Create lacks is added rather than left out: the rows come
// from a newer version of the agent, whose own schema holds it.
func insertRows(ctx context.Context, tx *sql.Tx, rows *restore.Rows, grow bool) ([]string, error) {
	cols := map[string]map[string]bool{} // table → its columns in the target
	var leftOut []string
	noted := map[string]bool{}
	columnsOf := func(table string) (map[string]bool, error) {
		if c, ok := cols[table]; ok {
			return c, nil
		}
		r, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		c := map[string]bool{}
		for r.Next() {
			var name string
			if err := r.Scan(&name); err != nil {
				return nil, err
			}
			c[name] = true
		}
		if err := r.Err(); err != nil {
			return nil, err
		}
		if len(c) == 0 {
			return nil, fmt.Errorf("the database has no table %s", table)
		}
		cols[table] = c
		return c, nil
	}
	// Row ids of a renumbered table are kept only when none is taken.
	drop := map[string]string{} // table → its row-id column to leave out
	for table, key := range rows.Renumber {
		var planned []any
		for _, in := range rows.Inserts {
			if in.Table != table {
				continue
			}
			for i, c := range in.Columns {
				if c == key {
					planned = append(planned, in.Values[i])
				}
			}
		}
		for len(planned) > 0 {
			n := min(len(planned), 500)
			var taken int
			err := tx.QueryRowContext(ctx, `SELECT count(*) FROM `+quoteIdent(table)+` WHERE `+quoteIdent(key)+
				` IN (?`+strings.Repeat(",?", n-1)+`)`, planned[:n]...).Scan(&taken)
			if err != nil {
				return nil, err
			}
			if taken > 0 {
				drop[table] = key
				break
			}
			planned = planned[n:]
		}
	}
	stmts := map[string]*sql.Stmt{}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	for _, in := range rows.Inserts {
		if len(in.Columns) != len(in.Values) {
			return nil, fmt.Errorf("insert into %s: %d columns, %d values", in.Table, len(in.Columns), len(in.Values))
		}
		have, err := columnsOf(in.Table)
		if err != nil {
			return nil, err
		}
		var names []string
		var args []any
		for i, c := range in.Columns {
			switch {
			case drop[in.Table] == c:
				continue
			case !have[c] && grow:
				if _, err := tx.ExecContext(ctx, `ALTER TABLE `+quoteIdent(in.Table)+` ADD COLUMN `+quoteIdent(c)); err != nil {
					return nil, fmt.Errorf("add column %s.%s: %w", in.Table, c, err)
				}
				have[c] = true
			case !have[c]:
				if k := in.Table + "." + c; !noted[k] {
					noted[k] = true
					leftOut = append(leftOut, k)
				}
				continue
			}
			names = append(names, quoteIdent(c))
			args = append(args, in.Values[i])
		}
		q := `INSERT INTO ` + quoteIdent(in.Table) + ` (` + strings.Join(names, ",") + `) VALUES (?` + strings.Repeat(",?", len(names)-1) + `)`
		st := stmts[q]
		if st == nil {
			if st, err = tx.PrepareContext(ctx, q); err != nil {
				return nil, fmt.Errorf("insert into %s: %w", in.Table, err)
			}
			stmts[q] = st
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			var se sqlite3.Error
			if errors.As(err, &se) && (se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey || se.ExtendedCode == sqlite3.ErrConstraintUnique) {
				return nil, fmt.Errorf("insert into %s: %w", in.Table, restore.ErrRowExists)
			}
			return nil, fmt.Errorf("insert into %s: %w", in.Table, err)
		}
	}
	return leftOut, nil
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
