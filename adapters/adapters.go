// Package adapters reads each coding agent's native session files into the canonical model (and,
// for restore, writes them back). One sub-package per agent implements Adapter; adapters/all
// lists them explicitly; every adapter passes the shared suite in adapters/adaptertest.
//
// An adapter is pure parsing: it finds the agent's files, lists them as Sources, and turns a
// Source into canonical events from a Cursor. Deciding what is fresh, batching, storing and
// remembering cursors belong to the sync engine (daemon/capture).
package adapters

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// Adapter reads one agent's sessions.
type Adapter interface {
	// Name is the adapter's name on the CLI, in the config and as source_agent: "claude-code".
	Name() string
	Capabilities() Capabilities
	// Roots are the agent's own roots on this machine (the folder its discovery would find:
	// the Claude Code config dir holding projects/, CODEX_HOME, …), honouring the agent's own
	// override variables. They need not exist.
	Roots(env Env) []string
	// Scan lists the sources under root. A missing root is an error wrapping fs.ErrNotExist.
	Scan(ctx context.Context, env Env, root string) ([]Source, error)
	// RootStamp is a cheap stamp of everything Scan(root) reads, for an adapter whose Scan is
	// costly (a query over a database): the sync engine skips Scan, and so every source of the
	// root, while the stamp equals the one taken before the last scan that left nothing to do.
	// It changes whenever anything Scan reads changes (the size and modification time of each
	// file, say) and is taken before Scan, so a change while Scan runs shows at the next sync.
	// "" means it cannot vouch for the root now (a file changed too recently for its
	// modification time to tell a later write apart), or that Scan is cheap enough as it is;
	// the root is then scanned.
	RootStamp(ctx context.Context, env Env, root string) (string, error)
	// Read parses src and emits its canonical events. A zero cur reads from the start; otherwise
	// the adapter may resume where cur says it stopped when the source has only grown since
	// (checked by the cursor's tail anchor), and must re-read from the start when not. It
	// returns the cursor to resume from next time. A record that cannot be parsed is reported
	// through out.Malformed and skipped; only an unreadable source is an error.
	Read(ctx context.Context, env Env, src Source, cur Cursor, out Emitter) (Cursor, error)
}

// Capabilities declare what an adapter can do.
type Capabilities struct {
	Restore     bool // stored sessions can be written back in this agent's format
	ToolCalls   bool // sessions carry tool calls and results
	Subagents   bool // sessions can have sub-agent children
	Incremental bool // an appended source is read from where the last read stopped
	// Searched: a root is a folder searched for the agent's files (Aider's home, walked to a
	// bounded depth), not a folder the agent owns, so nothing watches it for changes: the
	// periodic sync finds what changed there.
	Searched bool
	// Commands: the agent records the commands it ran, not named tool calls (Aider's "> Running
	// CMD" lines). A restore into it keeps every call, each answered by its result, but as a
	// command: read back, a call carries the agent's one name for a command, not its original
	// name, which is only in the command's text.
	Commands bool
}

// Env is what discovery and reading may look at of the machine, so tests can stand in a fake
// home and fake variables.
type Env struct {
	GOOS   string
	Home   string
	Getenv func(string) string
	// OpenSQLite opens an agent's SQLite database read-only without ever locking the agent out.
	// Provided by the caller (the store owns the SQLite driver); nil when unavailable.
	OpenSQLite func(path string) (*sql.DB, error)
	// WriteRows inserts a restore's rows into an agent's SQLite database (restore.Rows), for the
	// agents restored that way. Provided by the caller like OpenSQLite; nil when unavailable.
	WriteRows restore.RowWriter
	// Limits bound what one read may take of a source; the zero value is the defaults.
	Limits Limits
	// Projects are the project folders the archive's sessions name (every agent's), for an
	// agent that keeps its files inside projects rather than a folder of its own (Aider): the
	// sync engine fills it from the store; nil when unknown.
	Projects []string
}

// Default bounds of a read (Limits). A line or a decompressed source that large is no session
// an agent wrote: it is reported as malformed and skipped, never held in memory whole.
const (
	DefaultMaxLineBytes         = 64 << 20
	DefaultMaxDecompressedBytes = 1 << 30
)

// ErrTooLarge says a line or a decompressed source is over its Limits.
var ErrTooLarge = errors.New("over the size cap")

// Limits bound what reading one source may take. A zero field takes its default; tests set
// small ones.
type Limits struct {
	LineBytes         int64 // one line of a line-based source, or a whole-file document (DefaultMaxLineBytes)
	DecompressedBytes int64 // a compressed source once decompressed (DefaultMaxDecompressedBytes)
}

// Line is the cap on one line.
func (l Limits) Line() int64 { return orDefault(l.LineBytes, DefaultMaxLineBytes) }

