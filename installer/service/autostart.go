package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Autostart is a program the desktop session starts at login: an XDG autostart entry on Linux
// and a LaunchAgent on macOS (both through github.com/emersion/go-autostart), a value under
// HKCU\Software\Microsoft\Windows\CurrentVersion\Run on Windows.
type Autostart struct {
	Label       string   // io.pond.tray: the entry's file name and, on macOS, its launchd label
	DisplayName string   // what a session's settings show; the Run value's name on Windows
	Exec        []string // absolute program path, then its arguments
}

// TrayAutostart is the tray's entry: `pond tray`, under a label distinct from the daemon's.
func TrayAutostart(exe string) Autostart {
	return Autostart{Label: TrayLabel, DisplayName: RunValue, Exec: []string{exe, "tray"}}
}

// AutostartStatus says whether an entry is there and whether it is the one this binary would
// write.
type AutostartStatus struct {
	Enabled bool   `json:"enabled"`
	Stale   bool   `json:"stale"`
	Where   string `json:"where"` // the file, or the registry value
}

// Status reads the entry.
func (a Autostart) Status() (AutostartStatus, error) {
	have, ok, err := a.read()
	st := AutostartStatus{Enabled: ok, Where: a.Where()}
	if err != nil || !ok {
		return st, err
	}
	want, err := a.want()
	st.Stale = err == nil && have != want
	return st, err
}

// Enable writes the entry when it is missing or differs. It takes effect at the next login.
func (a Autostart) Enable(dry bool) (Result, error) {
	r := Result{Kind: "login autostart entry", File: a.Where()}
	if err := guard(ManagerAutostart); err != nil {
		return r, err
	}
	want, err := a.want()
	if err != nil {
		return r, err
	}
	have, ok, err := a.read()
	if err != nil {
		return r, err
	}
	if ok && have == want {
		r.Outcome = OutcomeUnchanged
		return r, nil
	}
	r.Changes = append(r.Changes, Change{Action: "write", Path: a.Where()})
	r.Outcome = outcome(ok, true, false)
	if dry {
		return r, nil
	}
	if err := a.write(); err != nil {
		return r, fmt.Errorf("service: write the autostart entry %s: %w", a.Where(), err)
	}
	return r, nil
}

// Disable removes the entry.
func (a Autostart) Disable(dry bool) (Result, error) {
	r := Result{Kind: "login autostart entry", File: a.Where(), Outcome: OutcomeAbsent}
	if err := guard(ManagerAutostart); err != nil {
		return r, err
	}
	if _, ok, err := a.read(); err != nil || !ok {
		return r, err
	}
	r.Changes = append(r.Changes, Change{Action: "remove", Path: a.Where()})
	r.Outcome = OutcomeRemoved
	if dry {
		return r, nil
	}
	if err := a.remove(); err != nil {
		return r, fmt.Errorf("service: remove the autostart entry %s: %w", a.Where(), err)
	}
	return r, nil
}

// autostartDaemon runs the daemon from an XDG autostart entry where there is no systemd user
// manager (kardianos/service then picks System V init, whose scripts need root). The desktop
// session starts it at login; nothing restarts it after a failure.
type autostartDaemon struct{ o *Options }

func (a *autostartDaemon) spec() Spec {
	return Spec{Exe: a.o.Exe, Args: a.o.args("service", "run"), LogFile: LogFile(a.o.Dirs)}
}

func (a *autostartDaemon) entry() Autostart {
	return Autostart{Label: DaemonLabel, DisplayName: "Pond daemon", Exec: append([]string{a.o.Exe}, a.spec().Args...)}
}

func (a *autostartDaemon) name() string { return ManagerAutostart }
func (a *autostartDaemon) kind() string { return "login autostart entry (no service manager)" }
func (a *autostartDaemon) file() string { return a.entry().Where() }

func (a *autostartDaemon) want() ([]byte, error) {
	w, err := a.entry().want()
	return []byte(w), err
}

