package gemini

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

// Name is the adapter's name and the source_agent of main sessions.
const Name = "gemini-cli"

// SubagentAgent is the source_agent of sub-agent sessions.
const SubagentAgent = Name + "/subagent"

// Adapter reads Gemini CLI sessions.
type Adapter struct{}

var _ adapters.Adapter = (*Adapter)(nil)

// New returns the Gemini CLI adapter.
func New() *Adapter { return &Adapter{} }

// Name implements adapters.Adapter.
func (*Adapter) Name() string { return Name }

// Capabilities implements adapters.Adapter. Package resume restores into this agent from the
// raw records kept in options.source.
func (*Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Restore: true, ToolCalls: true, Subagents: true, Incremental: true}
}

// Roots implements adapters.Adapter: the CLI's global folder, `<home>/.gemini`, where
// GEMINI_CLI_HOME (when set and non-empty) replaces the home directory, as the CLI's own
// homedir() does.
func (*Adapter) Roots(env adapters.Env) []string {
	home := ""
	if env.Getenv != nil {
		home = env.Getenv("GEMINI_CLI_HOME")
	}
	if home == "" {
		home = env.Home
	}
	if home == "" && env.GOOS == "windows" && env.Getenv != nil {
		home = env.Getenv("USERPROFILE")
	}
	if home == "" {
		return nil
	}
	return []string{filepath.Join(home, ".gemini")}
}

// RootStamp implements adapters.Adapter: none, since Scan only lists and stats files.
func (*Adapter) RootStamp(context.Context, adapters.Env, string) (string, error) { return "", nil }

// Scan implements adapters.Adapter. It lists `tmp/*/chats/session-*.json[l]` and the sub-agent
// files `tmp/*/chats/<parent-session-id>/*.json[l]`, keyed by their slash-separated path under
// root.
func (*Adapter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("gemini: scan %s: %w", root, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("gemini: scan %s: not a directory", root)
	}
	tmp := filepath.Join(root, "tmp")
	projects, err := os.ReadDir(tmp)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("gemini: scan %s: %w", tmp, err)
	}
	var srcs []adapters.Source
	add := func(path string) {
		info, err := os.Stat(path) // follows symlinks, as the CLI does
		if err != nil || !info.Mode().IsRegular() {
			return
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return
		}
		srcs = append(srcs, adapters.Source{
			Key:     filepath.ToSlash(rel),
			Path:    path,
			Stamp:   adapters.FileStamp(info),
			Size:    info.Size(),
			ModTime: info.ModTime(),
		})
	}
	for _, p := range projects {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		chats := filepath.Join(tmp, p.Name(), "chats")
		entries, err := os.ReadDir(chats)
		if err != nil {
			continue // not a project folder, or no sessions yet
		}
		for _, e := range entries {
			path := filepath.Join(chats, e.Name())
			if isDir(path) {
				children, err := os.ReadDir(path)
				if err != nil {
					continue
				}
				for _, c := range children {
					if isSessionFile(c.Name()) {
						add(filepath.Join(path, c.Name()))
					}
				}
				continue
			}
			if strings.HasPrefix(e.Name(), "session-") && isSessionFile(e.Name()) {
				add(path)
			}
		}
	}
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].Key < srcs[j].Key })
	return srcs, nil
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

func isSessionFile(name string) bool {
	return strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".jsonl")
}
