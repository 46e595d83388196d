// Package pi reads the sessions of the pi coding agent (earendil-works/pi,
// `@earendil-works/pi-coding-agent` 1.x, before it `@mariozechner/pi-coding-agent` 0.x; the
// format is version 3 in both, 1.x names new sessions by UUIDv7): one JSONL file per session under
// `<agent dir>/sessions/--<encoded cwd>--/<timestamp>_<uuid>.jsonl`.
//
// A file starts with a `session` header; every other line is an entry. Since format version 2
// entries carry an 8-hex `id` and a `parentId` that make a tree: branching appends a child of an
// older entry to the same file, and every branch is archived here, not only the active path
// (the leaf is the last entry in file order). Message ids are the entry ids; version 1 files are
// linear and carry none, so their records get rec-<digest> ids. A fork (`/fork`, or opening
// another project's session) is a new file whose header names the forked-from file in
// `parentSession` and which starts with a copy of the forked path, ids included (see lineage).
//
// How each entry maps onto the canonical model:
//
//	message/user               user message: text and file (image) parts, conversational
//	message/assistant          assistant message: text, reasoning (thinking; its signature in
//	                           the part's options.source), tool_call (toolCall) parts
//	message/toolResult         tool message with one tool_result part (CallID toolCallId, Name
//	                           toolName, IsFailure isError, Result the content blocks verbatim)
//	message/bashExecution      user message (the user ran `!cmd`): a tool_call part named bash
//	                           and its tool_result (the output; IsFailure when cancelled or
//	                           exiting non-zero), both with the entry id as CallID
//	message/custom, hookMessage  user message with injected parts (extension text pi sends to
//	                           the model as a user turn)
//	custom_message             the same as message/custom
//	message/system             system message; Content is its content, else its prompt
//	                           sections joined (pi 0.8x records the system prompt and tools so)
//	message/branchSummary,     system message, Content = the summary
//	message/compactionSummary
//	compaction                 system message, Content = the summary; options.source keeps
//	                           first_kept_entry_id
//	branch_summary             system message, Content = the summary; options.source keeps from_id
//	label                      system message; options.source keeps target_id
//	context_edit (1.x)         system message; options.source keeps target_id (the entry
//	                           whose contribution to the model's context it edits, itself
//	                           stored unchanged, as pi keeps it) and context_edit: "omitted"
//	                           (replacement null) or "replaced" (the new content is in the
//	                           record)
//	usage (1.x)                system message without content; options.source keeps
//	                           usage_kind (cache_warm, …)
//	model_change, thinking_level_change, session_info, custom, and unknown types
//	                           system messages without content (unknown types are also
//	                           reported through Emitter.Unknown)
//
// Every record is kept verbatim under options.source.record of what it produced (with its line
// number under options.source.line), and every entry's parentId under options.source.parent_id,
// so that a restore can rebuild the tree.
package pi

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pondhq/pond/adapters"
)

// Name is the adapter's name and the sessions' source_agent.
const Name = "pi-coding-agent"

// dirEnv is pi's override of its agent directory.
const dirEnv = "PI_CODING_AGENT_DIR"

// Adapter reads pi sessions. The zero value is ready to use.
type Adapter struct{}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the pi adapter.
func New() *Adapter { return &Adapter{} }

// Name implements adapters.Adapter.
func (*Adapter) Name() string { return Name }

// Capabilities implements adapters.Adapter. Package resume restores into this agent from the
// raw records kept in options.source. pi has no sub-agents of its own.
func (*Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Restore: true, ToolCalls: true, Subagents: false, Incremental: true}
}

// Roots implements adapters.Adapter: $PI_CODING_AGENT_DIR (with a leading ~ expanded, as pi
// does), else ~/.pi/agent on every OS.
func (*Adapter) Roots(env adapters.Env) []string {
	if env.Getenv != nil {
		if dir := env.Getenv(dirEnv); dir != "" {
			return []string{expandHome(dir, env.Home)}
		}
	}
	if env.Home == "" {
		return nil
	}
	return []string{filepath.Join(env.Home, ".pi", "agent")}
}

func expandHome(dir, home string) string {
	switch {
	case home == "":
		return dir
	case dir == "~":
		return home
	case strings.HasPrefix(dir, "~/"), strings.HasPrefix(dir, `~\`):
		return filepath.Join(home, dir[2:])
	}
	return dir
}

// RootStamp implements adapters.Adapter: none, since Scan only lists and stats files.
func (*Adapter) RootStamp(context.Context, adapters.Env, string) (string, error) { return "", nil }

// Scan implements adapters.Adapter: every sessions/*/*.jsonl under root, keyed by its path
// relative to root (with forward slashes).
func (*Adapter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	if _, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("pi: scan %s: %w", root, err)
	}
	sessionsDir := filepath.Join(root, "sessions")
	dirs, err := os.ReadDir(sessionsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pi: scan %s: %w", root, err)
	}
	var out []adapters.Source
	for _, d := range dirs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dir := filepath.Join(sessionsDir, d.Name())
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			continue // a stray file, or a folder removed since
		}
		files, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("pi: scan %s: %w", dir, err)
		}
		for _, f := range files {
			if !strings.HasSuffix(f.Name(), ".jsonl") {
				continue
			}
			path := filepath.Join(dir, f.Name())
			info, err := os.Stat(path) // follows links, unlike f.Info
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			out = append(out, adapters.Source{
				Key:     "sessions/" + d.Name() + "/" + f.Name(),
				Path:    path,
				Stamp:   adapters.FileStamp(info),
				Size:    info.Size(),
				ModTime: info.ModTime(),
			})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}
