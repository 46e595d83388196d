// Package qwen captures Qwen Code sessions (QwenLM/qwen-code, a Gemini CLI fork): the JSON Lines
// transcripts it writes under its runtime folder ($QWEN_RUNTIME_DIR, else $QWEN_HOME, else
// ~/.qwen):
//
//	projects/<sanitized cwd>/chats/<session>.jsonl                          a session
//	projects/<sanitized cwd>/chats/archive/<session>.jsonl                  an archived session
//	projects/<sanitized cwd>/subagents/<session>/agent-<id>.jsonl           a sub-agent, with
//	                                                        agent-<id>.meta.json beside it
//
// The sanitized cwd is the project root with every character outside [A-Za-z0-9] turned into
// '-' (lower-cased first on Windows), never shortened. A session file is named after its id,
// which Qwen requires to match ^[0-9a-fA-F-]{32,36}\.jsonl$; other files in chats/ (the
// .runtime.json, .pr.json, .worktree.json and .ledger.jsonl sidecars) are not sessions.
//
// Every line is one ChatRecord {uuid, parentUuid, sessionId, timestamp, type, subtype,
// provenance, cwd, version, gitBranch, message, …}, where message is a Gemini Content (role
// user or model, parts of text, thought text, functionCall, functionResponse, inlineData,
// fileData). Records form a tree through parentUuid, as Claude Code's do; Qwen rebuilds the
// live history by walking it back from the last record, and appends, never rewrites. user,
// assistant and tool_result records become user, assistant and tool messages; system records
// (compression checkpoints, telemetry, titles, rewinds, snapshots, …) and unknown types become
// part-less system messages. Each line is kept verbatim, once, under options.source.record of
// the message it produced. A uuid met again in one file (Qwen writes fragments of one record
// under one uuid and merges them when it loads the file) becomes <uuid>-2, <uuid>-3 …
//
// A sub-agent is its own session "<parent>/agent-<id>" with SourceAgent "qwen-code/subagent"
// and, as parent, the session of the folder it lies in, also when another sub-agent launched it
// (its agent-<id>.meta.json sidecar, kept in options.source.meta, names that one). A session that names the session that spawned it (a
// parent_session system record among its first records, which Qwen writes before the first
// prompt) has that session as parent; a read holds the leading system records back until the
// first conversation record, but one that ends first emits the session as it knows it then, so
// a parent_session record written later than that read does not change the parent.
//
// Not read: the Gemini-style tmp/<hash>/chats/session-*.json of older Qwen builds, the
// sidecars beside a session (.runtime.json, .pr.json, .worktree.json, .ledger.jsonl) and a
// sub-agent's .jsonl.stream (its streamed text, which the transcript repeats once a round
// ends).
package qwen

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

// Name is the adapter's name and the SourceAgent of main sessions.
const Name = "qwen-code"

// SubagentAgent is the SourceAgent of sub-agent sessions.
const SubagentAgent = Name + "/subagent"

// Adapter reads Qwen Code transcripts. The zero value is ready to use.
type Adapter struct{}

var _ adapters.Adapter = Adapter{}

// Name implements adapters.Adapter.
func (Adapter) Name() string { return Name }

// Capabilities implements adapters.Adapter.
func (Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Restore: true, ToolCalls: true, Subagents: true, Incremental: true}
}

// Roots implements adapters.Adapter: Qwen's own order (Storage.getRuntimeBaseDir in the 0.24
// bundle): QWEN_RUNTIME_DIR, then QWEN_HOME, then ~/.qwen. A runtime folder set only in the
// settings file (advanced.runtimeOutputDir) is not followed: `pond sync --root` takes it.
func (Adapter) Roots(env adapters.Env) []string {
	if dir := runtimeDir(env); dir != "" {
		return []string{dir}
	}
	return nil
}

// runtimeDir is where Qwen keeps its sessions; "" without a home.
func runtimeDir(env adapters.Env) string {
	for _, v := range []string{"QWEN_RUNTIME_DIR", "QWEN_HOME"} {
		if env.Getenv == nil {
			break
		}
		if dir := strings.TrimSpace(env.Getenv(v)); dir != "" {
			return dir
		}
	}
	return configDir(env)
}

