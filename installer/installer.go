// Package installer installs Pond into the user's session: the daemon as a login service, the
// tray's autostart entry, and Pond's MCP server in the agents' configs; and removes them again.
//
// Install and Uninstall run a list of steps; each reports what it did (or, in a dry run, would
// do), and one step's failure does not stop the others. A step added later (the agents' MCP
// registration) is one more entry in that list.
package installer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pondhq/pond/installer/service"
	"github.com/pondhq/pond/paths"
)

// Options say what Install and Uninstall cover.
type Options struct {
	Exe     string     // the pond binary the service and the entries run (service.Executable)
	Dirs    paths.Dirs // where the daemon keeps its data, state and logs
	Manager string     // service manager override (service.EnvManager's values); empty: detect
	DryRun  bool       // report what would change, change nothing

	Tray       bool   // install the tray's autostart entry
	NoTrayWhy  string // when the binary has no tray to start (a headless build): why the step is skipped
	MCP        bool   // register Pond's MCP server with the agents
	Agents     []string
	Purge      bool // Uninstall: delete the archive, state, caches and config too
	newService func(service.Options) (*service.Manager, error)
}

// Step is what one step did.
type Step struct {
	Name    string           `json:"step"` // service, tray, agents, purge
	Outcome string           `json:"outcome"`
	Summary string           `json:"summary"`
	Changes []service.Change `json:"changes,omitempty"`
	Notes   []string         `json:"notes,omitempty"`
	Error   string           `json:"error,omitempty"`
}

// Outcomes a step reports besides the service package's (installed, updated, unchanged,
// started, removed, absent).
const (
	OutcomeSkipped      = "skipped"
	OutcomeNotAvailable = "not available"
	OutcomeFailed       = "failed"
)

// Report is what Install or Uninstall did, step by step.
type Report struct {
	Binary string `json:"binary"`
	DryRun bool   `json:"dry_run"`
	Steps  []Step `json:"steps"`
}

// Err is nil when every step succeeded, else an error naming the steps that failed.
func (r Report) Err() error {
	var failed []string
	for _, s := range r.Steps {
		if s.Outcome == OutcomeFailed {
			failed = append(failed, s.Name+": "+s.Error)
		}
	}
	if failed == nil {
		return nil
	}
	return errors.New(strings.Join(failed, "; "))
}

// step is one part of an installation, with its install and its uninstall.
type step struct {
	name      string
	install   func(context.Context, *Options) Step
	uninstall func(context.Context, *Options) Step
}

// steps run in this order; Uninstall runs them in reverse, so the daemon stops before the
// archive is purged.
var steps = []step{
	{"service", installService, uninstallService},
	{"tray", installTray, uninstallTray},
	{"agents", installAgents, uninstallAgents},
}

// Install runs every step.
func Install(ctx context.Context, o Options) Report {
	r := Report{Binary: o.Exe, DryRun: o.DryRun}
	for _, s := range steps {
		st := s.install(ctx, &o)
		st.Name = s.name
		r.Steps = append(r.Steps, st)
	}
	return r
}

// Uninstall runs every step's removal, last step first, then the purge when asked.
func Uninstall(ctx context.Context, o Options) Report {
	r := Report{Binary: o.Exe, DryRun: o.DryRun}
	for i := len(steps) - 1; i >= 0; i-- {
		st := steps[i].uninstall(ctx, &o)
		st.Name = steps[i].name
		r.Steps = append(r.Steps, st)
	}
	if o.Purge {
		st := purge(&o)
		st.Name = "purge"
		r.Steps = append(r.Steps, st)
	}
	return r
}

func (o *Options) service() (*service.Manager, error) {
	newService := o.newService
	if newService == nil {
		newService = service.New
	}
	return newService(service.Options{Exe: o.Exe, Dirs: o.Dirs, Manager: o.Manager, DryRun: o.DryRun})
}

func fromResult(r service.Result, err error, summary string) Step {
	st := Step{Outcome: r.Outcome, Summary: summary, Changes: r.Changes, Notes: r.Notes}
	if err != nil {
		st.Outcome, st.Error = OutcomeFailed, err.Error()
	}
	return st
}

func failed(err error) Step { return Step{Outcome: OutcomeFailed, Error: err.Error()} }

func installService(ctx context.Context, o *Options) Step {
	m, err := o.service()
	if err != nil {
		return failed(err)
	}
	r, err := m.Install(ctx)
	return fromResult(r, err, fmt.Sprintf("daemon as a %s: %s", m.Kind(), m.File()))
}

