// Package cursor captures Cursor's chats: the IDE's composers, kept in its global state
// database, and the cursor-agent CLI's transcripts and chat stores. Cursor is capture only:
// restoring into it is unsupported (see Unsupported).
//
// # Roots and sources
//
// Two roots: the IDE's user-data folder (see ideUserDir) and cursor-agent's ~/.cursor. Scan
// looks for both layouts under either, so that one fixture tree covers both.
//
//   - User/globalStorage/state.vscdb is one source (key "User/globalStorage/state.vscdb"),
//     stamped with adapters.SQLiteStamp and a digest of every workspaceStorage folder's
//     workspace.json and database stamp. The database (86–500 MB is common) is shared with the
//     running IDE: it is opened through Env.OpenSQLite, read-only, never locked, and read by
//     composer. A pass digests every composer record (composerData:<id>, small beside the
//     bubbles) and reads the bubbles' keys and rowids from the key index, never a bubble's
//     value; only the composers whose signature moved (record digest; bubble count, rowid sum
//     and highest rowid; workspace, parent and sub-agent mark) are loaded, one at a time in a
//     read transaction of their own, and emitted whole. The cursor keeps 20 bytes a composer
//     (ideState) and every untouched composer as it was, so a pass never forgets a chat it did
//     not read; a composer deleted from the database leaves the cursor, and the archive keeps
//     what was captured. A cursor is offered after each composer (adapters.Checkpointer).
//     Limit: a bubble rewritten in place (same rowid) while its composer's record stays byte
//     for byte the same is read at the composer's next change (a new turn moves the record's
//     headers and lastUpdatedAt).
//   - projects/<slug>/agent-transcripts/<chat>/<chat>.jsonl (older builds: <chat>.jsonl) and
//     <chat>/subagents/<sub>.jsonl are line sources read incrementally (adapters/jsonl).
//   - chats/<md5 of the folder>/<chat>/store.db is a whole-database source (SQLiteStamp).
//   - A CLI chat whose id the IDE's database also holds (the IDE writes transcripts of its own
//     composers) is listed superseded (adapters.SkipSuperseded): the IDE's record is the richer.
//
// # IDE mapping
//
//	composerData:<id>     Session id = the composer id; created_at = createdAt (else the
//	                      first bubble's time); project = the folder (workspace.json) of the
//	                      workspace whose ItemTable composer.composerData lists the composer,
//	                      else of the workspace the 3.x headers name, else a bubble's
//	                      workspaceProjectDir or first workspaceUris entry, else
//	                      "cursor:no-workspace". The record, and its header entry (ItemTable
//	                      composer.composerHeaders or the composerHeaders table), are kept in
//	                      options.source.
//	sub-agents            a composer named by another's subComposerIds gets it as parent, a
//	                      composer the 3.x headers mark isSubagent the kind; either way the
//	                      SourceAgent "cursor/subagent".
//	message order         fullConversationHeadersOnly, then an old build's inline
//	                      conversation (each element a message, kept with its index), then
//	                      bubbles no header lists yet, in key order.
//	bubbleId:<c>:<b>      a message, id = the bubble id: type 1 user, 2 assistant; thinking.text
//	                      a reasoning part, text a text part, toolFormerData a tool_call
//	                      (CallID toolCallId, Name name, Params rawArgs) and, once finished or
//	                      with a result, a tool_result (IsFailure when status or
//	                      additionalData.status is "error"). Another type, or a bubble with none
//	                      of these (code-block state, an empty turn), a system message holding
//	                      only its record; an unknown type is also reported through
//	                      Emitter.Unknown. Time = createdAt (ISO, or milliseconds), else the
//	                      previous message's.
//
// Every row is kept verbatim under options.source.record of what it produced, with its key. A
// record or bubble that is not a JSON object (a cut-off write, JSON null) is reported through
// Emitter.Malformed at "<db>#<key>" and skipped. Rows of other keys (checkpoints, code-block
// diffs, message request contexts) carry no conversation and are not read.
//
// # cursor-agent mapping, and what is lost
//
// A transcript line {"role", "message": {"content"}} is a message with Anthropic-style blocks:
// text (a block that is one tag other than <user_query>, such as <user_info>, is injected),
// thinking, tool_use (a tool_call), tool_result; a line without a role ({"type":
// "turn_ended"}) is a system message. Transcripts carry no ids, times or folder, and
// cursor-agent writes tool calls without ids and often without their results, so:
//
//   - message ids are the lines' rec- digests (adapters.RecordID);
//   - a message's time is the chat's start plus its line number in microseconds, which keeps
//     the file's order: the start is the chat store's createdAt, else the file's modification
//     time when first read (kept in the cursor);
//   - the project is the slug decoded against the folders that exist (and checked against the
//     store's md5 of the folder), else the slug itself;
//   - a tool call's CallID is its id when present, else "<message id>:<block index>"; a result
//     whose tool_use_id names no call answers the oldest call still without one.
//
// The chat store is read whole: its meta row (hex-encoded JSON: name, createdAt, model) goes
// into the session's options.source.meta, and each blob, cursor-agent's own content-addressed
// conversation state (protobuf and JSON that no public description covers), is kept raw as a
// system message "blob:<id>", not mapped. The transcript and the store of one chat emit the
// same session.
package cursor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pondhq/pond/adapters"
)

