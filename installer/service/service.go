// Package service installs Pond's daemon as a per-user login service and the tray as a login
// autostart entry, and tells whether they are installed, running or stale.
//
// Each system gets what works there without an administrator:
//
//   - Linux with systemd: a user unit (~/.config/systemd/user/pond.service) through
//     github.com/kardianos/service, with Pond's own unit text (WantedBy=default.target,
//     Restart=on-failure), enabled and started; linger is left to the user.
//   - Linux without systemd: an XDG autostart entry that starts the daemon with the desktop
//     session (no restart on failure; the report says so).
//   - macOS: a LaunchAgent (~/Library/LaunchAgents/io.pond.daemon.plist, RunAtLoad, KeepAlive)
//     loaded with launchctl bootstrap/bootout in the gui/<uid> domain.
//   - Windows: a logon task in Task Scheduler for the user's SID (a per-user Windows service
//     needs an administrator).
//
// The unit, plist and task XML are pure functions of a Spec (SystemdUnit, LaunchdPlist,
// TaskXML). Files are written only when their content changes, and Status compares the
// installed file with the one this binary would write, so an upgrade or a moved binary shows
// as stale. Everything here is pure Go so the tray can call Status.
package service

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/pondhq/pond/paths"
)

// Names the service is registered under. The daemon and the tray have distinct labels so their
// LaunchAgents never clash.
const (
	UnitName    = "pond.service"   // systemd user unit
	DaemonLabel = "io.pond.daemon" // LaunchAgent label; XDG autostart entry of the daemon fallback
	TrayLabel   = "io.pond.tray"   // tray's LaunchAgent label and XDG autostart entry
	TaskName    = "Pond Daemon"    // Windows Task Scheduler, root folder (no folder needs an administrator)
	RunValue    = "Pond"           // Windows tray: value name under HKCU\…\CurrentVersion\Run
)

// EnvManager overrides the service manager detection: systemd, launchd, schtasks or autostart.
// Tests use it with fake managers on PATH; a user can use it where detection guesses wrong.
const EnvManager = "POND_SERVICE_MANAGER"

// Managers, as EnvManager spells them.
const (
	ManagerSystemd   = "systemd"
	ManagerLaunchd   = "launchd"
	ManagerSchtasks  = "schtasks"
	ManagerAutostart = "autostart"
)

// State is where the daemon's login service stands.
type State string

// States, as Status reports them.
const (
	NotInstalled State = "not installed"
	Installed    State = "installed" // registered, not running
	Running      State = "running"
	Stale        State = "stale" // registered, but not what this binary would write: run pond install
)

// Status is the daemon's login service as the service manager and its file show it.
type Status struct {
	State   State  `json:"state"`
	Manager string `json:"manager"`        // systemd, launchd, schtasks or autostart
	Kind    string `json:"kind"`           // e.g. "systemd user unit"
	File    string `json:"file,omitempty"` // the installed definition
	Running bool   `json:"running"`
	Detail  string `json:"detail,omitempty"` // why stale, the manager's word on a failure, …
}

// Change is one thing Install or Uninstall did, or with DryRun would do.
type Change struct {
	Action  string   `json:"action"` // write, remove, run
	Path    string   `json:"path,omitempty"`
	Command []string `json:"command,omitempty"`
}

func (c Change) String() string {
	switch c.Action {
	case "run":
		return "run " + quoteArgs(c.Command)
	default:
		return c.Action + " " + c.Path
	}
}

// Result is what Install or Uninstall did.
type Result struct {
	Outcome string   `json:"outcome"` // installed, updated, unchanged, started, removed, absent
	Kind    string   `json:"kind"`
	File    string   `json:"file,omitempty"`
	Changes []Change `json:"changes"`
	Notes   []string `json:"notes,omitempty"` // advice: linger, what the fallback cannot do, …
}

// Outcomes of Install and Uninstall.
const (
	OutcomeInstalled = "installed"
	OutcomeUpdated   = "updated"
	OutcomeUnchanged = "unchanged"
	OutcomeStarted   = "started" // unchanged, but it was not running
	OutcomeRemoved   = "removed"
	OutcomeAbsent    = "absent"
)

// Spec is what a login service runs.
type Spec struct {
	Exe     string   // absolute path of the pond binary
	Args    []string // e.g. ["daemon"]
	LogFile string   // where the log goes when the manager keeps none (all but systemd)
}

// Options say which pond binary and which locations the service is for.
type Options struct {
	Exe     string     // absolute path of the pond binary (Executable)
	Dirs    paths.Dirs // the daemon's logs and the Windows task copy live in Dirs.State
	Manager string     // override detection (EnvManager's values); empty: detect
	DryRun  bool       // Install and Uninstall only report what they would change

	home string // tests: defaults to os.UserHomeDir
	uid  int    // launchctl's gui/<uid> domain, loginctl's user
	sid  string // Windows: the user's SID for the logon task
}

