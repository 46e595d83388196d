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

// The mirror keeps no raw records (layout 5) and no large tool bodies (layout 6). A message's
// raw record (messages.options: the agent's own line, Pond's capture stamp) is the archive's
// largest value, tool calls' and results' bodies (parts.variant_data) and parts' own records
// (parts.options) the next; Lance holds them all already, packed, and a second copy here was
// most of the mirror. The views read them from Lance through pond_message_options and
// pond_part_value, a session at a time: the first call for a session reads the values of all
// its messages or parts in one Lance scan and keeps them for the calls after it. Lance
// decompresses a whole page (8 MiB of records) to read any row of it, so a query that goes
// from session to session in the order they were stored, as a scan of every row does, reads
// ahead: when the session asked for is the one stored right after the last one read, the read
// also takes the sessions stored after it (the mirror's order, which is Lance's), twice as many
// each time up to readAheadMax.

// Archive reads what the mirror leaves to Lance, for the mirror's connections.
type Archive interface {
	// Records returns the raw records of the messages of the sessions, by session and message
	// id (a message without one is absent or "").
	Records(ctx context.Context, sessionIDs []string) (map[string]map[string]string, error)
	// PartValues returns the values of the parts of the sessions that the mirror leaves to
	// Lance (LeftToLance), by session and PartValueKey.
	PartValues(ctx context.Context, sessionIDs []string) (map[string]map[string]string, error)
	// Generation changes whenever a write may have changed what either returns: values kept
	// from before it are read again.
	Generation() uint64
}

// PartValueKey is the key of a part's value in what Archive.PartValues returns: column is
// "variant_data" or "options".
func PartValueKey(messageID, partID, column string) string {
	return messageID + "\x00" + partID + "\x00" + column
}

// inLance is the stored form of a part's value the mirror leaves to Lance (a zstd frame starts
// with 0x28, a derived text part is an empty BLOB).
var inLance = []byte{0}

// LeftToLance reports whether the mirror leaves a part's value to Lance: a tool call's or
// result's body, or a part's record, long enough that packMin would pack it. Text and
// reasoning stay (session pages show them), and so does anything short, as it is.
func LeftToLance(partType, column, value string) bool {
	if len(value) < packMin {
		return false
	}
	return column == "options" || partType == "tool_call" || partType == "tool_result"
}

// errNoArchive is the error of pond_message_options and pond_part_value on a connection
// opened without an Archive.
var errNoArchive = errors.New("this connection has no archive to read raw records and tool bodies from")

// archiveReadTimeout bounds one read from Lance: a function call has no context of its own,
// and the statement's deadline is enforced by interrupting SQLite between rows.
const archiveReadTimeout = time.Minute

// A cache keeps the values of up to keptSessions sessions, fewer when they add up to more than
// keptBytes (the session asked for is always kept), and reads ahead at most readAheadMax
// sessions.
const (
	keptSessions = 64
	keptBytes    = 64 << 20
	readAheadMax = 32
)

// archiveValues are one connection's caches of what it reads from the archive.
type archiveValues struct {
	records, parts *sessionCache
}

// newArchiveValues gives a connection its caches of src's values (none when src is nil),
// reading ahead through next (nil: no read-ahead).
func newArchiveValues(src Archive, next func(sessionID string, n int) ([]string, error)) archiveValues {
	if src == nil {
		return archiveValues{&sessionCache{}, &sessionCache{}}
	}
	return archiveValues{
		records: &sessionCache{name: "pond_message_options", read: src.Records, gen: src.Generation, next: next},
		parts:   &sessionCache{name: "pond_part_value", read: src.PartValues, gen: src.Generation, next: next},
	}
}

// messageOptions is pond_message_options(session_id, message_id, ingest_seq): the message's
// raw record, or NULL. ingest_seq is not used (see the messages view).
func (a archiveValues) messageOptions(sessionID, messageID string, _ int64) (any, error) {
	return a.records.value(sessionID, messageID)
}

// partValue is pond_part_value(session_id, message_id, id, column, ingest_seq): the value of
// the part's column (variant_data or options) kept in Lance, or NULL. ingest_seq is not used
// (see the parts view).
func (a archiveValues) partValue(sessionID, messageID, partID, column string, _ int64) (any, error) {
	return a.parts.value(sessionID, PartValueKey(messageID, partID, column))
}

// sessionCache is one connection's values of one kind read from the archive: SQLite calls a
// connection's functions from one goroutine at a time, so it needs no lock.
type sessionCache struct {
	name string // the SQL function, for errors
	read func(ctx context.Context, sessionIDs []string) (map[string]map[string]string, error)
	gen  func() uint64
	next func(sessionID string, n int) ([]string, error) // up to n sessions stored after sessionID
	kept []keptSession                                   // most recently used first
	// expected is the session stored right after the last one read: a scan asks for it next.
	// ahead is how many sessions after the one asked for the last read took.
	expected string
	ahead    int
}

type keptSession struct {
	session string
	gen     uint64
	byKey   map[string]string
	bytes   int
}

// value is the session's value under key, or NULL.
func (c *sessionCache) value(sessionID, key string) (any, error) {
	if c.read == nil {
		return nil, errNoArchive
	}
	gen := c.gen()
	for i, k := range c.kept {
		if k.session == sessionID && k.gen == gen {
			copy(c.kept[1:i+1], c.kept[:i])
			c.kept[0] = k
			return nonEmpty(k.byKey[key]), nil
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
			return nil, fmt.Errorf("%s: sessions after %s: %w", c.name, sessionID, err)
		}
		c.expected = ""
		if len(more) > c.ahead {
			c.expected, more = more[c.ahead], more[:c.ahead]
		}
		ids = append(ids, more...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), archiveReadTimeout)
	read, err := c.read(ctx, ids)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("%s: session %s: %w", c.name, sessionID, err)
	}
	c.keep(gen, ids, read)
	return nonEmpty(read[sessionID][key]), nil
}

// keep puts the sessions ids just read first (the one asked for, ids[0], at the head), then
// those kept before while they fit; another generation's are dropped.
func (c *sessionCache) keep(gen uint64, ids []string, read map[string]map[string]string) {
	kept, total := make([]keptSession, 0, keptSessions), 0
	fresh := map[string]bool{}
	for i, id := range ids {
		if fresh[id] {
			continue
		}
		fresh[id] = true
		k := keptSession{session: id, gen: gen, byKey: read[id]}
		for _, v := range k.byKey {
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

func nonEmpty(s string) any {
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