func uninstallService(ctx context.Context, o *Options) Step {
	m, err := o.service()
	if err != nil {
		return failed(err)
	}
	r, err := m.Uninstall(ctx)
	return fromResult(r, err, fmt.Sprintf("daemon's %s: %s", m.Kind(), m.File()))
}

func installTray(_ context.Context, o *Options) Step {
	a := service.TrayAutostart(o.Exe)
	switch {
	case o.NoTrayWhy != "":
		return Step{Outcome: OutcomeSkipped, Summary: o.NoTrayWhy}
	case !o.Tray:
		// An entry from an earlier install would make that untrue: remove it.
		r, err := a.Disable(o.DryRun)
		st := fromResult(r, err, "--no-tray: the tray does not start at login")
		if st.Outcome == service.OutcomeAbsent {
			st.Outcome = OutcomeSkipped
		}
		return st
	}
	r, err := a.Enable(o.DryRun)
	st := fromResult(r, err, "tray at login: "+a.Where())
	if st.Outcome == service.OutcomeInstalled || st.Outcome == service.OutcomeUpdated {
		st.Notes = append(st.Notes, "the tray starts at your next login; `pond tray` starts it now")
	}
	return st
}

// uninstallTray removes the entry whatever --no-tray says: uninstall leaves nothing behind.
func uninstallTray(_ context.Context, o *Options) Step {
	a := service.TrayAutostart(o.Exe)
	r, err := a.Disable(o.DryRun)
	return fromResult(r, err, "tray at login: "+a.Where())
}

// installAgents is where MCP registration in the agents' configs will run; until each agent's
// package knows its config files, it says so rather than pretending.
func installAgents(_ context.Context, o *Options) Step {
	if !o.MCP {
		return Step{Outcome: OutcomeSkipped, Summary: "--no-mcp: no agent is given Pond's MCP server"}
	}
	summary := "MCP registration in the agents' configs is not available in this pond yet"
	if len(o.Agents) > 0 {
		summary += " (asked for: " + strings.Join(o.Agents, ", ") + ")"
	}
	return Step{Outcome: OutcomeNotAvailable, Summary: summary,
		Notes: []string{"register it by hand meanwhile, e.g. `claude mcp add --scope user pond -- " + o.Exe + " mcp`"}}
}

func uninstallAgents(context.Context, *Options) Step {
	return Step{Outcome: OutcomeNotAvailable, Summary: "MCP registration in the agents' configs is not available in this pond yet: nothing of Pond's to remove there"}
}

// PurgeTargets are what `pond uninstall --purge` deletes: the archive, state (logs included),
// caches, the config file and the runtime directory, each only when it exists.
func PurgeTargets(d paths.Dirs) []string {
	var out []string
	for _, p := range []string{d.Data.Path, d.State.Path, d.Cache.Path, d.ConfigFile.Path, d.Runtime.Path} {
		if _, err := os.Lstat(p); err == nil && !contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func contains(list []string, p string) bool {
	for _, q := range list {
		if q == p {
			return true
		}
	}
	return false
}

func purge(o *Options) Step {
	st := Step{Outcome: service.OutcomeAbsent, Summary: "archive, state, caches and config"}
	home, _ := os.UserHomeDir()
	for _, p := range PurgeTargets(o.Dirs) {
		if unsafeToPurge(p, home) {
			st.Outcome, st.Error = OutcomeFailed, fmt.Sprintf("refusing to delete %s: it is the home directory, a folder above it or the root", p)
			return st
		}
	}
	for _, p := range PurgeTargets(o.Dirs) {
		if _, err := os.Lstat(p); err != nil {
			continue // inside one removed before (on macOS the state and config live in the data folder)
		}
		st.Changes = append(st.Changes, service.Change{Action: "remove", Path: p})
		st.Outcome = service.OutcomeRemoved
		if o.DryRun {
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			st.Outcome, st.Error = OutcomeFailed, err.Error()
			return st
		}
	}
	if dir := filepath.Dir(o.Dirs.ConfigFile.Path); !o.DryRun && filepath.Base(dir) == "pond" {
		os.Remove(dir) // the config file's own folder (…/pond/config.toml), once empty
	}
	return st
}

// unsafeToPurge guards against an override such as POND_DATA_DIR=$HOME turning a purge into
// deleting the user's files.
func unsafeToPurge(p, home string) bool {
	p = filepath.Clean(p)
	if p == filepath.Dir(p) { // a root
		return true
	}
	if home == "" {
		return false
	}
	rel, err := filepath.Rel(p, filepath.Clean(home))
	return err == nil && (rel == "." || !strings.HasPrefix(rel, ".."))
}
