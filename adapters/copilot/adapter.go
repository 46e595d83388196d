// Package copilot captures GitHub Copilot CLI sessions (npm @github/copilot): the event logs the
// CLI writes under its home ($COPILOT_HOME, else ~/.copilot, on every OS):
//
//	session-state/<session>/events.jsonl         a session (1.0 and later), with workspace.yaml,
//	                                              checkpoints/, files/ … beside it
//	session-state/<session>.jsonl                a session of the flat layout before 1.0
//	history-session-state/session_<id>_<ts>.json the earliest layout: listed, not read
//
// Every line is one event {type, data, id, timestamp, parentId, agentId?, ephemeral?}, chained by
// parentId, of the types the CLI's own schema lists (schemas/session-events.schema.json in its
// package). user.message, assistant.message, assistant.reasoning and tool.execution_complete
// become user, assistant and tool messages; system.notification (text the runtime hands the
// model) and session.compaction_complete (the summary that replaces the history) become user
// messages whose text is injected; every other event (session.start, system prompts, tool starts,
// turns, usage, sub-agent starts and ends, resumes, unknown types) becomes a part-less system
// message. Each line is kept verbatim, once, under options.source.record of the message it
// produced, or of the first part it added to a merged message.
//
// An assistant message the CLI split at reasoning boundaries arrives as several assistant.message
// events sharing apiCallId, numbered by chunkIndex of chunkCount: the chunks make one message,
// with the first chunk's id. Tool calls are toolRequests of an assistant message; the result is
// the tool.execution_complete with the same toolCallId (success false is a failure). A resume
// appends a session.resume event and a new segment to the same file, which is read on as it
// grows.
//
// Sub-agents write inline, their events marked with agentId: each becomes its own session
// "<session>/agent-<agentId>", SourceAgent "copilot-cli/subagent", parent the session of the
// file, also when another sub-agent launched it (subagent.started's parentId, kept in
// options.source, says which). A session whose session.start names
// detachedFromSpawningParentSessionId (a detached run that continues its parent's context) has
// that session as parent.
//
// The session's id is its folder's name (Copilot's own session id; session.start repeats it),
// else the flat file's name. A name that session.CheckID refuses (the SDK lets a caller choose
// any string) becomes "copilot-<digest of the name>", with the name kept in options.source.
//
// Not read: session-store.db (an index the CLI derives from the event logs), the files beside
// a session's events (workspace.yaml, checkpoints/, plan.md, files/), and the earliest layout's
// history-session-state/*.json, of which no file has been seen to read its shape from.
package copilot

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
	"github.com/pondhq/pond/session"
)

// Name is the adapter's name and the SourceAgent of main sessions.
const Name = "copilot-cli"

// SubagentAgent is the SourceAgent of sub-agent sessions.
const SubagentAgent = Name + "/subagent"

// Adapter reads Copilot CLI event logs. The zero value is ready to use.
type Adapter struct{}

var _ adapters.Adapter = Adapter{}

// Name implements adapters.Adapter.
func (Adapter) Name() string { return Name }

// Capabilities implements adapters.Adapter.
func (Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Restore: true, ToolCalls: true, Subagents: true, Incremental: true}
}

// Roots implements adapters.Adapter: Copilot's own order (resolveCopilotHome in the 1.0 bundle):
// COPILOT_HOME when set, else ~/.copilot (%USERPROFILE%\.copilot on Windows). A home given only
// as --config-dir is not followed: `pond sync --root` takes it.
func (Adapter) Roots(env adapters.Env) []string {
	if dir := home(env); dir != "" {
		return []string{dir}
	}
	return nil
}

// home is Copilot's home folder; "" without a home.
func home(env adapters.Env) string {
	if env.Getenv != nil {
		if dir := strings.TrimSpace(env.Getenv("COPILOT_HOME")); dir != "" {
			return dir
		}
	}
	if env.Home == "" {
		return ""
	}
	return joinFor(env.GOOS, env.Home, ".copilot")
}