// Manager installs, controls and reports the daemon's login service.
type Manager struct {
	opts Options
	b    backend
}

// backend is one service manager.
type backend interface {
	name() string // systemd, launchd, schtasks, autostart
	kind() string
	spec() Spec // what the service runs
	file() string
	want() ([]byte, error)
	install(ctx context.Context, r *Result, have []byte, exists bool) error
	uninstall(ctx context.Context, r *Result) error
	running(ctx context.Context) (bool, string, error)
	registered(ctx context.Context) (bool, error) // the manager knows the service (enabled, loaded, task exists)
	start(ctx context.Context) error
	stop(ctx context.Context) error
	restart(ctx context.Context) error
	logs(ctx context.Context, lines int, follow bool) ([]string, error) // a command to run, or nil to read LogFile
}

// New picks the service manager for this system (or Options.Manager, or $POND_SERVICE_MANAGER).
func New(o Options) (*Manager, error) {
	if !filepath.IsAbs(o.Exe) {
		return nil, fmt.Errorf("service: the pond binary must be an absolute path, not %q", o.Exe)
	}
	if o.home == "" {
		h, err := os.UserHomeDir()
		if err != nil || h == "" {
			return nil, errors.New("service: cannot find the home directory: set HOME")
		}
		o.home = h
	}
	if o.uid == 0 {
		o.uid = os.Getuid()
	}
	if o.Manager == "" {
		o.Manager = os.Getenv(EnvManager)
	}
	if o.Manager == "" {
		o.Manager = detect()
	}
	m := &Manager{opts: o}
	switch o.Manager {
	case ManagerSystemd:
		m.b = &systemdUser{o: &m.opts}
	case ManagerLaunchd:
		m.b = &launchAgent{o: &m.opts}
	case ManagerSchtasks:
		if m.opts.sid == "" {
			sid, err := userSID()
			if err != nil {
				return nil, err
			}
			m.opts.sid = sid
		}
		m.b = &logonTask{o: &m.opts}
	case ManagerAutostart:
		m.b = &autostartDaemon{o: &m.opts}
	default:
		return nil, fmt.Errorf("service: unknown service manager %q (want %s, %s, %s or %s)", o.Manager,
			ManagerSystemd, ManagerLaunchd, ManagerSchtasks, ManagerAutostart)
	}
	return m, nil
}

// Executable is the running binary's absolute path with symlinks resolved, which is what a
// service must point at: a symlink that moves later (a package manager's bin/) would otherwise
// leave the service starting another binary than the one that installed it.
func Executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("service: find the pond binary: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", fmt.Errorf("service: find the pond binary: %w", err)
	}
	return filepath.Abs(exe)
}

// LogFile is where the daemon's log goes when no journal takes it (macOS, Windows, the XDG
// autostart fallback).
func LogFile(d paths.Dirs) string { return filepath.Join(d.State.Path, "logs", "daemon.log") }

// DaemonSpec is the daemon as its login service runs it on the chosen manager: `pond daemon`
// where the manager keeps its output (the journal, launchd's log file), else `pond service
// run`, which sends the log to LogFile and on Windows leaves the console window.
func (m *Manager) DaemonSpec() Spec { return m.b.spec() }

// args is the service's command after the binary: sub, then every location the user chose by
// flag or environment variable, so the daemon under the manager (whose environment is not the
// shell's) uses the same archive as the command that installed it.
func (o *Options) args(sub ...string) []string {
	args := append([]string(nil), sub...)
	for _, l := range []struct {
		flag string
		p    paths.Path
	}{
		{"--config-file", o.Dirs.ConfigFile}, {"--data-dir", o.Dirs.Data}, {"--state-dir", o.Dirs.State},
		{"--cache-dir", o.Dirs.Cache}, {"--runtime-dir", o.Dirs.Runtime},
	} {
		if l.p.Path != "" && (l.p.Source == paths.FromFlag || l.p.Source == paths.FromEnv) {
			args = append(args, l.flag, l.p.Path)
		}
	}
	return args
}

// ManagerName is the chosen service manager (systemd, launchd, schtasks or autostart).
func (m *Manager) ManagerName() string { return m.b.name() }

// Kind describes the chosen service, e.g. "systemd user unit".
func (m *Manager) Kind() string { return m.b.kind() }

// File is the service's definition file.
func (m *Manager) File() string { return m.b.file() }

// Install writes the service's definition if it changed and makes the manager run it: enabled
// at login and started now. A second run with the same binary changes nothing.
func (m *Manager) Install(ctx context.Context) (Result, error) {
	r := Result{Kind: m.b.kind(), File: m.b.file()}
	if err := guard(m.b.name()); err != nil {
		return r, err
	}
	have, err := os.ReadFile(m.b.file())
	exists := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return r, fmt.Errorf("service: read %s: %w", m.b.file(), err)
	}
	err = m.b.install(ctx, &r, have, exists)
	if err != nil {
		return r, fmt.Errorf("service: install the %s: %w", m.b.kind(), err)
	}
	return r, nil
}

