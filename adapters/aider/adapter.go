// Package aider captures Aider sessions (PyPI aider-chat) from the chat history file Aider keeps
// in each repository, .aider.chat.history.md (--chat-history-file, AIDER_CHAT_HISTORY_FILE), and
// restores them as a run such a file holds.
//
// Aider only ever appends to the file (aider/io.py, append_chat_history). Every start of Aider
// writes a header line "# aider chat started at YYYY-MM-DD HH:MM:SS" (local time, no zone); what
// follows until the next header is one run, which Pond takes as one session. Within a run:
//
//	#### text      what the user typed, one line per line of input (user_input); consecutive
//	               "#### " lines are one input
//	> text         Aider's own output (tool_output, tool_error, tool_warning, confirm_ask's
//	               question and answer): "> " is written before the first line of a block only,
//	               and the block's last line ends with two spaces (linebreak=True), so the lines
//	               after an open "> " line belong to it until one ends that way
//	anything else  the model's reply (ai_output), up to the next "#### " or "> " line outside a
//	               code fence: a "#### " or "> " line inside a fenced snippet is content
//
// A session's id is made from the file's path, the header's time and the run's place in the file
// (aider-<digest of the path>-<time>-<ordinal>): the file holds no id of its own. Its project is
// the folder the file is in (Aider writes it at the repository's root). Each block is one record,
// kept verbatim (with the blank lines after it) under options.source.record of its message:
// the header (and the restore mark Pond writes after it) a part-less system message, "#### "
// blocks user messages, "> " blocks tool messages, replies assistant messages. Message ids are
// the block's place in its run (b000001, …), so they sort in file order: Aider records no time
// but the run's start, which every message takes.
//
// Commands the user ran through Aider (/run CMD, !CMD, /test CMD) and the commands Aider ran for
// the model ("> Running CMD") are tool calls: the call and its result go into the message of the
// first "> " block after the command (Aider writes no output of the command itself into the file,
// only what it said about it). A result fails when Aider reported an error, or when /test's output
// was added to the chat (Aider adds a test's output only when it failed).
//
// Discovery: Aider has no folder of its own. The root is the home directory, walked to a bounded
// depth (hidden folders and dependency folders skipped), plus the history file in every project
// folder the archive's sessions name (Env.Projects) and AIDER_CHAT_HISTORY_FILE. A searched root
// is never watched (Capabilities.Searched): the periodic sync finds what changed.
package aider

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

// Name is the adapter's name and the SourceAgent of its sessions.
const Name = "aider"

// HistoryFile is the name of Aider's chat history file (--chat-history-file's default).
const HistoryFile = ".aider.chat.history.md"

// Bounds of the walk of a searched root: how deep below it a history file is looked for (a
// repository at ~/src/github.com/owner/repo is 4 deep), and how many folders one scan visits at
// most, so a home of any size costs a bounded scan.
const (
	maxDepth = 5
	maxDirs  = 50000
)

// skipDirs are folders never walked into: dependency and build trees, which hold no history
// file of the user's own and can hold very many folders.
var skipDirs = map[string]bool{
	"node_modules": true, "vendor": true, "target": true, "__pycache__": true, "venv": true,
	"site-packages": true, "Library": true, "AppData": true, "snap": true, "go": true,
}

// Adapter reads Aider's chat history files. The zero value is ready to use.
type Adapter struct{}

var _ adapters.Adapter = Adapter{}

// Name implements adapters.Adapter.
func (Adapter) Name() string { return Name }

// Capabilities implements adapters.Adapter.
func (Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Restore: true, ToolCalls: true, Incremental: true, Searched: true, Commands: true}
}

// Roots implements adapters.Adapter: the home directory, searched.
func (Adapter) Roots(env adapters.Env) []string {
	if env.Home == "" {
		return nil
	}
	return []string{env.Home}
}

// RootStamp implements adapters.Adapter: none, the walk is what finds new files.
func (Adapter) RootStamp(context.Context, adapters.Env, string) (string, error) { return "", nil }

// Scan implements adapters.Adapter: every history file below root within the walk's bounds
// and, for the home root, the one in each of env.Projects and AIDER_CHAT_HISTORY_FILE.
func (Adapter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("aider: scan %s: %w", root, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("aider: scan %s: not a directory", root)
	}
	seen := map[string]bool{}
	var srcs []adapters.Source
	add := func(path string) {
		path = filepath.Clean(path)
		if seen[path] {
			return
		}
		info, err := os.Stat(path)
		if err != nil || !info.Mode().IsRegular() {
			return
		}
		seen[path] = true
		srcs = append(srcs, adapters.Source{Key: filepath.ToSlash(path), Path: path, Stamp: adapters.FileStamp(info),
			Size: info.Size(), ModTime: info.ModTime()})
	}
	if err := walk(ctx, root, add); err != nil {
		return nil, err
	}
	if env.Home != "" && filepath.Clean(root) == filepath.Clean(env.Home) {
		for _, p := range env.Projects {
			if filepath.IsAbs(p) {
				add(filepath.Join(p, HistoryFile))
			}
		}
		if env.Getenv != nil {
			if f := env.Getenv("AIDER_CHAT_HISTORY_FILE"); filepath.IsAbs(f) {
				add(f)
			}
		}
	}
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].Key < srcs[j].Key })
	return srcs, nil
}

// walk calls add with every history file below root, breadth first, within maxDepth and
// maxDirs, never following a link to a folder and skipping hidden and dependency folders.
func walk(ctx context.Context, root string, add func(string)) error {
	level := []string{root}
	visited := 0
	for depth := 0; depth <= maxDepth && len(level) > 0; depth++ {
		var next []string
		for _, dir := range level {
			if err := ctx.Err(); err != nil {
				return err
			}
			if visited++; visited > maxDirs {
				return nil
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				if dir == root && !errors.Is(err, fs.ErrPermission) {
					return fmt.Errorf("aider: scan %s: %w", root, err)
				}
				continue // unreadable folders below the root are not Aider's concern
			}
			for _, e := range entries {
				name := e.Name()
				switch {
				case name == HistoryFile && e.Type().IsRegular():
					add(filepath.Join(dir, name))
				case e.IsDir() && !strings.HasPrefix(name, ".") && !skipDirs[name]:
					next = append(next, filepath.Join(dir, name))
				}
			}
		}
		level = next
	}
	return nil
}
