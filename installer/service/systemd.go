package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	kservice "github.com/kardianos/service"
)

// SystemdUnit is the systemd user unit that runs spec. Three things differ from the unit
// kardianos/service writes by itself: WantedBy=default.target (multi-user.target does not
// exist in a user manager, so that unit never starts at login; the library's fix, PR #415, is
// unmerged), Restart=on-failure with a short delay (the daemon exits 75 past its memory
// ceiling to be restarted; a clean stop stays stopped), and no EnvironmentFile in /etc or log
// files in /var/log, which a user cannot write: the journal keeps the log.
func SystemdUnit(s Spec) string {
	var b strings.Builder
	b.WriteString("# Written by `pond install`; `pond uninstall` removes it. Local edits are replaced on the next\n")
	b.WriteString("# install: put overrides in a drop-in (systemctl --user edit pond.service).\n")
	b.WriteString("[Unit]\n")
	b.WriteString("Description=Pond: archive and recall for AI coding agents\n")
	// A moved or deleted binary makes the unit skip quietly instead of failing in a loop.
	b.WriteString("ConditionFileIsExecutable=" + specifierEscape(s.Exe) + "\n")
	b.WriteString("\n[Service]\n")
	b.WriteString("Type=simple\n")
	b.WriteString("ExecStart=" + systemdExec(append([]string{s.Exe}, s.Args...)) + "\n")
	b.WriteString("Restart=on-failure\n")
	b.WriteString("RestartSec=5\n")
	b.WriteString("\n[Install]\n")
	b.WriteString("WantedBy=default.target\n")
	return b.String()
}

// specifierEscape escapes the % specifiers systemd expands in every value.
func specifierEscape(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// systemdEscape escapes what systemd expands in a command line: % specifiers and $ variables.
func systemdEscape(s string) string {
	return strings.NewReplacer("%", "%%", "$", "$$").Replace(s)
}

// systemdExec quotes a command line for ExecStart (systemd.service(5), "Command lines"). The
// executable is not variable-expanded, so only its % is escaped; each argument with spaces,
// quotes, backslashes or nothing in it is double-quoted with C-style escapes.
func systemdExec(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		if i == 0 {
			a = specifierEscape(a)
		} else {
			a = systemdEscape(a)
		}
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\;") {
			a = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(a) + `"`
		}
		words[i] = a
	}
	return strings.Join(words, " ")
}

