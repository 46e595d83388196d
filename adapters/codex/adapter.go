// Package codex reads the sessions of OpenAI's Codex CLI (and the Codex IDE extensions and
// desktop app, which write the same files): one "rollout" JSONL file per thread under
// `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<uuid>.jsonl`, archived ones flat under
// `$CODEX_HOME/archived_sessions/`, and, in newer versions, old rollouts compressed as
// `rollout-….jsonl.zst`.
//
// Every line is a RolloutLine `{"timestamp", "type", "payload"}` (since 0.149 also "ordinal" and
// "metadata"). The first line is `session_meta`; the model-visible history is `response_item`
// lines (OpenAI Responses API items); the rest is UI replay and bookkeeping. Rollouts of 0.30 and
// before have no envelope: the first line is the bare session metadata `{"id", "timestamp",
// "instructions"}`, later lines are bare items or `{"record_type": "state"}` lines.
//
// How each record maps onto the canonical model (one message per record, so that every record
// keeps its own id and is stored exactly once):
//
//	session_meta (first)        the session: id = payload.id (the file-name uuid when missing),
//	                            created_at = payload.timestamp, project = payload.cwd (else the
//	                            first turn_context cwd, else the <cwd> of the first
//	                            <environment_context>); forked_from_id / parent_thread_id /
//	                            source.subagent give the parent; sub-agents are
//	                            "codex-cli/subagent". The line itself is a system message.
//	response_item message       user → user message; assistant → assistant message; developer and
//	                            system → system message whose Content is the text. Text items
//	                            (input_text, output_text) are text parts, input_image a file
//	                            part. A user message's item is injected when Codex says so
//	                            (internal_chat_message_metadata_passthrough.content_item_kinds
//	                            other than user.*) or, without kinds, when its text is one of
//	                            Codex's context wrappers (<environment_context>,
//	                            <user_instructions>, # AGENTS.md instructions, <permissions …>,
//	                            <skills_instructions>, <skill…>, <user_shell_command>, …).
//	response_item reasoning     assistant message with reasoning parts (summary texts, then raw
//	                            reasoning content); encrypted_content stays in the raw record
//	function_call               assistant message with a tool_call part (Params = the parsed
//	                            arguments string, or the string itself when it is not JSON)
//	custom_tool_call            assistant message with a tool_call part (Params = input, a string)
//	local_shell_call            assistant message with a tool_call part named local_shell
//	tool_search_call            assistant message with a tool_call part named tool_search
//	web_search_call,            assistant message with a provider-executed tool_call part (and
//	image_generation_call       the generated image as a file part)
//	function_call_output,       tool message with a tool_result part: Result is the output as
//	custom_tool_call_output,    recorded (string, array or object); IsFailure from success:false,
//	tool_search_output          a non-zero exit code in the output's framing, or the failure the
//	                            matching exec/patch/MCP end event reported before it
//	agent_message               user message with injected text parts (another agent's mail)
//	ghost_snapshot, compaction, system messages
//	additional_tools
//	event_msg, turn_context,    system messages without parts (event_msg/user_message repeats the
//	compacted, world_state,     user's response_item text; it is not doubled in search).
//	token_usage_record,         compacted carries its summary message as Content.
//	inter_agent_communication*,
//	later session_meta
//
// Unknown record and item types become system messages too and are reported through
// Emitter.Unknown. Every line is kept verbatim under options.source.record of the message it
// produced, with its line number under options.source.line (many records share a
// millisecond, so a restore replays them by line).
//
// A paginated thread can go on in a later file with the same id (segmentOf): both files are
// the one session, the later file's message ids carry its segment's name (id@segment) and its
// records the file's name (options.source.file), from which a native restore writes it back.
//
// A message's id is its item's own id (msg_…, fc_…, rs_…) when it has one, else
// rec-<digest of the line>; an id met again in the same file (a fork's replayed parent history
// does not count: it is another session) takes -2, -3 …. A plain rollout is read incrementally;
// Cursor.State carries the decided session, the last time seen, the tool calls still awaiting
// their output, and the ids given so far (a bounded adapters.SeenIDs) so that suffixes come out
// the same as in a whole read.
package codex

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/pondhq/pond/adapters"
)

// Name is the adapter's name and the sessions' source_agent.
const Name = "codex-cli"

// subagentKind is the source_agent of sub-agent threads.
const subagentKind = Name + "/subagent"

// homeEnv is Codex's override of its home directory.
const homeEnv = "CODEX_HOME"

// Adapter reads Codex rollouts. The zero value is ready to use.
type Adapter struct{}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the Codex adapter.
func New() *Adapter { return &Adapter{} }

