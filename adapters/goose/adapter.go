// Package goose captures goose (aaif-goose, formerly block/goose) sessions and restores into it.
//
// Evidence: goose's source at aaif-goose/goose commit 017176d06077b119ade382d3bb710e56c8c04e90
// (crates/goose/src/session/session_manager.rs: the schema, its migrations 1–17, the session
// load, the message insert; crates/goose/src/conversation/message.rs: the content blocks),
// read as documentation; no registry ships goose, so the tests build databases of several
// schema versions from those migrations.
//
// # Where goose keeps sessions
//
// The root is goose's data folder: GOOSE_PATH_ROOT/data when that variable is an absolute
// path, else %APPDATA%\Block\goose\data on Windows, else $XDG_DATA_HOME/goose or
// ~/.local/share/goose. Sessions live in ROOT/sessions/sessions.db (SQLite, WAL): a sessions
// row per session and a messages row per message.
//
// # Sources and freshness
//
// One Source per session, keyed "sessions.db#<id>", with a stamp built from the session row and
// its messages' count, highest row id and a digest of their metadata (compaction flips
// agentVisible without adding rows), so a changed session is read again, whole: row ids are
// stable, so the store matches what it holds. RootStamp is adapters.SQLiteStamp of the
// database, so an unchanged root is not even scanned.
//
// # Mapping
//
//	sessions row             Session: project = working_dir, else "goose:<id>";
//	                         parent_session_id → ParentSessionID; every session_type is
//	                         read (never an allow-list) and kept in options.goose.session_type;
//	                         sub_agent sessions get SourceAgent goose/subagent
//	messages row             one Message per row, id = the row id zero-padded, in goose's
//	                         order (created_timestamp, id); options.goose.user_visible and
//	                         .agent_visible from metadata_json (compaction hides the rows it
//	                         replaced from the model with agentVisible false: kept, marked)
//	text                     text part (injected when the row is not user-visible)
//	thinking                 reasoning part; redactedThinking keeps only its record
//	image                    file part (base64 data)
//	toolRequest,             tool_call part (id, toolCall.value.name and .arguments; a failed
//	frontendToolRequest      call's error as its params)
//	toolResponse             tool_result part, linked by id (the name from its request);
//	                         a message of results only is a tool message
//	other blocks             kept in the record only (toolConfirmationRequest, actionRequired,
//	                         systemNotification); an unknown block type is reported
//
// A row with no conversation content is a system message. Every row is kept verbatim under
// options.source.record (a JSON object of its columns, adapters.RowJSON), with
// options.source.table and .db. Columns of every schema version are read by name from
// `SELECT *`, so an old store (no session_type before v5, no message_id before v7, no
// parent_session_id before v15) reads as far as it holds.
//
// # Pond's MCP server in goose
//
// goose keeps MCP servers as extensions in its user config, config.yaml in its config folder
// (GOOSE_PATH_ROOT/config, else %APPDATA%\Block\goose\config on Windows, else
// $XDG_CONFIG_HOME/goose or ~/.config/goose): a top-level `extensions` map from a key to an
// entry, `enabled` beside the fields of a tagged ExtensionConfig. `pond install` adds a stdio
// entry under the key pond ({enabled, type: stdio, name, description, cmd, args, envs,
// timeout}) by editing the file (installer/yamledit.go), since goose's only way to add one,
// goose configure, asks questions. Evidence, read as documentation (no registry ships goose,
// so no test runs it): aaif-goose/goose crates/goose/src/config/base.rs (Config::default,
// the file goose writes; commit 001a90f23c2d359ee3bdd38e180c3a6ad35c864f),
// crates/goose/src/config/extensions.rs (ExtensionEntry, name_to_key, entries parsed one by one;
// commit 05a3515c7aa1af17038d7308c6edf753285332dd) and crates/goose/src/agents/extension.rs
// (ExtensionConfig::Stdio and its required fields; commit
// 20f87d1986d9804a752eaeabe548cc8b943928f8).
package goose

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pondhq/pond/adapters"
)

// Name is the adapter's name and the SourceAgent of its sessions.
const Name = "goose"

// SubagentKind is the SourceAgent of a sub-agent's session.
const SubagentKind = Name + "/subagent"

// dbRel is the database's path under the root.
const dbRel = "sessions/sessions.db"

// Adapter reads goose sessions.
type Adapter struct{}

// New returns the goose adapter.
func New() Adapter { return Adapter{} }

// Name implements adapters.Adapter.
func (Adapter) Name() string { return Name }

// Capabilities implements adapters.Adapter.
func (Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Restore: true, ToolCalls: true, Subagents: true}
}

// getenv reads a variable of env, "" without one.
func getenv(env adapters.Env, k string) string {
	if env.Getenv == nil {
		return ""
	}
	return env.Getenv(k)
}

// gooseDir is goose's folder of kind ("data" or "config"): goose (etcetera's app strategy, with
// GOOSE_PATH_ROOT over it) ignores a relative GOOSE_PATH_ROOT or XDG variable.
func gooseDir(env adapters.Env, kind string) string {
	if r := getenv(env, "GOOSE_PATH_ROOT"); r != "" && isAbs(env, r) {
		return filepath.Join(r, kind)
	}
	if env.GOOS == "windows" {
		if a := getenv(env, "APPDATA"); a != "" {
			return filepath.Join(a, "Block", "goose", kind)
		}
		if env.Home == "" {
			return ""
		}
		return filepath.Join(env.Home, "AppData", "Roaming", "Block", "goose", kind)
	}
	xdg, def := "XDG_DATA_HOME", filepath.Join(".local", "share")
	if kind == "config" {
		xdg, def = "XDG_CONFIG_HOME", ".config"
	}
	if x := getenv(env, xdg); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "goose")
	}
	if env.Home == "" {
		return ""
	}
	return filepath.Join(env.Home, def, "goose")
}

// isAbs reports whether p is absolute on env's OS.
func isAbs(env adapters.Env, p string) bool {
	if env.GOOS == "windows" {
		return len(p) > 2 && p[1] == ':' || len(p) > 1 && (p[0] == '\\' || p[0] == '/')
	}
	return filepath.IsAbs(p)
}

// Roots implements adapters.Adapter: goose's data folder (see the package doc).
func (Adapter) Roots(env adapters.Env) []string {
	if d := gooseDir(env, "data"); d != "" {
		return []string{d}
	}
	return nil
}

// Scan implements adapters.Adapter: one source per session of ROOT/sessions/sessions.db.
func (Adapter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("goose: scan: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("goose: scan: %s is not a directory", root)
	}
	db := filepath.Join(root, filepath.FromSlash(dbRel))
	if _, err := os.Stat(db); err != nil {
		return nil, nil // goose never ran here, or only before it kept sessions in SQLite
	}
	return scanDB(ctx, env, db)
}

// RootStamp implements adapters.Adapter: the database's SQLiteStamp ("" when it cannot be
// read, so the root is scanned).
func (Adapter) RootStamp(ctx context.Context, env adapters.Env, root string) (string, error) {
	db := filepath.Join(root, filepath.FromSlash(dbRel))
	if _, err := os.Stat(db); err != nil {
		return "none", nil
	}
	s, err := adapters.SQLiteStamp(db)
	if err != nil {
		return "", nil
	}
	return s, nil
}

// Read implements adapters.Adapter. A changed session is read whole; the cursor is its stamp.
func (Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	if src.Skip != "" {
		return adapters.Cursor{Stamp: src.Stamp}, nil
	}
	if err := readDB(ctx, env, src, out); err != nil {
		return cur, err
	}
	return adapters.Cursor{Stamp: src.Stamp}, nil
}
