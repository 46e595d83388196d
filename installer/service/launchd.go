package service

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LaunchdPlist is the LaunchAgent that runs spec under label. RunAtLoad starts it at login (the
// default of kardianos/service is false, so its agent waits for a manual start) and KeepAlive
// with SuccessfulExit=false restarts it after a failure but not after a clean stop, like
// systemd's Restart=on-failure. Its output goes to spec.LogFile, which launchd creates.
func LaunchdPlist(label string, s Spec) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by pond install; pond uninstall removes it. Local edits are replaced on the next install. -->
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + xmlText(label) + `</string>
	<key>ProgramArguments</key>
	<array>
`)
	for _, a := range append([]string{s.Exe}, s.Args...) {
		b.WriteString("\t\t<string>" + xmlText(a) + "</string>\n")
	}
	b.WriteString(`	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
`)
	if s.LogFile != "" {
		b.WriteString("\t<key>StandardOutPath</key>\n\t<string>" + xmlText(s.LogFile) + "</string>\n")
		b.WriteString("\t<key>StandardErrorPath</key>\n\t<string>" + xmlText(s.LogFile) + "</string>\n")
	}
	b.WriteString("</dict>\n</plist>\n")
	return b.String()
}

func xmlText(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// launchAgent is a LaunchAgent loaded into the user's gui/<uid> domain. kardianos/service's
// Start and Stop run `launchctl load`/`unload`, which fail on macOS 13 and later ("Load failed:
// 5: Input/output error"), and its Install refuses to replace a file, so Pond writes the plist
// and drives launchctl's bootstrap/bootout itself.
type launchAgent struct{ o *Options }

func (l *launchAgent) name() string { return ManagerLaunchd }
func (l *launchAgent) kind() string { return "LaunchAgent" }
func (l *launchAgent) file() string {
	return filepath.Join(l.o.home, "Library", "LaunchAgents", DaemonLabel+".plist")
}

func (l *launchAgent) spec() Spec {
	return Spec{Exe: l.o.Exe, Args: l.o.args("daemon"), LogFile: LogFile(l.o.Dirs)}
}

func (l *launchAgent) want() ([]byte, error) { return []byte(LaunchdPlist(DaemonLabel, l.spec())), nil }

func (l *launchAgent) domain() string  { return "gui/" + strconv.Itoa(l.o.uid) }
func (l *launchAgent) service() string { return l.domain() + "/" + DaemonLabel }

func (l *launchAgent) install(ctx context.Context, r *Result, have []byte, exists bool) error {
	want, _ := l.want()
	dry := l.o.DryRun
	if !dry {
		// launchd opens the log file itself but not its folder.
		if err := os.MkdirAll(filepath.Dir(LogFile(l.o.Dirs)), 0o700); err != nil {
			return err
		}
	}
	wrote, err := writeIfChanged(r, dry, l.file(), want, have, exists, 0o644)
	if err != nil {
		return err
	}
	loaded, err := l.registered(ctx)
	if err != nil {
		return err
	}
	started := false
	if wrote && loaded {
		// launchd keeps the definition it loaded: unload it so the new file is read.
		if err := runStep(ctx, r, dry, "launchctl", "bootout", l.service()); err != nil {
			return err
		}
		loaded = false
	}
	if !loaded {
		// enable clears a `launchctl disable` left from before, which would make bootstrap fail.
		if err := runStep(ctx, r, dry, "launchctl", "enable", l.service()); err != nil {
			return err
		}
		if err := runStep(ctx, r, dry, "launchctl", "bootstrap", l.domain(), l.file()); err != nil {
			return err
		}
		started = true // RunAtLoad
	}
	r.Outcome = outcome(exists, wrote, started)
	return nil
}

func (l *launchAgent) uninstall(ctx context.Context, r *Result) error {
	if _, err := os.Stat(l.file()); errors.Is(err, os.ErrNotExist) {
		r.Outcome = OutcomeAbsent
		return nil
	}
	if loaded, err := l.registered(ctx); err != nil {
		return err
	} else if loaded {
		if err := runStep(ctx, r, l.o.DryRun, "launchctl", "bootout", l.service()); err != nil {
			return err
		}
	}
	if _, err := remove(r, l.o.DryRun, l.file()); err != nil {
		return err
	}
	r.Outcome = OutcomeRemoved
	return nil
}

// print is `launchctl print gui/<uid>/<label>`: it fails when the agent is not loaded.
func (l *launchAgent) print(ctx context.Context) (string, bool) {
	out, err := run(ctx, "launchctl", "print", l.service())
	return out, err == nil
}

func (l *launchAgent) running(ctx context.Context) (bool, string, error) {
	out, loaded := l.print(ctx)
	if !loaded {
		return false, "not loaded", nil
	}
	return strings.Contains(out, "state = running"), "", nil
}

func (l *launchAgent) registered(ctx context.Context) (bool, error) {
	_, loaded := l.print(ctx)
	return loaded, nil
}

// start loads the agent (RunAtLoad starts it) or, when loaded, kicks it.
func (l *launchAgent) start(ctx context.Context) error {
	if _, loaded := l.print(ctx); !loaded {
		_, err := run(ctx, "launchctl", "bootstrap", l.domain(), l.file())
		return err
	}
	_, err := run(ctx, "launchctl", "kickstart", l.service())
	return err
}

// stop unloads the agent: with KeepAlive a killed daemon would only be restarted. The next
// login (or pond service start) loads it again.
func (l *launchAgent) stop(ctx context.Context) error {
	if _, loaded := l.print(ctx); !loaded {
		return nil
	}
	_, err := run(ctx, "launchctl", "bootout", l.service())
	return err
}

func (l *launchAgent) restart(ctx context.Context) error {
	if _, loaded := l.print(ctx); !loaded {
		return l.start(ctx)
	}
	_, err := run(ctx, "launchctl", "kickstart", "-k", l.service())
	return err
}

func (l *launchAgent) logs(context.Context, int, bool) ([]string, error) { return nil, nil }
