// Package opencode captures OpenCode sessions: the SQLite database (`opencode.db`, and
// `opencode-<channel>.db` for other release channels) that OpenCode ≥1.2 keeps in its data
// directory, and the legacy `storage/` JSON tree of OpenCode ≤1.1 (session, message and part
// files). A session held by a database and by the tree is read from the database only: the
// tree's copy is listed as superseded (see Superseded) and reads as nothing.
//
// # Sources and freshness
//
// One Source per session. A database session has the key "<db file>#<session id>", the
// session id as Hint, its row count as Size, and a stamp built from the session's
// time_updated and the count, latest time_updated and summed time_updated of its message,
// part (and, when present, session_message) rows, so a session none of whose rows changed is
// fresh. A tree session has the key "storage#<session id>" and a stamp digesting the names,
// sizes and modification times of its files. A changed session is read again whole (OpenCode
// updates rows in place: streamed text, tool state, token counts); the ids are stable, so the
// store matches what it already holds, and the cursor is only the stamp. The database is
// opened read-only through Env.OpenSQLite, only for the duration of one Scan or Read; a read
// loads the session in one read transaction (one snapshot, which never holds up OpenCode's WAL
// writer), closes the database and then emits.
//
// # Mapping
//
//	session row / file     Session: project = directory, else the project's worktree (not
//	                       the "global" project's "/"), else the project id; parent_id →
//	                       ParentSessionID and SourceAgent "opencode/subagent" (the task
//	                       tool's child sessions; forks carry no parent in OpenCode); the
//	                       project row rides along in options.source.project
//	message row / file     user or assistant Message, timestamp time_created, messages in
//	                       OpenCode's order (time_created, id); another role → a system
//	                       message, its parts all kept raw as below
//	part text              text part; synthetic text, and the text of a compaction summary
//	                       (an assistant message with summary:true), is injected
//	part reasoning         reasoning part
//	part file              file part: a data: URL becomes bytes (base64) or a string, any
//	                       other URL stays a URL
//	part tool              tool_call part "<part id>:0" (CallID = callID, Params =
//	                       state.input) and, once the tool has finished, tool_result part
//	                       "<part id>:1" (state.output, or state.error with IsFailure); a
//	                       pending or running tool has only its call. The two ordinals are
//	                       reserved either way, so later parts keep their ordinals.
//	part step-start, step-finish, snapshot, patch, agent, subtask, retry, compaction, and
//	any unknown type       a system message of its own (id = the part id, timestamp = the
//	                       part's), holding only the raw row: these carry no conversation.
//	                       An unknown type is also reported through Emitter.Unknown.
//	session_message row    (OpenCode's newer session model, empty in 1.18) a system message
//	                       "session_message:<id>" holding the raw row, reported as unknown.
//
// Every row or file is kept verbatim under options.source.record of the object it produced (the
// tool_call for a tool part), with options.source.table (or .file) naming where it came from.
// A database row is a JSON object of its columns, TEXT columns (the `data` JSON included) as
// strings, so it can be written back byte for byte. The object-valued entries of a text,
// reasoning or tool part's `metadata` (provider metadata keyed by provider, such as
// {"anthropic": {"signature": …}}) are also copied to options.<provider>.
//
// A row or file whose JSON is not an object, a file part without a URL, and a part whose
// message the session does not hold are reported through Emitter.Malformed with their location
// ("<db path>#<row id>" or the file's path) and skipped, with the parts of a skipped message.
// Keys and types OpenCode's schema does not define are reported through Emitter.Unknown, once
// per read.
package opencode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pondhq/pond/adapters"
)

// Name is the adapter's name and the SourceAgent of its sessions.
const Name = "opencode"

// SubagentKind is the SourceAgent of a child session (a task tool run).
const SubagentKind = Name + "/subagent"

// Adapter reads OpenCode sessions.
type Adapter struct {
	// DBStem names the databases read: <DBStem>.db and <DBStem>-<channel>.db; "" is OpenCode's
	// "opencode". A fork that keeps OpenCode's database under its own name (Kilo CLI's
	// kilo.db, adapters/kilo) sets it.
	DBStem string
}

// stem is the name of the databases a reads.
func (a Adapter) stem() string {
	if a.DBStem != "" {
		return a.DBStem
	}
	return "opencode"
}

// New returns the OpenCode adapter.
func New() Adapter { return Adapter{} }

// Name implements adapters.Adapter.
func (Adapter) Name() string { return Name }

// Capabilities implements adapters.Adapter. Package resume restores into this agent from the
// raw records kept in options.source.
func (Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Restore: true, ToolCalls: true, Subagents: true, Incremental: true}
}

// Roots implements adapters.Adapter: OpenCode's data directory, $XDG_DATA_HOME/opencode, else
// ~/.local/share/opencode on every platform (OpenCode resolves it with xdg-basedir, which is
// not platform-specific, so Windows and macOS use the same folder under the home directory).
func (Adapter) Roots(env adapters.Env) []string {
	if env.Getenv != nil {
		if x := env.Getenv("XDG_DATA_HOME"); x != "" {
			return []string{filepath.Join(x, "opencode")}
		}
	}
	if env.Home == "" {
		return nil
	}
	return []string{filepath.Join(env.Home, ".local", "share", "opencode")}
}

// Scan implements adapters.Adapter: the sessions of every database in root, then the sessions
// of the legacy storage tree, those also held by a database marked superseded.
func (a Adapter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("opencode: scan: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("opencode: scan: %s is not a directory", root)
	}
	dbs, err := databases(root, a.stem())
	if err != nil {
		return nil, fmt.Errorf("opencode: scan %s: %w", root, err)
	}
	var srcs []adapters.Source
	inDB := map[string]string{} // session id → the database file holding it
	for _, path := range dbs {
		found, err := scanDB(ctx, env, path)
		if err != nil {
			return nil, err
		}
		for _, src := range found {
			if _, ok := inDB[src.Hint]; !ok {
				inDB[src.Hint] = filepath.Base(path)
			}
		}
		srcs = append(srcs, found...)
	}
	tree, err := scanStorage(ctx, filepath.Join(root, "storage"), inDB)
	if err != nil {
		return nil, err
	}
	return append(srcs, tree...), nil
}

// Read implements adapters.Adapter. A changed session is read whole, so the cursor holds only
// the stamp of what was read.
func (Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	if strings.HasPrefix(src.Key, storageKeyPrefix) {
		return readStorage(ctx, src, out)
	}
	return readDB(ctx, env, src, out)
}

const (
	storageKeyPrefix = "storage#"
	supersededHint   = "superseded:"
)

// Superseded reports whether src is a legacy storage tree session that a database also holds,
// and names that database. Such a source reads as nothing: the database's copy is the one
// captured.
func Superseded(src adapters.Source) (db string, ok bool) {
	rest, ok := strings.CutPrefix(src.Hint, supersededHint)
	if !ok {
		return "", false
	}
	db, _, _ = strings.Cut(rest, "#")
	return db, true
}
