package restore

import (
	"context"
	"errors"
)

// Rows is a restore into an agent's SQLite database rather than into files of its own (Hermes's
// state.db, Goose's sessions.db): rows inserted into the agent's tables, all in one transaction
// or none. A planned file carrying Rows names the database as its Path; resume hands it to the
// RowWriter it was given (store/sqlite.WriteAgentRows, through adapters.Env.WriteRows), after
// every plain file of the batch is written, so that a failure leaves nothing behind.
//
// The rules match those of files: nothing is overwritten (a row that would replace one already
// there fails the whole restore with ErrRowExists), the writer waits out the agent's own writers
// (a busy timeout) instead of failing or locking it out for long, and it tolerates a database of
// another version of the agent's schema (see Insert).
type Rows struct {
	// Create makes the agent's tables when the database does not exist yet (a restore under
	// --out-dir, or an agent never run): the statements the agent itself would run, written so
	// that running them on an existing database changes nothing (CREATE TABLE IF NOT EXISTS …),
	// since the agent brings the schema up to its own version when it next opens the file.
	Create string
	// Inserts are the rows, inserted in order.
	Inserts []Insert
	// Renumber names, per table, a row-id column whose planned values the database may replace
	// (an INTEGER PRIMARY KEY the agent orders by): when any planned value is taken in the target,
	// every row of that table is inserted without it, in order, so the database numbers them
	// after its own rows and their relative order holds.
	Renumber map[string]string
}

// Insert is one row: the values of its columns, each nil, int64, float64, string or []byte.
// A column the target table lacks (an older version of the agent's schema) is left out, and the
// writer reports it, so the restore can say what the target could not hold; in a database the
// restore itself created from Create, the column is added instead.
type Insert struct {
	Table   string
	Columns []string
	Values  []any
}

// Count is the number of rows.
func (r *Rows) Count() int { return len(r.Inserts) }

// RowWriter writes a restore's rows into the database at path in one transaction (creating the
// database from Rows.Create when it does not exist). It returns the "table.column" names it left
// out because the target's tables lack them, and ErrRowExists (wrapped) when a row would
// replace one already there; on any error nothing is written. Adapters never link a SQLite
// driver, so the caller provides it: store/sqlite.WriteAgentRows.
type RowWriter func(ctx context.Context, path string, rows *Rows) (leftOut []string, err error)

// ErrRowExists is a row a restore would insert that the agent's database already holds (a
// session of the same id): nothing was written.
var ErrRowExists = errors.New("a row with the same key is already in the database")

// LeftOutReason is the downgrade reason of a restore whose target database lacked columns.
func LeftOutReason(cols []string) string {
	if len(cols) == 0 {
		return ""
	}
	s := "the target database's schema has no column "
	for i, c := range cols {
		if i > 0 {
			s += ", "
		}
		s += c
	}
	return s + " (an older version of the agent): those values were left out"
}
