package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Erase deletes the sessions' rows (sessions, messages, parts) and leaves no copy of their text
// in the mirror's files: the rows are deleted with secure_delete on (freed cells and pages are
// zeroed), the full-text tables, which keep a deleted row's terms in their segments until those
// merge, are merged into one segment each, the scope counters of emptied projects go, the file
// is vacuumed and the write-ahead log is copied back and truncated to nothing. Readers must be
// closed first, or the log cannot be truncated.
func (m *Mirror) Erase(ctx context.Context, ids []string) error {
	conn, err := m.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("mirror: erase: %w", err)
	}
	defer conn.Close()
	exec := func(q string, args ...any) error {
		if _, err := conn.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("mirror: erase: %s: %w", firstLine(q), err)
		}
		return nil
	}
	if err := exec(`PRAGMA secure_delete = ON`); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA secure_delete = OFF`)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("mirror: erase: %w", err)
	}
	defer tx.Rollback()
	err = inChunks(ids, func(chunk []string) error {
		// The writers' counts lose the rows first.
		for col, table := range map[string]string{"sessions": "sessions", "messages": "message_rows"} {
			if _, err := tx.ExecContext(ctx, `UPDATE _pond_writers SET `+col+` = `+col+` - (SELECT count(*) FROM `+table+`
				WHERE session_id IN (`+placeholders(len(chunk))+`) AND ingest_seq >> `+fmt.Sprint(WriterShift)+` = _pond_writers.writer)`,
				anys(chunk)...); err != nil {
				return fmt.Errorf("mirror: erase: writers' counts: %w", err)
			}
		}
		for _, table := range []string{"part_rows", "message_rows", "sessions", "_pond_first_ingest"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE session_id IN (`+placeholders(len(chunk))+`)`, anys(chunk)...); err != nil {
				return fmt.Errorf("mirror: erase from %s: %w", table, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM _pond_search_scope WHERE n <= 0`); err != nil {
		return fmt.Errorf("mirror: erase: scope counters: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("mirror: erase: %w", err)
	}
	m.commits.Add(1)
	for _, q := range []string{
		`INSERT INTO messages_fts(messages_fts) VALUES ('optimize')`,
		`INSERT INTO messages_cjk(messages_cjk) VALUES ('optimize')`,
		`VACUUM`,
	} {
		if err := exec(q); err != nil {
			return err
		}
	}
	return m.truncateLog(ctx, conn)
}

// truncateLog copies the log into the database and truncates it, retrying while a reader
// still holds a snapshot (a checkpoint cannot reset the log under one).
func (m *Mirror) truncateLog(ctx context.Context, conn *sql.Conn) error {
	m.ckpt.mu.Lock()
	defer m.ckpt.mu.Unlock()
	for try := 0; ; try++ {
		var busy, logFrames, copied int64
		err := conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &copied)
		if err != nil {
			return fmt.Errorf("mirror: erase: truncate the log: %w", err)
		}
		if busy == 0 {
			m.ckpt.log.Store(0)
			return nil
		}
		if try == 50 {
			return fmt.Errorf("mirror: erase: a reader kept the log from being truncated; run the erase again")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func firstLine(q string) string {
	for i, c := range q {
		if c == '\n' {
			return q[:i]
		}
	}
	return q
}
