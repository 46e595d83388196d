// Package kilo captures the sessions of Kilo CLI (npm @kilocode/cli), Kilo Code rebuilt on
// OpenCode: it keeps OpenCode's SQLite database under its own name, kilo.db, in its own data
// directory ($XDG_DATA_HOME/kilo, else ~/.local/share/kilo). The database is read by package
// opencode's code (Adapter{DBStem: "kilo"}), so the mapping is OpenCode's, and only the
// SourceAgent differs: "kilo", and "kilo/subagent" for a task tool's child session. Kilo Code's
// VS Code era (kilocode.kilo-code task folders) is read by package roocode.
//
// Restore is OpenCode's: an import document in ROOT/pond-import/ that `kilo import` takes in
// (Kilo CLI keeps OpenCode's import command), then `kilo -s <id>`. make verify-agents checks it
// with Kilo CLI itself (npm @kilocode/cli-linux-x64 7.7.9: `kilo import`, then the prompt
// `kilo run --session` sends, against a fake model API), which trusts message ids to ascend
// with time: while it answers a prompt it drops every user message whose id sorts after the
// prompt's own. A foreign rebuild's ids count up from zero for that reason (package opencode's
// encoder); a native restore keeps the ids Kilo minted.
package kilo

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/corpus"
	"github.com/pondhq/pond/adapters/opencode"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// Name is the adapter's name and the SourceAgent of its sessions.
const Name = "kilo"

// SubagentKind is the SourceAgent of a child session (a task tool run).
const SubagentKind = Name + "/subagent"

// Adapter reads Kilo CLI's database. The zero value is ready to use.
type Adapter struct{}

var _ adapters.Adapter = Adapter{}

// inner is the OpenCode adapter over kilo.db.
func (Adapter) inner() opencode.Adapter { return opencode.Adapter{DBStem: "kilo"} }

// Name implements adapters.Adapter.
func (Adapter) Name() string { return Name }

// Capabilities implements adapters.Adapter: OpenCode's.
func (a Adapter) Capabilities() adapters.Capabilities { return a.inner().Capabilities() }

// Roots implements adapters.Adapter: Kilo's data directory, $XDG_DATA_HOME/kilo, else
// ~/.local/share/kilo (xdg-basedir, as OpenCode, on every platform).
func (Adapter) Roots(env adapters.Env) []string {
	if env.Getenv != nil {
		if x := env.Getenv("XDG_DATA_HOME"); x != "" {
			return []string{filepath.Join(x, "kilo")}
		}
	}
	if env.Home == "" {
		return nil
	}
	return []string{filepath.Join(env.Home, ".local", "share", "kilo")}
}

// Scan implements adapters.Adapter.
func (a Adapter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	return a.inner().Scan(ctx, env, root)
}

// RootStamp implements adapters.Adapter.
func (a Adapter) RootStamp(ctx context.Context, env adapters.Env, root string) (string, error) {
	return a.inner().RootStamp(ctx, env, root)
}

// Read implements adapters.Adapter: OpenCode's read, its sessions renamed to Kilo's.
func (a Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	return a.inner().Read(ctx, env, src, cur, renamer{out})
}

// renamer gives the sessions OpenCode's reader emits Kilo's SourceAgent.
type renamer struct{ adapters.Emitter }

func (r renamer) Event(e session.Event) error {
	if e.Session != nil && (e.Session.SourceAgent == opencode.Name || strings.HasPrefix(e.Session.SourceAgent, opencode.Name+"/")) {
		s := *e.Session
		s.SourceAgent = Name + strings.TrimPrefix(s.SourceAgent, opencode.Name)
		e.Session = &s
	}
	return r.Emitter.Event(e)
}

// Encode implements restore.Encoder: OpenCode's import documents, imported and resumed with
// Kilo's command.
func (a Adapter) Encode(j *restore.Job) (*restore.Plan, error) {
	p, err := a.inner().Encode(j)
	if err != nil {
		return nil, err
	}
	for _, argv := range p.Argv {
		if len(argv) > 0 && argv[0] == "opencode" {
			argv[0] = "kilo"
		}
	}
	return p, nil
}

// ReadBackRoot implements restore.ReadBacker: OpenCode's layout of an import document.
func (a Adapter) ReadBackRoot(files []restore.File, dir string) (string, error) {
	return a.inner().ReadBackRoot(files, dir)
}

// Corpus implements corpus.Generator: OpenCode's database under Kilo's names.
func (a Adapter) Corpus(env corpus.Env) corpus.Format { return a.inner().Corpus(env) }