// Uninstall stops the service and removes it from the manager and the disk.
func (m *Manager) Uninstall(ctx context.Context) (Result, error) {
	r := Result{Kind: m.b.kind(), File: m.b.file()}
	if err := guard(m.b.name()); err != nil {
		return r, err
	}
	if err := m.b.uninstall(ctx, &r); err != nil {
		return r, fmt.Errorf("service: uninstall the %s: %w", m.b.kind(), err)
	}
	return r, nil
}

// Status compares the installed definition with the one this binary would write and asks the
// manager whether the daemon runs. It costs one file read and at most one short command.
func (m *Manager) Status(ctx context.Context) (Status, error) {
	st := Status{State: NotInstalled, Manager: m.b.name(), Kind: m.b.kind(), File: m.b.file()}
	if err := guard(m.b.name()); err != nil {
		return st, err
	}
	have, err := os.ReadFile(m.b.file())
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	} else if err != nil {
		return st, fmt.Errorf("service: read %s: %w", m.b.file(), err)
	}
	want, err := m.b.want()
	if err != nil {
		return st, err
	}
	st.State = Installed
	st.Running, st.Detail, err = m.b.running(ctx)
	if err != nil {
		return st, fmt.Errorf("service: ask %s: %w", m.b.name(), err)
	}
	if st.Running {
		st.State = Running
	}
	if string(have) != string(want) {
		st.State = Stale
		st.Detail = fmt.Sprintf("%s differs from what this pond (%s) would write: run `pond install` to update it", m.b.file(), m.opts.Exe)
	} else if ok, err := m.b.registered(ctx); err != nil {
		return st, fmt.Errorf("service: ask %s: %w", m.b.name(), err)
	} else if !ok {
		st.State = Stale
		st.Detail = fmt.Sprintf("%s exists but %s does not know it: run `pond install`", m.b.file(), m.b.name())
	}
	return st, nil
}

// Start starts the installed service now.
func (m *Manager) Start(ctx context.Context) error { return m.control(ctx, "start", m.b.start) }

// Stop stops the service until the next login or Start.
func (m *Manager) Stop(ctx context.Context) error { return m.control(ctx, "stop", m.b.stop) }

// Restart stops and starts it.
func (m *Manager) Restart(ctx context.Context) error {
	return m.control(ctx, "restart", m.b.restart)
}

// ErrNotInstalled is returned by Start, Stop and Restart when there is no service to control.
var ErrNotInstalled = errors.New("the login service is not installed: run `pond install`")

func (m *Manager) control(ctx context.Context, verb string, f func(context.Context) error) error {
	if err := guard(m.b.name()); err != nil {
		return err
	}
	if _, err := os.Stat(m.b.file()); errors.Is(err, os.ErrNotExist) {
		return ErrNotInstalled
	}
	if err := f(ctx); err != nil {
		return fmt.Errorf("service: %s the %s: %w", verb, m.b.kind(), err)
	}
	return nil
}

// LogsCommand is the command that shows the daemon's log (journalctl for a systemd unit), or
// nil when the log is the file LogFile.
func (m *Manager) LogsCommand(ctx context.Context, lines int, follow bool) ([]string, error) {
	if err := guard(m.b.name()); err != nil {
		return nil, err
	}
	return m.b.logs(ctx, lines, follow)
}

// socketAnswers reports whether something accepts connections on the daemon's API socket: the
// running check where the manager cannot say (a Task Scheduler task's state is reported in the
// system's language; the XDG fallback has no manager).
func socketAnswers(o *Options) bool {
	c, err := net.DialTimeout("unix", filepath.Join(o.Dirs.Runtime.Path, "pond.sock"), 500*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// writeIfChanged writes the definition when it differs from what is on disk; it records the
// write in r, and in a dry run only records it.
func writeIfChanged(r *Result, dry bool, path string, want, have []byte, exists bool, perm os.FileMode) (bool, error) {
	if exists && string(have) == string(want) {
		return false, nil
	}
	r.Changes = append(r.Changes, Change{Action: "write", Path: path})
	if dry {
		return true, nil
	}
	return true, writeFile(path, want, perm)
}

// remove deletes path when it exists, recording it in r.
func remove(r *Result, dry bool, path string) (bool, error) {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	r.Changes = append(r.Changes, Change{Action: "remove", Path: path})
	if dry {
		return true, nil
	}
	return true, os.Remove(path)
}

// outcome names what install did from whether it wrote and whether it started the service.
func outcome(exists, wrote, started bool) string {
	switch {
	case !exists:
		return OutcomeInstalled
	case wrote:
		return OutcomeUpdated
	case started:
		return OutcomeStarted
	}
	return OutcomeUnchanged
}