// joinFor joins a directory and a name with the separator of goos, so that a test can ask for
// another platform's roots.
func joinFor(goos, dir, name string) string {
	if goos == "windows" {
		return strings.TrimRight(dir, `\/`) + `\` + name
	}
	return strings.TrimRight(dir, "/") + "/" + name
}

// RootStamp implements adapters.Adapter: none, since Scan only lists and stats files.
func (Adapter) RootStamp(context.Context, adapters.Env, string) (string, error) { return "", nil }

// Scan implements adapters.Adapter: one source per session-state/<id>/events.jsonl, per flat
// session-state/<id>.jsonl (superseded when a folder holds the same session: Copilot moved it),
// and per history-session-state/*.json, listed as unsupported.
func (Adapter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("copilot-cli: scan %s: %w", root, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("copilot-cli: scan %s: not a directory", root)
	}
	var srcs []adapters.Source
	add := func(path string, skip string) error {
		info, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while we looked
		}
		if err != nil {
			return fmt.Errorf("copilot-cli: scan %s: %w", path, err)
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return fmt.Errorf("copilot-cli: scan %s: %w", path, err)
		}
		srcs = append(srcs, adapters.Source{Key: filepath.ToSlash(rel), Path: path, Stamp: adapters.FileStamp(info),
			Size: info.Size(), ModTime: info.ModTime(), Skip: skip})
		return nil
	}
	state := filepath.Join(root, "session-state")
	entries, err := os.ReadDir(state)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("copilot-cli: scan %s: %w", root, err)
	}
	folders := map[string]bool{}
	for _, e := range entries {
		if p := filepath.Join(state, e.Name()); isDir(p, e) && !strings.HasPrefix(e.Name(), ".") {
			folders[e.Name()] = true
		}
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name := e.Name()
		switch {
		case folders[name]:
			if err := add(filepath.Join(state, name, "events.jsonl"), ""); err != nil {
				return nil, err
			}
		case strings.HasSuffix(name, ".jsonl") && !strings.HasPrefix(name, "."):
			skip := ""
			if folders[strings.TrimSuffix(name, ".jsonl")] {
				skip = adapters.SkipSuperseded
			}
			if err := add(filepath.Join(state, name), skip); err != nil {
				return nil, err
			}
		}
	}
	history := filepath.Join(root, "history-session-state")
	old, err := os.ReadDir(history)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("copilot-cli: scan %s: %w", root, err)
	}
	for _, e := range old {
		if strings.HasSuffix(e.Name(), ".json") {
			// The earliest builds' whole-session documents: no file of this layout has been
			// seen to read its shape from, so they are counted (pond sync reports them as
			// unsupported), never guessed at.
			if err := add(filepath.Join(history, e.Name()), adapters.SkipUnsupported); err != nil {
				return nil, err
			}
		}
	}
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].Key < srcs[j].Key })
	return srcs, nil
}

// isDir reports whether a directory entry is a directory, following a symbolic link.
func isDir(path string, d fs.DirEntry) bool {
	if d.Type()&fs.ModeSymlink != 0 {
		info, err := os.Stat(path)
		return err == nil && info.IsDir()
	}
	return d.IsDir()
}

// layout is what a source's key says about the file.
type layout struct {
	name string // the session's name in Copilot: its folder's, or the flat file's stem
}

// classify reads a source key (a slash-separated path relative to the root, though any path
// works: a file outside the layout is named after its stem, or its folder for events.jsonl).
func classify(key string) layout {
	parts := strings.Split(filepath.ToSlash(key), "/")
	n := len(parts)
	if parts[n-1] == "events.jsonl" && n >= 2 {
		return layout{name: parts[n-2]}
	}
	return layout{name: strings.TrimSuffix(parts[n-1], ".jsonl")}
}

// sessionID is the session a file holds: its name when it is a valid id, else a digest of it.
func (l layout) sessionID() string {
	if session.CheckID(l.name) == nil && !strings.Contains(l.name, "/") {
		return l.name
	}
	return "copilot-" + adapters.Digest([]byte(l.name))
}

// subagentID is the session of the sub-agent agentID of the session sid.
func subagentID(sid, agentID string) string {
	if agentID != "" && session.CheckID(agentID) == nil && !strings.Contains(agentID, "/") {
		return sid + "/agent-" + agentID
	}
	return sid + "/agent-" + adapters.Digest([]byte(agentID))
}
