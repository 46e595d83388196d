// Package claudecode captures Claude Code sessions: the JSON Lines transcripts the CLI writes
// under its config directory ($CLAUDE_CONFIG_DIR, else ~/.claude):
//
//	projects/<encoded cwd>/<session>.jsonl                                  a session
//	projects/<encoded cwd>/<session>/subagents/agent-<id>.jsonl             a sub-agent (2.1.x),
//	                                                    with agent-<id>.meta.json beside it
//	projects/<encoded cwd>/<session>/subagents/workflows/<wf>/agent-<id>.jsonl   a workflow sub-agent
//	projects/<encoded cwd>/agent-<id>.jsonl                                 a sub-agent (≤ 2.0.x)
//
// Every line is one record. User and assistant records become messages (consecutive assistant
// lines of one API response, same message.id, merge into one message); every other record
// (system lines, attachments, progress, snapshots, titles, modes, unknown types) becomes a
// part-less system message. Each line is kept verbatim, once, under options.source.record of
// the message it produced, or of the first part it added to a merged message.
//
// A sub-agent is its own session "<parent>/agent-<id>" with the parent session as
// ParentSessionID and "claude-code/subagent" as SourceAgent. A session file whose lines carry
// another session's id (a resumed or forked continuation that copied its parent's history) names
// that session as its parent.
package claudecode

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

// Name is the adapter's name and the SourceAgent of main sessions.
const Name = "claude-code"

// SubagentAgent is the SourceAgent of sub-agent sessions.
const SubagentAgent = Name + "/subagent"

// Adapter reads Claude Code transcripts. The zero value is ready to use.
type Adapter struct{}

var _ adapters.Adapter = Adapter{}

// Name implements adapters.Adapter.
func (Adapter) Name() string { return Name }

// Capabilities implements adapters.Adapter. Package resume restores into this agent from the
// raw records kept in options.source.
func (Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Restore: true, ToolCalls: true, Subagents: true, Incremental: true}
}

// Roots implements adapters.Adapter: $CLAUDE_CONFIG_DIR when set (Claude Code takes it as one
// directory, not a list), else ~/.claude (%USERPROFILE%\.claude on Windows).
func (Adapter) Roots(env adapters.Env) []string {
	if env.Getenv != nil {
		if dir := strings.TrimSpace(env.Getenv("CLAUDE_CONFIG_DIR")); dir != "" {
			return []string{dir}
		}
	}
	if env.Home == "" {
		return nil
	}
	return []string{joinFor(env.GOOS, env.Home, ".claude")}
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

// Scan implements adapters.Adapter: one source per session, sub-agent and legacy sidechain file
// under root/projects. Sidecars (meta.json, tool-results/, workflow journals) are not sources.
func (Adapter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("claude-code: scan %s: %w", root, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("claude-code: scan %s: not a directory", root)
	}
	projects := filepath.Join(root, "projects")
	dirs, err := os.ReadDir(projects)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // Claude Code is set up but has not written a session yet
	}
	if err != nil {
		return nil, fmt.Errorf("claude-code: scan %s: %w", root, err)
	}
	var srcs []adapters.Source
	add := func(path string) error {
		info, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while we looked
		}
		if err != nil {
			return fmt.Errorf("claude-code: scan %s: %w", path, err)
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return fmt.Errorf("claude-code: scan %s: %w", path, err)
		}
		srcs = append(srcs, adapters.Source{
			Key:     filepath.ToSlash(rel),
			Path:    path,
			Stamp:   adapters.FileStamp(info),
			Size:    info.Size(),
			ModTime: info.ModTime(),
		})
		return nil
	}
	for _, d := range dirs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dir := filepath.Join(projects, d.Name())
		if !isDir(dir, d) {
			continue
		}
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("claude-code: scan %s: %w", dir, err)
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			switch {
			case strings.HasSuffix(e.Name(), ".jsonl") && !isDir(path, e):
				if err := add(path); err != nil {
					return nil, err
				}
			case isDir(path, e):
				if err := scanSubagents(ctx, filepath.Join(path, "subagents"), add); err != nil {
					return nil, err
				}
			}
		}
	}
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].Key < srcs[j].Key })
	return srcs, nil
}

// scanSubagents adds every agent-*.jsonl below a session's subagents/ folder (flat, or under
// workflows/<wf>/). Other files there (a workflow's journal.jsonl, meta.json sidecars) only
// repeat or describe what the transcripts hold.
func scanSubagents(ctx context.Context, dir string, add func(string) error) error {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() || !strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".jsonl") {
			return nil
		}
		return add(path)
	})
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("claude-code: scan %s: %w", dir, err)
	}
	return err
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
	kindSession     kind = iota // projects/<enc>/<session>.jsonl
	kindSubagent                // <session>/subagents/[workflows/<wf>/]agent-<id>.jsonl
	kindLegacyAgent             // projects/<enc>/agent-<id>.jsonl: the parent is in its lines
)

func (k kind) String() string {
	switch k {
	case kindSubagent:
		return "subagent"
	case kindLegacyAgent:
		return "legacy-subagent"
	}
	return "session"
}

// layout is what a source's key says about the file.
type layout struct {
	kind       kind
	stem       string // file name without .jsonl
	agentID    string // sub-agents: the <id> of agent-<id>
	parent     string // kindSubagent: the session folder holding subagents/
	workflow   string // a workflow sub-agent's <wf>
	projectDir string // the encoded-cwd folder: the project of last resort
}

// classify reads a source key (a slash-separated path relative to the root, though any path
// works: files outside the agent's layout count as sessions).
func classify(key string) layout {
	parts := strings.Split(filepath.ToSlash(key), "/")
	name := parts[len(parts)-1]
	l := layout{stem: strings.TrimSuffix(name, ".jsonl")}
	agent, isAgent := strings.CutPrefix(l.stem, "agent-")
	isAgent = isAgent && agent != ""
	if isAgent {
		for i := len(parts) - 2; i >= 1; i-- {
			if parts[i] != "subagents" {
				continue
			}
			l.kind, l.agentID, l.parent = kindSubagent, agent, parts[i-1]
			if i >= 2 {
				l.projectDir = parts[i-2]
			}
			if i+3 == len(parts)-1 && parts[i+1] == "workflows" {
				l.workflow = parts[i+2]
			}
			return l
		}
		l.kind, l.agentID = kindLegacyAgent, agent
	}
	if len(parts) >= 2 {
		l.projectDir = parts[len(parts)-2]
	}
	return l
}
