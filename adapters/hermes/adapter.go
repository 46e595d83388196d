// Package hermes captures Hermes Agent (NousResearch) sessions and restores into it.
//
// # Where Hermes keeps sessions
//
// The root is HERMES_HOME, else ~/.hermes (%LOCALAPPDATA%\hermes on Windows). The default
// profile keeps its store in ROOT/state.db and every other profile in
// ROOT/profiles/<name>/state.db (SQLite, WAL). Beside each store, sessions/ may hold gateway
// transcripts (<id>.jsonl: a session_meta line, then one chat message a line) and legacy
// snapshots (session_<id>.json: the session's fields and its messages). PyPI's 0.19 writes
// schema 22, upstream is at 30: every column is read by name from `SELECT *`, so columns of
// either version (and later ones) are kept, and only the few this package maps are looked at.
//
// # Sources and freshness
//
// One Source per session of a store, keyed "<store, relative to the root>#<session id>", with
// a stamp built from the session row's mutable columns and its messages' count, highest id and
// active and compacted sums, so that compaction or a rewind (rows flipped to inactive) reads the
// session again. A changed session is read whole: row ids are stable, so the store matches
// what it holds. A gateway transcript, which Hermes only appends to, is read on from its cursor
// (the session's id, the last time and the count of messages read kept in the cursor's state;
// the session is emitted again from the file's first record), and again whole when it was
// rewritten. RootStamp is adapters.SQLiteStamp of every store plus the sessions folders'
// listings, so an unchanged root is not even scanned. A session file whose id a store also
// holds is superseded by whichever copy is richer (more messages; the store on a tie), the
// other listed with Skip.
//
// # Mapping
//
//	sessions row / file      Session: project = cwd, else model_config.cwd, else
//	                         "hermes:<profile>"; parent_session_id → ParentSessionID; the
//	                         lineage kind in options.hermes.lineage: "continuation" (the
//	                         parent ended with compression), "branch" (model_config
//	                         _branched_from, or the parent ended "branched"), "reset"
//	                         (_reset_from), else "subagent" (SourceAgent hermes/subagent),
//	                         and source='tool' is a sub-agent whatever its parent
//	messages row / line      one Message per row, id = the row id (a file's line: its record
//	                         id), in id order: Hermes's own order, never the timestamp's.
//	                         options.hermes.live says whether the row is in the live context
//	                         (active=1); compacted and rewound rows are kept too.
//	role user / assistant    text parts (content; "\x00json:" content is a list of OpenAI
//	                         content parts: text, image_url → file); assistant reasoning →
//	                         reasoning part; tool_calls → tool_call parts (id, function name,
//	                         arguments)
//	role tool                tool_result part (tool_call_id, tool_name, content)
//	role system, other       system message (content as its text); another role is reported
//
// Every row is kept verbatim under options.source.record (a JSON object of its columns, TEXT as
// strings, numbers as numbers, NULL as null), with options.source.table and .db; a session
// file's lines likewise, and a legacy snapshot whole on its session.
package hermes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pondhq/pond/adapters"
)

// Name is the adapter's name and the SourceAgent of its sessions.
const Name = "hermes"

// SubagentKind is the SourceAgent of a sub-agent's session.
const SubagentKind = Name + "/subagent"

// Adapter reads Hermes sessions.
type Adapter struct{}

// New returns the Hermes adapter.
func New() Adapter { return Adapter{} }

// Name implements adapters.Adapter.
func (Adapter) Name() string { return Name }

// Capabilities implements adapters.Adapter.
func (Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Restore: true, ToolCalls: true, Subagents: true, Incremental: true}
}

// Roots implements adapters.Adapter: HERMES_HOME, else ~/.hermes (%LOCALAPPDATA%\hermes on
// Windows).
func (Adapter) Roots(env adapters.Env) []string {
	get := func(k string) string {
		if env.Getenv == nil {
			return ""
		}
		return env.Getenv(k)
	}
	if h := get("HERMES_HOME"); h != "" {
		return []string{h}
	}
	if env.GOOS == "windows" {
		if l := get("LOCALAPPDATA"); l != "" {
			return []string{filepath.Join(l, "hermes")}
		}
	}
	if env.Home == "" {
		return nil
	}
	return []string{filepath.Join(env.Home, ".hermes")}
}

