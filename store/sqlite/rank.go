package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// _pond_search_rank holds, per message row (by the same rowid), only what a full-text search
// filters and orders its matches by before it keeps the best of them: its time, its agent (which
// also tells a sub-agent's message, SubagentSQL) and its role. A search of a few thousand
// matches joined each one to message_rows, whose rows are fat (the packed search text is inline:
// ~29 rows a 16 KiB page), and spent two thirds of its time reading those pages; joined to this
// table (hundreds of rows a page) it reads a few, and message_rows only for the matches it keeps
// (docs/benchmarks.md, 2026-12-06). A search without filters does not read it: the word index
// tells sub-agents' messages apart itself (fts.go). The mirror never changes a stored
// message's time, agent or role (only its search text, embedding model and ingest sequence), so
// the copies stay true.
//
// ApplyWhen adds a row beside each message it inserts (an insert trigger would give every
// message insert a statement journal); the delete trigger follows erasures. A mirror written by
// a binary that did not keep the table is filled again on open (ensureRank).
var rankDDL = []string{
	`CREATE TABLE IF NOT EXISTS _pond_search_rank (
		rid          INTEGER PRIMARY KEY,
		timestamp    TEXT NOT NULL,
		source_agent TEXT NOT NULL,
		role         TEXT NOT NULL
	)`,
	`CREATE TRIGGER IF NOT EXISTS messages_search_rank_delete AFTER DELETE ON message_rows BEGIN
		DELETE FROM _pond_search_rank WHERE rid = old.rowid;
	END`,
}

// retiredRankDDL drops the table kept before the agent and role were (_pond_message_rank, three
// columns) and its trigger. It keeps another name so that an older binary, which writes rows of
// three values into it, still finds its own table as it left it (or makes it again); its
// trigger goes with it, since a trigger over a dropped table fails every delete.
var retiredRankDDL = []string{
	`DROP TRIGGER IF EXISTS messages_rank_delete`,
	`DROP TABLE IF EXISTS _pond_message_rank`,
}

// rankInsertSQL adds one message's rank row: its rowid, time, agent and role.
const rankInsertSQL = `INSERT INTO _pond_search_rank VALUES (?, ?, ?, ?)`

// SubagentSQL says in SQL whether a source agent (a column or a parameter) is a sub-agent's:
// its messages carry "agent/sub-agent", which a search leaves out by default (store's
// messageFilters, over message_rows or the rank table).
func SubagentSQL(sourceAgent string) string { return `instr(` + sourceAgent + `, '/') > 0` }

// IsSubagent is SubagentSQL in Go.
func IsSubagent(sourceAgent string) bool { return strings.Contains(sourceAgent, "/") }

// ensureRank creates the rank table and fills it when it does not hold a row for every message
// (new, or left behind by a binary that wrote messages without it).
func ensureRank(ctx context.Context, tx *sql.Tx) error {
	for _, ddl := range retiredRankDDL {
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("rank table: %w", err)
		}
	}
	for _, ddl := range rankDDL {
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("rank table: %w", err)
		}
	}
	var messages, ranked int64
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM message_rows), (SELECT count(*) FROM _pond_search_rank)`).Scan(&messages, &ranked); err != nil {
		return fmt.Errorf("rank table: %w", err)
	}
	if messages == ranked {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM _pond_search_rank`); err != nil {
		return fmt.Errorf("rank table: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO _pond_search_rank SELECT rowid, timestamp, source_agent, role FROM message_rows`); err != nil {
		return fmt.Errorf("rank table: fill: %w", err)
	}
	return nil
}
