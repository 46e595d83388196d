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
// messages view reads it from Lance through pond_message_options(session_id, message_id, …), a
// session at a time: the first call for a session reads the records of all its messages in one
// Lance scan and keeps them for the calls after it. Lance decompresses a whole page (8 MiB of
// records) to read any row of it, so a query that goes from session to session in the order
// they were stored, as a scan of every message does, reads ahead: when the session asked for
// is the one stored right after the last one read, the read also takes the sessions stored
// after it (the mirror's order, which is Lance's), twice as many each time up to readAheadMax.

// Records reads raw records from the archive for the mirror's connections.
type Records interface {
	// Records returns the raw records of the messages of the sessions, by session and message
	// id (a message without one is absent or "").
	Records(ctx context.Context, sessionIDs []string) (map[string]map[string]string, error)
	// Generation changes whenever a write may have changed what Records returns: records kept
	// from before it are read again.
	Generation() uint64
}

// errNoRecords is pond_message_options' error on a connection opened without Records.
var errNoRecords = errors.New("pond_message_options: this connection has no archive to read raw records from")

// recordReadTimeout bounds one read from Lance: a function call has no context of its own, and
// the statement's deadline is enforced by interrupting SQLite between rows.
const recordReadTimeout = time.Minute

// A connection keeps the records of up to keptSessions sessions, fewer when they add up to
// more than keptBytes (the session asked for is always kept), and reads ahead at most
// readAheadMax sessions.
const (
	keptSessions = 64
	keptBytes    = 64 << 20
	readAheadMax = 32
)

// recordCache is one connection's pond_message_options: SQLite calls a connection's functions
// from one goroutine at a time, so it needs no lock.
type recordCache struct {
	src  Records
	next func(sessionID string, n int) ([]string, error) // up to n sessions stored after sessionID
	kept []keptRecords                                   // most recently used first
	// expected is the session stored right after the last one read: a scan asks for it next.
	// ahead is how many sessions after the one asked for the last read took.
	expected string
	ahead    int
}

type keptRecords struct {
	session string
	gen     uint64
	byID    map[string]string
	bytes   int
}

// lookup is pond_message_options(session_id, message_id, ingest_seq): the message's raw
// record, or NULL. ingest_seq is not used (see the messages view).
func (c *recordCache) lookup(sessionID, messageID string, _ int64) (any, error) {
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
	ids := []string{sessionID}
	if c.next != nil {
		if sessionID == c.expected {
			c.ahead = min(max(2*c.ahead, 1), readAheadMax)
		} else {
			c.ahead = 0
		}
		more, err := c.next(sessionID, c.ahead+1)
		if err != nil {
			return nil, fmt.Errorf("pond_message_options: sessions after %s: %w", sessionID, err)
		}
		c.expected = ""
		if len(more) > c.ahead {
			c.expected, more = more[c.ahead], more[:c.ahead]
		}
		ids = append(ids, more...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), recordReadTimeout)
	read, err := c.src.Records(ctx, ids)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("pond_message_options: session %s: %w", sessionID, err)
	}
	c.keep(gen, ids, read)
	return recordValue(read[sessionID][messageID]), nil
}

// keep puts the sessions ids just read first (the one asked for, ids[0], at the head), then
// those kept before while they fit; another generation's are dropped.
func (c *recordCache) keep(gen uint64, ids []string, read map[string]map[string]string) {
	kept, total := make([]keptRecords, 0, keptSessions), 0
	fresh := map[string]bool{}
	for i, id := range ids {
		if fresh[id] {
			continue
		}
		fresh[id] = true
		k := keptRecords{session: id, gen: gen, byID: read[id]}
		for _, v := range k.byID {
			k.bytes += len(v)
		}
		if i > 0 && (len(kept) == keptSessions || total+k.bytes > keptBytes) {
			break
		}
		kept, total = append(kept, k), total+k.bytes
	}
	for _, old := range c.kept {
		if old.gen != gen || fresh[old.session] || len(kept) == keptSessions || total+old.bytes > keptBytes {
			continue
		}
		kept, total = append(kept, old), total+old.bytes
	}
	c.kept = kept
}

func recordValue(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// sessionsAfter returns a function giving up to n sessions stored after sessionID in the
// mirror at db, in that order: by the sessions table's rowid, which follows the order their
// messages arrived in (a session's row is applied with its first messages).
func sessionsAfter(db *sql.DB) func(sessionID string, n int) ([]string, error) {
	return func(sessionID string, n int) ([]string, error) {
		return QueryStrings(context.Background(), db, `SELECT session_id FROM sessions
			WHERE rowid > (SELECT rowid FROM sessions WHERE session_id = ?1) ORDER BY rowid LIMIT ?2`, sessionID, n)
	}
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
