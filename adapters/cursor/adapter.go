// Package cursor captures Cursor's chats: the IDE's composers, kept in its global state
// database, and the cursor-agent CLI's transcripts and chat stores. Cursor is capture only:
// restoring into it is unsupported (see Unsupported).
//
// DOC-PLACEHOLDER
package cursor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pondhq/pond/adapters"
)

// Name is the adapter's name and the SourceAgent of its sessions.
const Name = "cursor"

// SubagentKind is the SourceAgent of a sub-agent's session.
const SubagentKind = Name + "/subagent"

// Unsupported is why a stored session cannot be restored into Cursor (Describe().NoRestore):
// the IDE keeps its chats in a database it owns and rewrites while it runs, and cursor-agent
// resumes from the undocumented blobs of its chat store, not from the transcript.
const Unsupported = "restoring into Cursor is unsupported: the IDE's chats live in a database the running IDE owns, and cursor-agent resumes from an undocumented chat store, not from its transcripts"

// Adapter reads Cursor's chats. The zero value is ready to use.
type Adapter struct{}

var _ adapters.Adapter = Adapter{}

// New returns the Cursor adapter.
func New() Adapter { return Adapter{} }

// Name implements adapters.Adapter.
func (Adapter) Name() string { return Name }

// Capabilities implements adapters.Adapter: capture only. The IDE's database is read by
// composer (only the changed ones), a transcript from where the last read stopped.
func (Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Restore: false, ToolCalls: true, Subagents: true, Incremental: true}
}

// Roots implements adapters.Adapter: the IDE's user-data folder (see ideUserDir), then
// cursor-agent's ~/.cursor. Each root is scanned for both layouts.
func (Adapter) Roots(env adapters.Env) []string {
	var out []string
	for _, r := range []string{ideUserDir(env), cliDir(env)} {
		if r != "" {
			out = append(out, r)
		}
	}
	return out
}

// RootStamp implements adapters.Adapter: none. Scan stats files and stamps databases from
// their headers, and opens the IDE's database only to list its composers when the root holds
// CLI chats.
func (Adapter) RootStamp(context.Context, adapters.Env, string) (string, error) { return "", nil }

// Scan implements adapters.Adapter: the IDE's global database as one source (when root holds
// one), then every CLI transcript and chat store under root. A CLI chat the IDE also holds
// (the IDE writes transcripts of its own composers) is listed superseded: the IDE's record is
// the richer one.
func (Adapter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("cursor: scan: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("cursor: scan: %s is not a directory", root)
	}
	var srcs []adapters.Source
	ide, err := scanIDE(root)
	if err != nil {
		return nil, fmt.Errorf("cursor: scan %s: %w", root, err)
	}
	if ide != nil {
		srcs = append(srcs, *ide)
	}
	cli, err := scanCLI(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("cursor: scan %s: %w", root, err)
	}
	if len(cli) == 0 {
		return srcs, nil
	}
	held, err := ideComposers(ctx, env, root)
	if err != nil {
		return nil, fmt.Errorf("cursor: scan %s: %w", root, err)
	}
	for i := range cli {
		if held[cli[i].Hint] {
			cli[i].Skip = adapters.SkipSuperseded
		}
	}
	return append(srcs, cli...), nil
}

// ideComposers are the composers of every IDE database the CLI's chats may be copies of: root's
// own and those of the IDE roots env names.
func ideComposers(ctx context.Context, env adapters.Env, root string) (map[string]bool, error) {
	dirs := []string{root}
	if d := ideUserDir(env); d != "" && filepath.Clean(d) != filepath.Clean(root) {
		dirs = append(dirs, d)
	}
	held := map[string]bool{}
	for _, d := range dirs {
		path := filepath.Join(d, filepath.FromSlash(globalDBRel))
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		ids, err := composerIDs(ctx, env, path)
		if err != nil {
			return nil, err
		}
		for id := range ids {
			held[id] = true
		}
	}
	return held, nil
}

// Read implements adapters.Adapter.
func (Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	switch {
	case src.Skip != "":
		return adapters.Cursor{Stamp: src.Stamp}, nil
	case src.Key == ideKey:
		return readIDE(ctx, env, src, cur, out)
	case strings.HasSuffix(src.Key, "/store.db"):
		return readStore(ctx, env, src, out)
	}
	return readTranscript(ctx, env, src, cur, out)
}