// Name is the adapter's name and the SourceAgent of its sessions.
const Name = "cursor"

// SubagentKind is the SourceAgent of a sub-agent's session.
const SubagentKind = Name + "/subagent"

// Unsupported is why a stored session cannot be restored into Cursor (Describe().NoRestore):
// the IDE keeps its chats in a database it owns and rewrites while it runs, and cursor-agent
// resumes from the undocumented blobs of its chat store, not from the transcript.
const Unsupported = "restoring into Cursor is unsupported: the IDE's chats live in a database the running IDE owns, and cursor-agent resumes from an undocumented chat store, not from its transcripts"

// Adapter reads Cursor's chats. The zero value is ready to use.
type Adapter struct{}

var _ adapters.Adapter = Adapter{}

// New returns the Cursor adapter.
func New() Adapter { return Adapter{} }

// Name implements adapters.Adapter.
func (Adapter) Name() string { return Name }

// Capabilities implements adapters.Adapter: capture only. The IDE's database is read by
// composer (only the changed ones), a transcript from where the last read stopped.
func (Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Restore: false, ToolCalls: true, Subagents: true, Incremental: true}
}

// Roots implements adapters.Adapter: the IDE's user-data folder (see ideUserDir), then
// cursor-agent's ~/.cursor. Each root is scanned for both layouts.
func (Adapter) Roots(env adapters.Env) []string {
	var out []string
	for _, r := range []string{ideUserDir(env), cliDir(env)} {
		if r != "" {
			out = append(out, r)
		}
	}
	return out
}

// RootStamp implements adapters.Adapter: none. Scan stats files and stamps databases from
// their headers, and opens the IDE's database only to list its composers when the root holds
// CLI chats.
func (Adapter) RootStamp(context.Context, adapters.Env, string) (string, error) { return "", nil }

// Scan implements adapters.Adapter: the IDE's global database as one source (when root holds
// one), then every CLI transcript and chat store under root. A CLI chat the IDE also holds
// (the IDE writes transcripts of its own composers) is listed superseded: the IDE's record is
// the richer one.
func (Adapter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("cursor: scan: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("cursor: scan: %s is not a directory", root)
	}
	var srcs []adapters.Source
	ide, err := scanIDE(root)
	if err != nil {
		return nil, fmt.Errorf("cursor: scan %s: %w", root, err)
	}
	if ide != nil {
		srcs = append(srcs, *ide)
	}
	cli, err := scanCLI(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("cursor: scan %s: %w", root, err)
	}
	if len(cli) == 0 {
		return srcs, nil
	}
	held, err := ideComposers(ctx, env, root)
	if err != nil {
		return nil, fmt.Errorf("cursor: scan %s: %w", root, err)
	}
	for i := range cli {
		if held[cli[i].Hint] {
			cli[i].Skip = adapters.SkipSuperseded
		}
	}
	return append(srcs, cli...), nil
}

// ideComposers are the composers of every IDE database the CLI's chats may be copies of: root's
// own and those of the IDE roots env names.
func ideComposers(ctx context.Context, env adapters.Env, root string) (map[string]bool, error) {
	dirs := []string{root}
	if d := ideUserDir(env); d != "" && filepath.Clean(d) != filepath.Clean(root) {
		dirs = append(dirs, d)
	}
	held := map[string]bool{}
	for _, d := range dirs {
		path := filepath.Join(d, filepath.FromSlash(globalDBRel))
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if _, err := adapters.SQLiteStamp(path); err != nil {
			continue // not (yet) a database: Cursor is creating it
		}
		ids, err := composerIDs(ctx, env, path)
		if err != nil {
			return nil, err
		}
		for id := range ids {
			held[id] = true
		}
	}
	return held, nil
}

// Read implements adapters.Adapter.
func (Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	switch {
	case src.Skip != "":
		return adapters.Cursor{Stamp: src.Stamp}, nil
	case src.Key == ideKey:
		return readIDE(ctx, env, src, cur, out)
	case strings.HasSuffix(src.Key, "/store.db"):
		return readStore(ctx, env, src, out)
	}
	return readTranscript(ctx, env, src, cur, out)
}
