// Package cline captures Cline's sessions (the VS Code extension saoudrizwan.claude-dev and the
// CLI, npm `cline`) from the three places its eras keep them, merged by task id:
//
//	<data>/sessions/<id>/<id>.json             the SDK store (CLI 3.x, and new extension tasks):
//	<data>/sessions/<id>/<id>.messages.json    the manifest, the messages document {version:1,
//	<data>/sessions/<id>/<id>.compaction.json  …, messages, system_prompt}, the compacted view,
//	<data>/sessions/<id>/<agent>.messages.json and each sub-agent's messages beside its root's
//	<data>/db/sessions.db (sessions/sessions.db before) the SDK's index of sessions
//	<data>/tasks/<id>/…                        legacy task folders (CLI before 3, and the
//	<globalStorage>/saoudrizwan.claude-dev/tasks/<id>/…  extension): api_conversation_history.json,
//	                                           ui_messages.json, context_history.json,
//	                                           task_metadata.json, settings.json
//	<data>/state/taskHistory.json, <globalStorage>/…/state/taskHistory.json  the task list
//
// <data> is CLINE_DATA_DIR, else CLINE_DIR/data, else ~/.cline/data; <globalStorage> is each VS
// Code family editor's (Code, Code - Insiders, VSCodium, Cursor, Windsurf) User/globalStorage.
// Each is a root; a legacy task whose id the data dir's SDK store (or, for an editor's task,
// the data dir's own tasks/) also holds is listed as superseded, the newer copy captured.
//
// # Mapping
//
// An SDK session is one source (its folder): the session from the manifest (id, cwd, started_at;
// a fork's parent from metadata.fork.forkedFromSessionId), kept under the session's
// options.source.record — with its messages_path, an absolute path of the machine that wrote it,
// moved to options.source.path, so a restore points it at where it lands; then the messages
// document's envelope (version, agent, system_prompt, …) as a system message "document", each
// message (id, role, ts, content blocks: text, thinking, redacted_thinking, image, file,
// tool_use, tool_result) as a user or assistant message with its parts, and the compaction
// document, whole, as a system message "compaction". A sub-agent's <agent>.messages.json is a
// session of its own, "<root>__<agent>" (the SDK's own id for it; a team task's
// "<agent>__<task>" file is "<root>__teamtask__<agent>__<task>"), SourceAgent "cline/subagent",
// parent the root.
//
// A legacy task folder is one session, id the folder's name: the history item from the task
// list (cwd from cwdOnTaskInitialization, kept under the session's options.source.record), the
// model-visible api_conversation_history.json as user and assistant messages, and every
// ui_messages.json record (the UI's say/ask events), context_history.json,
// task_metadata.json and settings.json as part-less system messages.
//
// sessions.db (opened read-only through Env.OpenSQLite) is the SDK's index of the same
// sessions: its parent, sub-agent and fork links are those the files carry (a sub-agent's file
// sits in its root's folder, a fork's manifest names its origin), and cline 3.0.65 lists its
// history from the manifests without it. A row whose session has no files is listed as
// unsupported (a run that saved no message), never read.
//
// A document cut short (an interrupted stream writes partial JSON) is reported as malformed
// where it stops, and the messages before are kept.
package cline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// Name is the adapter's name and the SourceAgent of main sessions.
const Name = "cline"

// SubagentAgent is the SourceAgent of sub-agent sessions.
const SubagentAgent = Name + "/subagent"

// Adapter reads Cline's sessions. The zero value is ready to use.
type Adapter struct{}

var _ adapters.Adapter = Adapter{}

// Name implements adapters.Adapter.
func (Adapter) Name() string { return Name }

// Capabilities implements adapters.Adapter. Every file is a JSON document, read whole when it
// changed.
func (Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Restore: true, ToolCalls: true, Subagents: true}
}

// Roots implements adapters.Adapter: the data dir, then the extension's folder in each editor.
func (Adapter) Roots(env adapters.Env) []string {
	var out []string
	if d := DataDir(env); d != "" {
		out = append(out, d)
	}
	return append(out, GlobalStorage(env, ExtensionID)...)
}

// RootStamp implements adapters.Adapter: none, Scan lists folders and one database query.
func (Adapter) RootStamp(context.Context, adapters.Env, string) (string, error) { return "", nil }

// Scan implements adapters.Adapter.
func (Adapter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("cline: scan %s: %w", root, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("cline: scan %s: not a directory", root)
	}
	srcs, ids, err := scanSDK(ctx, root)
	if err != nil {
		return nil, err
	}
	// A task of an editor's folder is superseded by the data dir's copy.
	data := DataDir(env)
	other := func(id string) bool {
		if data == "" || filepath.Clean(data) == filepath.Clean(root) {
			return false
		}
		for _, p := range []string{filepath.Join(data, "sessions", id), filepath.Join(data, "tasks", id)} {
			if _, err := os.Stat(p); err == nil {
				return true
			}
		}
		return false
	}
	tasks, err := ScanTasks(ctx, root, func(id string) bool { return ids[id] || other(id) })
	if err != nil {
		return nil, fmt.Errorf("cline: scan %s: %w", root, err)
	}
	srcs = append(srcs, tasks...)
	rows, err := scanDB(ctx, env, root, ids)
	if err != nil {
		return nil, err
	}
	return append(srcs, rows...), nil
}

// Read implements adapters.Adapter.
func (Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	if src.Skip != "" {
		return adapters.Cursor{Stamp: src.Stamp}, nil
	}
	var err error
	switch k := filepath.ToSlash(src.Key); {
	case strings.HasPrefix(k, "tasks/"):
		err = ReadTask(ctx, env, src, TaskConfig{Agent: Name}, out)
	default:
		err = readSDK(ctx, env, src, out)
	}
	if err != nil {
		return cur, err
	}
	return adapters.Cursor{Stamp: src.Stamp}, nil
}

// sessionID is name when it is a valid session id, else one made from a digest of it.
func sessionID(name string) string {
	if session.CheckID(name) == nil && !strings.Contains(name, "/") {
		return name
	}
	return "cline-" + adapters.Digest([]byte(name))
}
