// Package roocode captures Roo Code's tasks (the VS Code extension rooveterinaryinc.roo-cline),
// and those of Kilo Code's VS Code era (kilocode.kilo-code), which keep the same layout: in each
// VS Code family editor's globalStorage (Code, Code - Insiders, VSCodium, Cursor, Windsurf),
//
//	<globalStorage>/<extension>/tasks/<id>/history_item.json             the task's HistoryItem
//	<globalStorage>/<extension>/tasks/<id>/api_conversation_history.json the model-visible history
//	<globalStorage>/<extension>/tasks/<id>/ui_messages.json              the UI's say/ask records
//
// (and task_metadata.json, context_history.json, settings.json when present). The extension
// adopts any task folder with a history_item.json (TaskHistoryStore.reconcile); the folder's
// name is the task id. tasks/_index.json is a cache of the history items, not read.
//
// A task is one session, read by package cline's task reader (Roo Code is a fork of Cline and
// kept its files): the history item (workspace, ts, parentTaskId) gives the session, kept under
// its options.source.record; a sub-task (parentTaskId) is a sub-agent of its parent,
// SourceAgent "roo-code/subagent". The model-visible history is read whether it is the legacy
// list of Anthropic messages or the {version:2, messages} document of AI-SDK messages: roles
// user, assistant and tool; text, reasoning, image, file, tool-call and tool-result parts (a
// result whose output opens with "[ERROR]", or of an error type, is a failure); top-level
// encrypted reasoning items as part-less system messages. Condensing and truncation do not
// delete messages: a summary (isSummary) and a truncation marker (isTruncationMarker) are
// injected text, and the messages they hide (condenseParent, truncationParent) are kept as
// they are. Every ui_messages.json record, and each other file whole, is a part-less system
// message. Messages carry no ids: they are named by a digest of their record.
package roocode

import (
	"context"
	"fmt"
	"os"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/cline"
)

// Name is the adapter's name and the SourceAgent of main sessions.
const Name = "roo-code"

// SubagentAgent is the SourceAgent of sub-tasks.
const SubagentAgent = Name + "/subagent"

// The extensions whose task folders this adapter reads.
const (
	ExtensionID     = "rooveterinaryinc.roo-cline"
	KiloExtensionID = "kilocode.kilo-code"
)

// Adapter reads Roo Code's task folders. The zero value is ready to use.
type Adapter struct{}

var _ adapters.Adapter = Adapter{}

// Name implements adapters.Adapter.
func (Adapter) Name() string { return Name }

// Capabilities implements adapters.Adapter: every file is a JSON document, read whole when it
// changed.
func (Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Restore: true, ToolCalls: true, Subagents: true}
}

// Roots implements adapters.Adapter: Roo Code's folder in each editor's globalStorage, then
// Kilo Code's.
func (Adapter) Roots(env adapters.Env) []string {
	return append(cline.GlobalStorage(env, ExtensionID), cline.GlobalStorage(env, KiloExtensionID)...)
}

// RootStamp implements adapters.Adapter: none, Scan only lists folders.
func (Adapter) RootStamp(context.Context, adapters.Env, string) (string, error) { return "", nil }

// Scan implements adapters.Adapter: a source per task folder.
func (Adapter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("roo-code: scan %s: %w", root, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("roo-code: scan %s: not a directory", root)
	}
	srcs, err := cline.ScanTasks(ctx, root, nil)
	if err != nil {
		return nil, fmt.Errorf("roo-code: scan %s: %w", root, err)
	}
	return srcs, nil
}

// Read implements adapters.Adapter: a task folder, read whole.
func (Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	if err := cline.ReadTask(ctx, env, src, cline.TaskConfig{Agent: Name}, out); err != nil {
		return cur, err
	}
	return adapters.Cursor{Stamp: src.Stamp}, nil
}