// checkSystemdExe refuses a binary systemd will not run: it rejects an executable path with
// quotes, backslashes or control characters ("Executable name contains special characters").
func checkSystemdExe(exe string) error {
	for _, c := range exe {
		if c < ' ' || c == 0x7f || strings.ContainsRune(`"'\`, c) {
			return fmt.Errorf("systemd cannot run a binary whose path holds quotes, backslashes or control characters (%q): move pond elsewhere and run pond install again", exe)
		}
	}
	return nil
}

// systemdUser is a systemd user unit, installed through kardianos/service where its behaviour
// fits (first install, start, stop, restart, is-active, uninstall) and by hand where it does
// not: it refuses to install over an existing file, so an update writes the unit and reloads.
type systemdUser struct{ o *Options }

func (s *systemdUser) name() string { return ManagerSystemd }
func (s *systemdUser) kind() string { return "systemd user unit" }

// file is where kardianos/service writes a user unit: $HOME/.config/systemd/user.
func (s *systemdUser) file() string {
	return filepath.Join(s.o.home, ".config", "systemd", "user", UnitName)
}

func (s *systemdUser) want() ([]byte, error) {
	if err := checkSystemdExe(s.o.Exe); err != nil {
		return nil, err
	}
	unit := SystemdUnit(s.spec())
	if strings.Contains(unit, "{{") {
		// kardianos/service renders SystemdScript with its template engine.
		return nil, fmt.Errorf("the pond binary's path %q contains {{, which the unit template cannot hold", s.o.Exe)
	}
	return []byte(unit), nil
}

func (s *systemdUser) spec() Spec { return Spec{Exe: s.o.Exe, Args: s.o.args("daemon")} }

// lib is the library's service for this unit. Its own detection needs /run/systemd/system
// (or systemd as PID 1), so when Pond chose systemd itself it forces the library's choice.
func (s *systemdUser) lib() (kservice.Service, error) {
	unit, err := s.want()
	if err != nil {
		return nil, err
	}
	if kservice.Platform() != "linux-systemd" {
		for _, sys := range kservice.AvailableSystems() {
			if sys.String() == "linux-systemd" {
				kservice.ChooseSystem(forcedSystem{sys})
				break
			}
		}
	}
	if kservice.Platform() != "linux-systemd" {
		return nil, errors.New("systemd is not available on this system")
	}
	return kservice.New(noProgram{}, &kservice.Config{
		Name:        strings.TrimSuffix(UnitName, ".service"),
		Description: "Pond: archive and recall for AI coding agents",
		Executable:  s.o.Exe,
		Arguments:   s.spec().Args,
		Option:      kservice.KeyValue{"UserService": true, "SystemdScript": string(unit)},
	})
}

// forcedSystem keeps the library on systemd: ChooseSystem re-runs Detect.
type forcedSystem struct{ kservice.System }

func (forcedSystem) Detect() bool { return true }

// noProgram satisfies kservice.Interface: Pond never uses the library's run harness, the daemon
// is an ordinary foreground process under every manager.
type noProgram struct{}

func (noProgram) Start(kservice.Service) error { return nil }
func (noProgram) Stop(kservice.Service) error  { return nil }

// systemctl is a systemctl command line in the order kardianos/service writes it (action,
// --user, unit), so the report names exactly what ran, whoever ran it.
func (s *systemdUser) systemctl(action string, args ...string) []string {
	return append([]string{"systemctl", action, "--user"}, args...)
}

func (s *systemdUser) install(ctx context.Context, r *Result, have []byte, exists bool) error {
	want, err := s.want()
	if err != nil {
		return err
	}
	lib, err := s.lib()
	if err != nil {
		return err
	}
	dry := s.o.DryRun
	var wrote, started bool
	switch {
	case !exists:
		// The library writes the unit, enables it and reloads the manager.
		r.Changes = append(r.Changes, Change{Action: "write", Path: s.file()},
			Change{Action: "run", Command: s.systemctl("enable", UnitName)},
			Change{Action: "run", Command: s.systemctl("daemon-reload")},
			Change{Action: "run", Command: s.systemctl("start", UnitName)})
		if !dry {
			if err := lib.Install(); err != nil {
				return err
			}
			if err := lib.Start(); err != nil {
				return err
			}
		}
		wrote, started = true, true
	case string(have) != string(want):
		if wrote, err = writeIfChanged(r, dry, s.file(), want, have, exists, 0o644); err != nil {
			return err
		}
		for _, args := range [][]string{{"daemon-reload"}, {"enable", UnitName}} {
			if err := runStep(ctx, r, dry, s.systemctl(args[0], args[1:]...)...); err != nil {
				return err
			}
		}
		r.Changes = append(r.Changes, Change{Action: "run", Command: s.systemctl("restart", UnitName)})
		if !dry {
			if err := lib.Restart(); err != nil {
				return err
			}
		}
		started = true
	default:
		// Unchanged: make sure it is enabled and running, changing nothing that already is.
		if out, _ := run(ctx, s.systemctl("is-enabled", UnitName)...); out != "enabled" {
			if err := runStep(ctx, r, dry, s.systemctl("enable", UnitName)...); err != nil {
				return err
			}
		}
		if up, _, _ := s.running(ctx); !up {
			r.Changes = append(r.Changes, Change{Action: "run", Command: s.systemctl("start", UnitName)})
			if !dry {
				if err := lib.Start(); err != nil {
					return err
				}
			}
			started = true
		}
	}
	r.Outcome = outcome(exists, wrote, started)
	if note := s.lingerAdvice(ctx); note != "" {
		r.Notes = append(r.Notes, note)
	}
	return nil
}

// lingerAdvice says, when it matters, that the user manager (and so the daemon) stops at
// logout: linger is off and this login is not a desktop session, e.g. a server reached over
// SSH. Pond leaves linger off; turning it on is the user's decision.
func (s *systemdUser) lingerAdvice(ctx context.Context) string {
	out, err := run(ctx, "loginctl", "show-user", strconv.Itoa(s.o.uid), "--property=Linger")
	if err != nil || strings.TrimSpace(out) != "Linger=no" {
		return ""
	}
	if os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "" {
		return ""
	}
	return "linger is off: the daemon runs while you are logged in and stops when your last session ends; " +
		"to keep it running after you log out (a server reached over SSH), run `loginctl enable-linger`"
}

func (s *systemdUser) uninstall(ctx context.Context, r *Result) error {
	if _, err := os.Stat(s.file()); errors.Is(err, os.ErrNotExist) {
		r.Outcome = OutcomeAbsent
		return nil
	}
	lib, err := s.lib()
	if err != nil {
		return err
	}
	r.Changes = append(r.Changes,
		Change{Action: "run", Command: s.systemctl("stop", UnitName)},
		Change{Action: "run", Command: s.systemctl("disable", UnitName)},
		Change{Action: "remove", Path: s.file()},
		Change{Action: "run", Command: s.systemctl("daemon-reload")})
	r.Outcome = OutcomeRemoved
	if s.o.DryRun {
		return nil
	}
	_ = lib.Stop() // a unit that is not running has nothing to stop
	return lib.Uninstall()
}

// running asks the manager through the library (systemctl --user is-active).
func (s *systemdUser) running(ctx context.Context) (bool, string, error) {
	lib, err := s.lib()
	if err != nil {
		return false, "", err
	}
	st, err := lib.Status()
	switch {
	case err != nil && errors.Is(err, kservice.ErrNotInstalled):
		return false, "", nil
	case err != nil:
		return false, err.Error(), nil // "service in failed state": installed, not running
	}
	return st == kservice.StatusRunning, "", nil
}

func (s *systemdUser) registered(ctx context.Context) (bool, error) {
	out, _ := run(ctx, s.systemctl("is-enabled", UnitName)...)
	return out == "enabled", nil
}

func (s *systemdUser) start(ctx context.Context) error {
	lib, err := s.lib()
	if err != nil {
		return err
	}
	return lib.Start()
}

func (s *systemdUser) stop(ctx context.Context) error {
	lib, err := s.lib()
	if err != nil {
		return err
	}
	return lib.Stop()
}

func (s *systemdUser) restart(ctx context.Context) error {
	lib, err := s.lib()
	if err != nil {
		return err
	}
	return lib.Restart()
}

func (s *systemdUser) logs(ctx context.Context, lines int, follow bool) ([]string, error) {
	argv := []string{"journalctl", "--user", "--unit", UnitName, "--lines", strconv.Itoa(lines), "--no-pager"}
	if follow {
		argv = append(argv, "--follow")
	}
	return argv, nil
}

// libPlatform is the service system kardianos/service detected, e.g. linux-systemd or
// unix-systemv.
func libPlatform() string { return kservice.Platform() }
