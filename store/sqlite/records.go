package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/mattn/go-sqlite3"
)

// The mirror keeps no raw records (layout 5). A message's raw record (messages.options: the
// agent's own line, Pond's capture stamp) is the archive's largest value, and Lance holds it
// already, packed: a second copy here was a quarter of the mirror and of the archive. The
// messages view reads it from Lance through pond_message_options(session_id, message_id), a
// session at a time: the first call for a session reads the records of all its messages in one
// Lance scan and keeps them for the calls after it, so a query over one session's messages, or
// over every message in the order they were stored, reads each session once.

// Records reads raw records from the archive for the mirror's connections.
type Records interface {
	// Records returns the raw records of one stored session's messages, by message id (a
	// message without one is absent or "").
	Records(ctx context.Context, sessionID string) (map[string]string, error)
	// Generation changes whenever a write may have changed what Records returns: records kept
	// from before it are read again.
	Generation() uint64
}

// errNoRecords is pond_message_options' error on a connection opened without Records.
var errNoRecords = errors.New("pond_message_options: this connection has no archive to read raw records from")

// recordReadTimeout bounds one session's read from Lance: a function call has no context of
// its own, and the statement's deadline is enforced by interrupting SQLite between rows.
const recordReadTimeout = time.Minute

// A connection keeps the records of up to keptSessions sessions, fewer when they add up to
// more than keptBytes (the last one read is always kept).
const (
	keptSessions = 8
	keptBytes    = 64 << 20
)

// recordCache is one connection's pond_message_options: SQLite calls a connection's functions
// from one goroutine at a time, so it needs no lock.
type recordCache struct {
	src  Records
	kept []keptRecords // most recently used first
}

type keptRecords struct {
	session string
	gen     uint64
	byID    map[string]string
	bytes   int
}

// lookup is pond_message_options(session_id, message_id): the message's raw record, or NULL.
func (c *recordCache) lookup(sessionID, messageID string) (any, error) {
	if c.src == nil {
		return nil, errNoRecords
	}
	gen := c.src.Generation()
	for i, k := range c.kept {
		if k.session == sessionID && k.gen == gen {
			copy(c.kept[1:i+1], c.kept[:i])
			c.kept[0] = k
			return recordValue(k.byID[messageID]), nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), recordReadTimeout)
	byID, err := c.src.Records(ctx, sessionID)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("pond_message_options: session %s: %w", sessionID, err)
	}
	k := keptRecords{session: sessionID, gen: gen, byID: byID}
	for _, v := range byID {
		k.bytes += len(v)
	}
	// The new session first, then those kept before it while they fit (another generation's
	// or this session's older copy is dropped).
	kept, total := []keptRecords{k}, k.bytes
	for _, old := range c.kept {
		if old.gen != gen || old.session == sessionID || len(kept) == keptSessions || total+old.bytes > keptBytes {
			continue
		}
		kept, total = append(kept, old), total+old.bytes
	}
	c.kept = kept
	return recordValue(byID[messageID]), nil
}

func recordValue(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// connector opens go-sqlite3 connections to one DSN, each set up by hook: a driver value of
// its own carries the hook, so each mirror's connections can read their own archive's records.
type connector struct {
	driver *sqlite3.SQLiteDriver
	dsn    string
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.driver.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return c.driver }

// openDB opens dsn with hook run on each new connection.
func openDB(dsn string, hook func(*sqlite3.SQLiteConn) error) *sql.DB {
	return sql.OpenDB(connector{&sqlite3.SQLiteDriver{ConnectHook: hook}, dsn})
}