func (a *autostartDaemon) install(ctx context.Context, r *Result, have []byte, exists bool) error {
	er, err := a.entry().Enable(a.o.DryRun)
	r.Changes = append(r.Changes, er.Changes...)
	if err != nil {
		return err
	}
	wrote := len(er.Changes) > 0
	started := false
	if up, _, _ := a.running(ctx); !up || wrote {
		if up {
			if err := a.stopStep(r); err != nil {
				return err
			}
		}
		r.Changes = append(r.Changes, Change{Action: "run", Command: a.entry().Exec})
		if !a.o.DryRun {
			if err := a.start(ctx); err != nil {
				return err
			}
		}
		started = true
	}
	r.Outcome = outcome(exists, wrote, started)
	r.Notes = append(r.Notes, fmt.Sprintf("no systemd user manager here (kardianos/service found %q), so the daemon "+
		"starts with your desktop session from an autostart entry, and nothing restarts it if it stops: "+
		"`pond service start` starts it again; its log is %s", libPlatform(), LogFile(a.o.Dirs)))
	return nil
}

func (a *autostartDaemon) stopStep(r *Result) error {
	r.Changes = append(r.Changes, Change{Action: "run", Command: []string{"kill", "-TERM", "<pid in " + pidFile(a.o.Dirs.State.Path) + ">"}})
	if a.o.DryRun {
		return nil
	}
	return a.stop(context.Background())
}

func (a *autostartDaemon) uninstall(ctx context.Context, r *Result) error {
	if up, _, _ := a.running(ctx); up {
		if err := a.stopStep(r); err != nil {
			return err
		}
	}
	er, err := a.entry().Disable(a.o.DryRun)
	r.Changes = append(r.Changes, er.Changes...)
	r.Outcome = er.Outcome
	return err
}

func (a *autostartDaemon) running(context.Context) (bool, string, error) {
	return socketAnswers(a.o), "", nil
}

func (a *autostartDaemon) registered(context.Context) (bool, error) { return true, nil }

// start runs `pond service run` in a new session, detached from this terminal.
func (a *autostartDaemon) start(context.Context) error {
	return spawnDetached(a.entry().Exec)
}

// stop signals the process `pond service run` recorded in the state directory.
func (a *autostartDaemon) stop(context.Context) error {
	path := pidFile(a.o.Dirs.State.Path)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return fmt.Errorf("%s does not hold a process id", path)
	}
	if !isPond(pid, a.o.Exe) {
		os.Remove(path) // a stale record of a daemon that is gone
		return nil
	}
	if err := terminate(pid); err != nil {
		return err
	}
	// Return once it is gone, as systemctl stop does: uninstall --purge deletes its folders next.
	for start := time.Now(); isPond(pid, a.o.Exe); time.Sleep(50 * time.Millisecond) {
		if time.Since(start) > stopWait {
			return fmt.Errorf("the daemon (pid %d) did not stop within %s", pid, stopWait)
		}
	}
	return nil
}

// stopWait bounds how long stop waits for the daemon to finish its shutdown.
const stopWait = 30 * time.Second

func (a *autostartDaemon) restart(ctx context.Context) error {
	if err := a.stop(ctx); err != nil {
		return err
	}
	return a.start(ctx)
}

func (a *autostartDaemon) logs(context.Context, int, bool) ([]string, error) { return nil, nil }

// pidFile is where `pond service run` records its process id.
func pidFile(stateDir string) string { return filepath.Join(stateDir, "daemon.pid") }

// isPond reports whether pid is a running pond binary, where /proc can tell: one named like
// exe (the daemon of an older or moved binary counts; a reused pid of another program does
// not, nor does a zombie).
func isPond(pid int, exe string) bool {
	p, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		_, statErr := os.Stat("/proc/self")
		return statErr != nil && processExists(pid) // no /proc: trust a live process
	}
	return filepath.Base(strings.TrimSuffix(p, " (deleted)")) == filepath.Base(exe)
}