// profile is one Hermes profile's folder: the default profile's is the root itself.
type profile struct {
	name string // "default", or the folder's name under profiles/
	rel  string // the folder relative to the root, "" for the default
}

// profiles lists the root's profiles, the default first.
func profiles(root string) []profile {
	out := []profile{{name: "default"}}
	ents, _ := os.ReadDir(filepath.Join(root, "profiles"))
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, profile{name: e.Name(), rel: "profiles/" + e.Name()})
		}
	}
	return out
}

func (p profile) dir(root string) string { return filepath.Join(root, filepath.FromSlash(p.rel)) }

// relJoin joins a slash path to a profile's relative folder.
func (p profile) relJoin(name string) string {
	if p.rel == "" {
		return name
	}
	return p.rel + "/" + name
}

// Scan implements adapters.Adapter: every profile's store, then its session files.
func (Adapter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("hermes: scan: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("hermes: scan: %s is not a directory", root)
	}
	var out []adapters.Source
	for _, p := range profiles(root) {
		inDB := map[string]int{} // session id → its messages in the store
		dbKey := map[string]int{}
		db := filepath.Join(p.dir(root), "state.db")
		if _, err := os.Stat(db); err == nil {
			srcs, err := scanDB(ctx, env, db, p.relJoin("state.db"))
			if err != nil {
				return nil, err
			}
			for _, s := range srcs {
				inDB[s.Hint] = int(s.Size)
				dbKey[s.Hint] = len(out)
				out = append(out, s)
			}
		}
		files, err := scanFiles(filepath.Join(p.dir(root), "sessions"), p.relJoin("sessions"))
		if err != nil {
			return nil, err
		}
		// The richer copy of a session is read: a file with more messages than the store's
		// row count wins, the store on a tie; two files of one id, the one with more messages.
		best := map[string]int{}
		for i, f := range files {
			if j, ok := best[f.id]; !ok || f.count > files[j].count {
				best[f.id] = i
			}
		}
		for i, f := range files {
			src := f.src
			n, inStore := inDB[f.id]
			switch {
			case best[f.id] != i:
				src.Skip = adapters.SkipSuperseded
			case inStore && f.count <= n:
				src.Skip = adapters.SkipSuperseded
			case inStore:
				out[dbKey[f.id]].Skip = adapters.SkipSuperseded
			}
			out = append(out, src)
		}
	}
	return out, nil
}

// RootStamp implements adapters.Adapter: every store's SQLiteStamp and every sessions folder's
// listing (names, sizes, modification times). "" when a file changed too recently to tell.
func (Adapter) RootStamp(ctx context.Context, env adapters.Env, root string) (string, error) {
	var b strings.Builder
	for _, p := range profiles(root) {
		db := filepath.Join(p.dir(root), "state.db")
		if _, err := os.Stat(db); err == nil {
			s, err := adapters.SQLiteStamp(db)
			if err != nil {
				return "", nil
			}
			fmt.Fprintf(&b, "%s=%s;", p.relJoin("state.db"), s)
		}
		ents, _ := os.ReadDir(filepath.Join(p.dir(root), "sessions"))
		names := make([]string, 0, len(ents))
		for _, e := range ents {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		for _, n := range names {
			info, err := os.Stat(filepath.Join(p.dir(root), "sessions", n))
			if err != nil || info.IsDir() {
				continue
			}
			fmt.Fprintf(&b, "%s=%s;", p.relJoin("sessions/"+n), adapters.FileStamp(info))
		}
	}
	return adapters.Digest([]byte(b.String())), nil
}

// Read implements adapters.Adapter. A gateway transcript is read on from its cursor
// (readJSONL); any other changed source is read whole, and its cursor is its stamp.
func (Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	if src.Skip != "" {
		return adapters.Cursor{Stamp: src.Stamp}, nil
	}
	var err error
	switch {
	case strings.HasSuffix(src.Path, ".db"):
		err = readDB(ctx, env, src, out)
	case strings.HasSuffix(src.Path, ".jsonl"):
		return readJSONL(ctx, src, cur, env.Limits, out)
	default:
		err = readSnapshot(src, env.Limits, out)
	}
	if err != nil {
		return cur, err
	}
	return adapters.Cursor{Stamp: src.Stamp}, nil
}
