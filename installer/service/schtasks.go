package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"
)

// TaskXML is the Task Scheduler definition that runs spec when the user with this SID logs on:
// with the user's interactive token and least privilege (no administrator, no stored
// password), no second instance, no time limit, not stopped on battery, and restarted every
// minute after a failure. It is the text; TaskFile encodes it as schtasks reads it.
func TaskXML(sid string, s Spec) string {
	return `<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Author>Pond</Author>
    <Description>Pond: archive and recall for AI coding agents (pond daemon)</Description>
  </RegistrationInfo>
  <Triggers>
    <LogonTrigger>
      <Enabled>true</Enabled>
      <UserId>` + xmlText(sid) + `</UserId>
    </LogonTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">
      <UserId>` + xmlText(sid) + `</UserId>
      <LogonType>InteractiveToken</LogonType>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <AllowHardTerminate>true</AllowHardTerminate>
    <StartWhenAvailable>false</StartWhenAvailable>
    <RunOnlyIfNetworkAvailable>false</RunOnlyIfNetworkAvailable>
    <IdleSettings>
      <StopOnIdleEnd>false</StopOnIdleEnd>
      <RestartOnIdle>false</RestartOnIdle>
    </IdleSettings>
    <AllowStartOnDemand>true</AllowStartOnDemand>
    <Enabled>true</Enabled>
    <Hidden>false</Hidden>
    <RunOnlyIfIdle>false</RunOnlyIfIdle>
    <WakeToRun>false</WakeToRun>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <Priority>7</Priority>
    <RestartOnFailure>
      <Interval>PT1M</Interval>
      <Count>255</Count>
    </RestartOnFailure>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>` + xmlText(s.Exe) + `</Command>
      <Arguments>` + xmlText(windowsArgs(s.Args)) + `</Arguments>
    </Exec>
  </Actions>
</Task>
`
}

// TaskFile encodes a task definition as schtasks /XML reads it: UTF-16 little-endian with a
// byte-order mark and CRLF line ends.
func TaskFile(xmlText string) []byte {
	xmlText = strings.ReplaceAll(xmlText, "\n", "\r\n")
	units := utf16.Encode([]rune(xmlText))
	out := make([]byte, 2, 2+2*len(units))
	out[0], out[1] = 0xFF, 0xFE
	for _, u := range units {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

// windowsArgs joins arguments the way CommandLineToArgvW splits them again.
func windowsArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\"") {
			out[i] = a
			continue
		}
		var b strings.Builder
		b.WriteByte('"')
		slashes := 0
		for _, c := range a {
			switch c {
			case '\\':
				slashes++
				continue
			case '"':
				b.WriteString(strings.Repeat(`\`, 2*slashes+1))
			default:
				b.WriteString(strings.Repeat(`\`, slashes))
			}
			slashes = 0
			b.WriteRune(c)
		}
		b.WriteString(strings.Repeat(`\`, 2*slashes))
		b.WriteByte('"')
		out[i] = b.String()
	}
	return strings.Join(out, " ")
}

// logonTask is a Task Scheduler task registered with schtasks. Task Scheduler rewrites the
// XML it is given, so the definition Pond compares is its own copy in the state directory,
// the file it registered.
type logonTask struct{ o *Options }

func (t *logonTask) name() string { return ManagerSchtasks }
func (t *logonTask) kind() string { return "Task Scheduler logon task" }
func (t *logonTask) file() string { return filepath.Join(t.o.Dirs.State.Path, "pond-daemon-task.xml") }

func (t *logonTask) spec() Spec {
	return Spec{Exe: t.o.Exe, Args: t.o.args("service", "run"), LogFile: LogFile(t.o.Dirs)}
}

func (t *logonTask) want() ([]byte, error) { return TaskFile(TaskXML(t.o.sid, t.spec())), nil }

func (t *logonTask) install(ctx context.Context, r *Result, have []byte, exists bool) error {
	want, _ := t.want()
	dry := t.o.DryRun
	registered, err := t.registered(ctx)
	if err != nil {
		return err
	}
	wrote, err := writeIfChanged(r, dry, t.file(), want, have, exists, 0o600)
	if err != nil {
		return err
	}
	started := false
	if wrote || !registered {
		if registered {
			// A changed task replaces the running one: end it first (IgnoreNew would keep the old).
			_ = runStep(ctx, r, dry, "schtasks", "/End", "/TN", TaskName)
		}
		if err := runStep(ctx, r, dry, "schtasks", "/Create", "/TN", TaskName, "/XML", t.file(), "/F"); err != nil {
			return err
		}
	}
	if up, _, _ := t.running(ctx); wrote || !up {
		if err := runStep(ctx, r, dry, "schtasks", "/Run", "/TN", TaskName); err != nil {
			return err
		}
		started = true
	}
	r.Outcome = outcome(exists && registered, wrote, started)
	return nil
}

func (t *logonTask) uninstall(ctx context.Context, r *Result) error {
	registered, err := t.registered(ctx)
	if err != nil {
		return err
	}
	_, statErr := os.Stat(t.file())
	if !registered && errors.Is(statErr, os.ErrNotExist) {
		r.Outcome = OutcomeAbsent
		return nil
	}
	if registered {
		_ = runStep(ctx, r, t.o.DryRun, "schtasks", "/End", "/TN", TaskName) // not running is fine
		if err := runStep(ctx, r, t.o.DryRun, "schtasks", "/Delete", "/TN", TaskName, "/F"); err != nil {
			return err
		}
	}
	if _, err := remove(r, t.o.DryRun, t.file()); err != nil {
		return err
	}
	r.Outcome = OutcomeRemoved
	return nil
}

// running asks the daemon's socket: schtasks reports a task's state in the system's language.
func (t *logonTask) running(context.Context) (bool, string, error) {
	return socketAnswers(t.o), "", nil
}

func (t *logonTask) registered(ctx context.Context) (bool, error) {
	_, err := run(ctx, "schtasks", "/Query", "/TN", TaskName)
	return err == nil, nil
}

func (t *logonTask) start(ctx context.Context) error {
	_, err := run(ctx, "schtasks", "/Run", "/TN", TaskName)
	return err
}

func (t *logonTask) stop(ctx context.Context) error {
	_, err := run(ctx, "schtasks", "/End", "/TN", TaskName)
	return err
}

func (t *logonTask) restart(ctx context.Context) error {
	_ = t.stop(ctx)
	return t.start(ctx)
}

func (t *logonTask) logs(context.Context, int, bool) ([]string, error) { return nil, nil }