// Name implements adapters.Adapter.
func (*Adapter) Name() string { return Name }

// Capabilities implements adapters.Adapter. Package resume restores into this agent from the
// raw records kept in options.source.
func (*Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Restore: true, ToolCalls: true, Subagents: true, Incremental: true}
}

// Roots implements adapters.Adapter: $CODEX_HOME when set (Codex uses it as given, without
// expanding ~), else ~/.codex on every OS.
func (*Adapter) Roots(env adapters.Env) []string {
	if env.Getenv != nil {
		if dir := env.Getenv(homeEnv); dir != "" {
			return []string{filepath.Clean(dir)}
		}
	}
	if env.Home == "" {
		return nil
	}
	return []string{filepath.Join(env.Home, ".codex")}
}

// rolloutDirs are the folders under a root that hold rollouts: live ones in YYYY/MM/DD folders,
// archived ones flat. Both are walked to any depth, so the flat layout of the earliest versions
// is found too.
var rolloutDirs = []string{"sessions", "archived_sessions"}

// rolloutName matches a rollout file name; the uuid at its end is the thread id.
var rolloutName = regexp.MustCompile(`^rollout-.*\.jsonl(\.zst)?$`)

// uuidSuffix finds the thread id at the end of a rollout file name (before the extensions), and
// the segment's own rollout id after it when the name has two: a later segment of a paginated
// thread is `rollout-<time>-<thread id>_<rollout id>.jsonl`.
var uuidSuffix = regexp.MustCompile(`(` + uuidRE + `)(?:_(` + uuidRE + `))?\.jsonl(\.zst)?$`)

const uuidRE = `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`

// RootStamp implements adapters.Adapter: none, since Scan only lists and stats files.
func (*Adapter) RootStamp(context.Context, adapters.Env, string) (string, error) { return "", nil }

// Scan implements adapters.Adapter. Every rollout-*.jsonl and rollout-*.jsonl.zst under
// sessions/ and archived_sessions/ is a source, keyed by its slash-separated path relative to
// root; a compressed rollout is skipped when a plain one with the same thread id exists (Codex
// prefers the plain file too).
func (*Adapter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("codex: scan %s: %w", root, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("codex: scan %s: not a directory", root)
	}
	var found []adapters.Source
	for _, sub := range rolloutDirs {
		dir := filepath.Join(root, sub)
		// sessions/ may be a symbolic link (to a bigger disk, a dotfile tree): walk where it
		// leads, and name what is found by the path through it.
		walk := dir
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			walk = r
		}
		err := filepath.WalkDir(walk, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil // no such folder, or removed while walking
				}
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if d.IsDir() || !rolloutName.MatchString(d.Name()) {
				return nil
			}
			inner, err := filepath.Rel(walk, path)
			if err != nil {
				return err
			}
			path = filepath.Join(dir, inner)
			fi, err := os.Stat(path) // follows a symlinked file
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if !fi.Mode().IsRegular() {
				return nil
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			found = append(found, adapters.Source{
				Key:     filepath.ToSlash(rel),
				Path:    path,
				Stamp:   adapters.FileStamp(fi),
				Size:    fi.Size(),
				ModTime: fi.ModTime(),
			})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("codex: scan %s: %w", dir, err)
		}
	}
	plain := map[string]bool{}
	for _, s := range found {
		if !strings.HasSuffix(s.Path, ".zst") {
			plain[threadKey(s.Path)] = true
		}
	}
	srcs := found[:0]
	for _, s := range found {
		if strings.HasSuffix(s.Path, ".zst") && plain[threadKey(s.Path)] {
			continue
		}
		srcs = append(srcs, s)
	}
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].Key < srcs[j].Key })
	return srcs, nil
}

// threadKey names the rollout a file holds: the uuids in its name, else its name without the
// extensions.
func threadKey(path string) string {
	if id, seg := fileIDs(path); id != "" {
		return id + "_" + seg
	}
	return fileStem(path)
}

// fileID is the thread uuid at the end of a rollout file name, lower-cased; "" when none.
func fileID(path string) string {
	id, _ := fileIDs(path)
	return id
}

// fileIDs are the thread uuid in a rollout file name and, in a later segment's name, the
// segment's own rollout id after it, lower-cased; "" when absent.
func fileIDs(path string) (thread, segment string) {
	m := uuidSuffix.FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return "", ""
	}
	return strings.ToLower(m[1]), strings.ToLower(m[2])
}

// fileStem is a file's name without .jsonl / .jsonl.zst.
func fileStem(path string) string {
	name := filepath.Base(path)
	name = strings.TrimSuffix(name, ".zst")
	return strings.TrimSuffix(name, ".jsonl")
}