// configDir is where Qwen keeps its settings: QWEN_HOME, else ~/.qwen (QWEN_RUNTIME_DIR moves
// only what it writes while it runs).
func configDir(env adapters.Env) string {
	if env.Getenv != nil {
		if dir := strings.TrimSpace(env.Getenv("QWEN_HOME")); dir != "" {
			return dir
		}
	}
	if env.Home == "" {
		return ""
	}
	return joinFor(env.GOOS, env.Home, ".qwen")
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

// sessionFile is Qwen's own pattern for a session file name (SESSION_FILE_PATTERN).
var sessionFile = regexp.MustCompile(`^[0-9a-fA-F-]{32,36}\.jsonl$`)

// Scan implements adapters.Adapter: one source per session file in projects/*/chats/ and its
// archive/, and per sub-agent transcript in projects/*/subagents/<session>/.
func (Adapter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("qwen-code: scan %s: %w", root, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("qwen-code: scan %s: not a directory", root)
	}
	projects := filepath.Join(root, "projects")
	dirs, err := os.ReadDir(projects)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // Qwen is set up but has not written a session yet
	}
	if err != nil {
		return nil, fmt.Errorf("qwen-code: scan %s: %w", root, err)
	}
	var srcs []adapters.Source
	// each adds the files of dir whose names match.
	each := func(dir string, match func(string) bool) error {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("qwen-code: scan %s: %w", dir, err)
		}
		for _, e := range entries {
			if !match(e.Name()) {
				continue
			}
			path := filepath.Join(dir, e.Name())
			info, err := os.Stat(path)
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed while we looked
			}
			if err != nil {
				return fmt.Errorf("qwen-code: scan %s: %w", path, err)
			}
			if !info.Mode().IsRegular() {
				continue
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return fmt.Errorf("qwen-code: scan %s: %w", path, err)
			}
			srcs = append(srcs, adapters.Source{Key: filepath.ToSlash(rel), Path: path, Stamp: adapters.FileStamp(info),
				Size: info.Size(), ModTime: info.ModTime()})
		}
		return nil
	}
	isAgent := func(name string) bool {
		id, ok := strings.CutPrefix(name, "agent-")
		return ok && strings.HasSuffix(id, ".jsonl") && id != ".jsonl"
	}
	for _, d := range dirs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dir := filepath.Join(projects, d.Name())
		if !isDir(dir, d) {
			continue
		}
		chats := filepath.Join(dir, "chats")
		if err := each(chats, sessionFile.MatchString); err != nil {
			return nil, err
		}
		if err := each(filepath.Join(chats, "archive"), sessionFile.MatchString); err != nil {
			return nil, err
		}
		subs, err := os.ReadDir(filepath.Join(dir, "subagents"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("qwen-code: scan %s: %w", dir, err)
		}
		for _, s := range subs {
			sub := filepath.Join(dir, "subagents", s.Name())
			if !isDir(sub, s) {
				continue
			}
			if err := each(sub, isAgent); err != nil {
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

// kind is what a transcript file is, from where it lies.
type kind int

const (
	kindSession  kind = iota // projects/<enc>/chats/<session>.jsonl
	kindArchived             // projects/<enc>/chats/archive/<session>.jsonl
	kindSubagent             // projects/<enc>/subagents/<session>/agent-<id>.jsonl
)

func (k kind) String() string {
	switch k {
	case kindArchived:
		return "archived"
	case kindSubagent:
		return "subagent"
	}
	return "session"
}

// layout is what a source's key says about the file.
type layout struct {
	kind       kind
	stem       string // file name without .jsonl
	agentID    string // a sub-agent's <id> of agent-<id>
	parent     string // a sub-agent's session folder
	projectDir string // the sanitized-cwd folder: the project of last resort
}

// classify reads a source key (a slash-separated path relative to the root, though any path
// works: files outside the agent's layout count as sessions).
func classify(key string) layout {
	parts := strings.Split(filepath.ToSlash(key), "/")
	n := len(parts)
	l := layout{stem: strings.TrimSuffix(parts[n-1], ".jsonl")}
	if agent, ok := strings.CutPrefix(l.stem, "agent-"); ok && agent != "" && n >= 4 && parts[n-3] == "subagents" {
		l.kind, l.agentID, l.parent, l.projectDir = kindSubagent, agent, parts[n-2], parts[n-4]
		return l
	}
	if n >= 4 && parts[n-2] == "archive" && parts[n-3] == "chats" {
		l.kind, l.projectDir = kindArchived, parts[n-4]
		return l
	}
	if n >= 3 && parts[n-2] == "chats" {
		l.projectDir = parts[n-3]
	}
	return l
}

// sessionID is the session a file holds: its name, or "<parent>/agent-<id>" for a sub-agent.
func (l layout) sessionID() string {
	if l.kind == kindSubagent {
		return l.parent + "/agent-" + l.agentID
	}
	return l.stem
}