// Decompressed is the cap on a decompressed source.
func (l Limits) Decompressed() int64 {
	return orDefault(l.DecompressedBytes, DefaultMaxDecompressedBytes)
}

// ReadFile reads a whole-file record (a JSON document) of at most max bytes; a larger file is
// adapters.ErrTooLarge, without reading it into memory.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w of %d bytes a document", path, ErrTooLarge, max)
	}
	return data, nil
}

func orDefault(v, def int64) int64 {
	if v > 0 {
		return v
	}
	return def
}

// CurrentEnv is the environment of this process.
func CurrentEnv() Env {
	home, _ := os.UserHomeDir()
	return Env{GOOS: runtime.GOOS, Home: home, Getenv: os.Getenv}
}

// Source is one unit an adapter reads: a session file, or a session inside a database.
type Source struct {
	// Key identifies the source within its adapter and root across runs (e.g. the file's
	// path); cursors are stored under it.
	Key string `json:"key"`
	// Path is the file to read (the database, for a session inside one).
	Path string `json:"path"`
	// Stamp changes whenever the source changes (size and modification time for a file). A
	// source whose stamp equals its cursor's is fresh and is not read at all.
	Stamp   string    `json:"stamp"`
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
	// Hint is adapter-private detail found while scanning (e.g. the session id in a database).
	Hint string `json:"hint,omitempty"`
	// Skip, when set, is why the source is listed but not read: SkipSuperseded (another
	// source holds the same session, e.g. OpenCode's database over its legacy files) or
	// SkipUnsupported (a format version the adapter cannot read).
	Skip string `json:"skip,omitempty"`
}

// Reasons a scanned source is not read.
const (
	SkipSuperseded  = "superseded"
	SkipUnsupported = "unsupported"
)

// FileStamp is the stamp of a file: its size and modification time.
func FileStamp(info os.FileInfo) string {
	return info.ModTime().UTC().Format(time.RFC3339Nano) + "/" + strconv.FormatInt(info.Size(), 10)
}

// Cursor remembers how far a source was read.
type Cursor struct {
	Stamp  string `json:"stamp"`            // the source's stamp when it was read
	Offset int64  `json:"offset,omitempty"` // bytes consumed: whole records only
	Line   int    `json:"line,omitempty"`   // lines consumed, for locating malformed lines
	Anchor string `json:"anchor,omitempty"` // digest of the bytes just before Offset
	// State is the adapter's own parse state at Offset (e.g. the session id read from a header
	// line), so that a resumed read can go on.
	State json.RawMessage `json:"state,omitempty"`
}

// Location names where in a source something was found.
type Location struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
}

// Emitter receives what a read produces.
type Emitter interface {
	// Event takes the next event. A stream lists a session before its messages and a message
	// before its parts; an incremental read re-emits the session (and the message, before new
	// parts of an already-emitted message) so that the stream stands on its own.
	Event(e session.Event) error
	// Malformed reports a record that could not be parsed; reading goes on.
	Malformed(at Location, err error)
	// Unknown reports a record type (or key) the adapter does not map and keeps only as raw
	// options, so that format drift is visible.
	Unknown(at Location, what string)
}

// Checkpointer is implemented by an Emitter that stores a long source in several batches while
// it is read, so that a source of any size needs bounded memory and a crash costs only what
// came after the last batch. An adapter that can resume mid-source (adapters/jsonl's
// File.Checkpoints does it for line-based ones) asks WantCheckpoint after a record and, when it
// says yes, gives the cursor that resumes right after that record: Stamp left empty, since the
// source has not been read whole.
type Checkpointer interface {
	WantCheckpoint() bool
	Checkpoint(cur Cursor)
}

// RestoreMarkKey is the key under which a session Pond restored into another agent records
// where it came from, inside the agent's own session metadata (written by the agent's encoder).
const RestoreMarkKey = restore.MarkKey

// ApplyRestoreMark records a restore mark found in a session's metadata: the mark goes to
// options.pond.restored_from, and the original session becomes the parent when the session has
// none of its own, so that search can group the copy with its original or hide it. A mark
// naming no valid session id (session.CheckID) links nothing: the file is the agent's, the mark
// only a claim in it, and a hostile one must not get the whole session refused.
func ApplyRestoreMark(s *session.Session, mark json.RawMessage) {
	var m struct {
		Session string `json:"session"`
	}
	if len(mark) == 0 || json.Unmarshal(mark, &m) != nil || m.Session == "" {
		return
	}
	if s.Options == nil {
		s.Options = session.Options{}
	}
	s.Options["pond"] = Object(Field{Key: "restored_from", Value: mark})
	if s.ParentSessionID == "" && m.Session != s.ID && session.CheckID(m.Session) == nil {
		s.ParentSessionID = m.Session
	}
}
