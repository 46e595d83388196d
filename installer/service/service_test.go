package service

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/installer/service/servicetest"
	"github.com/pondhq/pond/paths"
)

func TestMain(m *testing.M) { servicetest.Main(m) }

func TestFakeMarker(t *testing.T) {
	if servicetest.Marker != FakeMarker {
		t.Errorf("servicetest.Marker %q, want FakeMarker %q", servicetest.Marker, FakeMarker)
	}
}

// newTest gives a test fake managers, its own HOME and a Manager for manager.
func newTest(t *testing.T, manager, exe string) (*Manager, *servicetest.Fakes) {
	t.Helper()
	f := servicetest.New(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	state := filepath.Join(home, ".local", "state", "pond")
	m, err := New(Options{Exe: exe, Manager: manager, uid: 501, sid: goldenSID,
		Dirs: paths.Dirs{State: paths.Path{Path: state}, Runtime: paths.Path{Path: filepath.Join(home, "run")}}})
	if err != nil {
		t.Fatal(err)
	}
	return m, f
}

func withExe(t *testing.T, m *Manager, exe string) *Manager {
	t.Helper()
	o := m.opts
	o.Exe = exe
	m2, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return m2
}

func dryRun(t *testing.T, m *Manager) *Manager {
	t.Helper()
	o := m.opts
	o.DryRun = true
	m2, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return m2
}

func checkCalls(t *testing.T, f *servicetest.Fakes, what string, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, f.Calls(t)); diff != "" {
		t.Errorf("%s: manager calls (-want +got):\n%s", what, diff)
	}
}

func checkStatus(t *testing.T, m *Manager, want State) Status {
	t.Helper()
	st, err := m.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.State != want {
		t.Errorf("status: got %q (%s), want %q", st.State, st.Detail, want)
	}
	return st
}

func install(t *testing.T, m *Manager, outcome string) Result {
	t.Helper()
	r, err := m.Install(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != outcome {
		t.Errorf("install: got outcome %q, want %q (%v)", r.Outcome, outcome, r.Changes)
	}
	return r
}

func uninstall(t *testing.T, m *Manager, outcome string) {
	t.Helper()
	r, err := m.Uninstall(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != outcome {
		t.Errorf("uninstall: got outcome %q, want %q", r.Outcome, outcome)
	}
}

func TestSystemdUserUnit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("kardianos/service has systemd on Linux only")
	}
	ctx := context.Background()
	m, f := newTest(t, ManagerSystemd, "/opt/pond/bin/pond")
	unit := "$HOME/.config/systemd/user/pond.service"
	checkStatus(t, m, NotInstalled)
	checkCalls(t, f, "status of nothing")

	if r := install(t, dryRun(t, m), OutcomeInstalled); len(r.Changes) != 4 {
		t.Errorf("dry run: want 4 changes, got %v", r.Changes)
	}
	if _, err := os.Stat(m.File()); !os.IsNotExist(err) {
		t.Fatalf("dry run wrote %s", m.File())
	}
	checkCalls(t, f, "dry run", "loginctl show-user 501 --property=Linger")

	r := install(t, m, OutcomeInstalled)
	checkCalls(t, f, "first install",
		"systemctl enable --user pond.service", "systemctl daemon-reload --user", "systemctl start --user pond.service",
		"loginctl show-user 501 --property=Linger")
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "loginctl enable-linger") {
		t.Errorf("no linger advice without a desktop session: %q", r.Notes)
	}
	got, _ := os.ReadFile(m.File())
	if want := SystemdUnit(Spec{Exe: "/opt/pond/bin/pond", Args: []string{"daemon"}}); string(got) != want {
		t.Errorf("installed unit:\n%s\nwant:\n%s", got, want)
	}
	st := checkStatus(t, m, Running)
	if st.File != filepath.Join(os.Getenv("HOME"), ".config/systemd/user/pond.service") {
		t.Errorf("status file %s", st.File)
	}
	checkCalls(t, f, "status", "systemctl is-active pond.service --user", "systemctl is-enabled --user pond.service")

	info, _ := os.Stat(m.File())
	install(t, m, OutcomeUnchanged)
	checkCalls(t, f, "second install", "systemctl is-enabled --user pond.service", "systemctl is-active pond.service --user",
		"loginctl show-user 501 --property=Linger")
	if info2, _ := os.Stat(m.File()); !info2.ModTime().Equal(info.ModTime()) {
		t.Error("second install rewrote the unit")
	}

	f.Set(t, "active", false)
	checkStatus(t, m, Installed)
	f.Calls(t)
	install(t, m, OutcomeStarted)
	checkCalls(t, f, "install of a stopped unit", "systemctl is-enabled --user pond.service", "systemctl is-active pond.service --user",
		"systemctl list-unit-files -t service pond.service --user", "systemctl start --user pond.service",
		"loginctl show-user 501 --property=Linger")

	moved := withExe(t, m, "/usr/local/bin/pond")
	if st := checkStatus(t, moved, Stale); !strings.Contains(st.Detail, "pond install") {
		t.Errorf("stale detail %q", st.Detail)
	}
	f.Calls(t)
	install(t, moved, OutcomeUpdated)
	checkCalls(t, f, "install after a move", "systemctl daemon-reload --user", "systemctl enable --user pond.service",
		"systemctl restart --user pond.service", "loginctl show-user 501 --property=Linger")
	checkStatus(t, moved, Running)
	f.Calls(t)

	for _, c := range []struct {
		do   func(context.Context) error
		want string
	}{{moved.Stop, "systemctl stop --user pond.service"}, {moved.Start, "systemctl start --user pond.service"},
		{moved.Restart, "systemctl restart --user pond.service"}} {
		if err := c.do(ctx); err != nil {
			t.Fatal(err)
		}
		checkCalls(t, f, c.want, c.want)
	}
	argv, _ := moved.LogsCommand(ctx, 50, true)
	if diff := cmp.Diff([]string{"journalctl", "--user", "--unit", "pond.service", "--lines", "50", "--no-pager", "--follow"}, argv); diff != "" {
		t.Errorf("logs command: %s", diff)
	}

	uninstall(t, moved, OutcomeRemoved)
	checkCalls(t, f, "uninstall", "systemctl stop --user pond.service", "systemctl disable --user pond.service", "systemctl daemon-reload --user")
	if _, err := os.Stat(m.File()); !os.IsNotExist(err) {
		t.Errorf("uninstall left %s", unit)
	}
	uninstall(t, moved, OutcomeAbsent)
	checkCalls(t, f, "second uninstall")
	checkStatus(t, moved, NotInstalled)
	if err := moved.Start(ctx); err != ErrNotInstalled {
		t.Errorf("start without a service: got %v, want ErrNotInstalled", err)
	}
}

func TestLaunchAgent(t *testing.T) {
	m, f := newTest(t, ManagerLaunchd, "/Applications/Pond.app/Contents/MacOS/pond")
	plist := "$HOME/Library/LaunchAgents/io.pond.daemon.plist"
	checkStatus(t, m, NotInstalled)

	install(t, dryRun(t, m), OutcomeInstalled)
	checkCalls(t, f, "dry run", "launchctl print gui/501/io.pond.daemon")
	if _, err := os.Stat(m.File()); !os.IsNotExist(err) {
		t.Fatal("dry run wrote the plist")
	}

	install(t, m, OutcomeInstalled)
	checkCalls(t, f, "first install", "launchctl print gui/501/io.pond.daemon", "launchctl enable gui/501/io.pond.daemon",
		"launchctl bootstrap gui/501 "+plist)
	if _, err := os.Stat(filepath.Dir(LogFile(m.opts.Dirs))); err != nil {
		t.Errorf("the log folder launchd writes into: %v", err)
	}
	checkStatus(t, m, Running)
	f.Calls(t)
	install(t, m, OutcomeUnchanged)
	checkCalls(t, f, "second install", "launchctl print gui/501/io.pond.daemon")

	moved := withExe(t, m, "/usr/local/bin/pond")
	checkStatus(t, moved, Stale)
	f.Calls(t)
	install(t, moved, OutcomeUpdated)
	checkCalls(t, f, "install after a move", "launchctl print gui/501/io.pond.daemon", "launchctl bootout gui/501/io.pond.daemon",
		"launchctl enable gui/501/io.pond.daemon", "launchctl bootstrap gui/501 "+plist)

	if err := moved.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkCalls(t, f, "restart", "launchctl print gui/501/io.pond.daemon", "launchctl kickstart -k gui/501/io.pond.daemon")
	if err := moved.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkCalls(t, f, "stop", "launchctl print gui/501/io.pond.daemon", "launchctl bootout gui/501/io.pond.daemon")
	checkStatus(t, moved, Stale) // the file is there, launchd does not know it
	if err := moved.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.Calls(t)

	uninstall(t, moved, OutcomeRemoved)
	checkCalls(t, f, "uninstall", "launchctl print gui/501/io.pond.daemon", "launchctl bootout gui/501/io.pond.daemon")
	checkStatus(t, moved, NotInstalled)
}

func TestLogonTask(t *testing.T) {
	m, f := newTest(t, ManagerSchtasks, "/c/Users/u/pond/pond.exe") // New wants this system's absolute path
	install(t, m, OutcomeInstalled)
	xml := filepath.Join(m.opts.Dirs.State.Path, "pond-daemon-task.xml")
	checkCalls(t, f, "first install", "schtasks /Query /TN 'Pond Daemon'",
		"schtasks /Create /TN 'Pond Daemon' /XML "+strings.ReplaceAll(xml, os.Getenv("HOME"), "$HOME")+" /F",
		"schtasks /Run /TN 'Pond Daemon'")
	b, _ := os.ReadFile(xml)
	if want := TaskFile(TaskXML(goldenSID, m.DaemonSpec())); string(b) != string(want) {
		t.Error("the registered task file is not TaskXML's")
	}
	if got := m.DaemonSpec().Args; strings.Join(got, " ") != "service run" {
		t.Errorf("task runs %q, want service run (no console, a log file)", got)
	}
	checkStatus(t, m, Installed) // no daemon answers on the socket in this test
	f.Calls(t)
	install(t, m, OutcomeStarted)
	checkCalls(t, f, "second install", "schtasks /Query /TN 'Pond Daemon'", "schtasks /Run /TN 'Pond Daemon'")

	moved := withExe(t, m, "/d/pond.exe")
	checkStatus(t, moved, Stale)
	uninstall(t, moved, OutcomeRemoved)
	checkCalls(t, f, "uninstall", "schtasks /Query /TN 'Pond Daemon'", "schtasks /End /TN 'Pond Daemon'",
		"schtasks /Delete /TN 'Pond Daemon' /F")
	if _, err := os.Stat(xml); !os.IsNotExist(err) {
		t.Error("uninstall left the task file")
	}
}

// TestAutostartFallback is Linux without systemd: the daemon from an XDG autostart entry,
// started at once in its own session.
func TestAutostartFallback(t *testing.T) {
	f := servicetest.New(t)
	state := t.TempDir()
	m, err := New(Options{Exe: f.Pond, Manager: ManagerAutostart,
		Dirs: paths.Dirs{State: paths.Path{Path: state}, Runtime: paths.Path{Path: t.TempDir()}}})
	if err != nil {
		t.Fatal(err)
	}
	r := install(t, m, OutcomeInstalled)
	if len(r.Notes) == 0 || !strings.Contains(r.Notes[0], "nothing restarts it") {
		t.Errorf("the fallback must say what it cannot do: %q", r.Notes)
	}
	want := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "autostart", "io.pond.daemon.desktop")
	if m.File() != want {
		t.Errorf("entry at %s, want %s", m.File(), want)
	}
	b, _ := os.ReadFile(want)
	if !strings.Contains(string(b), `Exec="`+f.Pond+`" "service" "run"`) {
		t.Errorf("entry:\n%s", b)
	}
	waitForCall(t, f, "pond service run")
	checkStatus(t, m, Installed) // the fake pond serves no socket
	uninstall(t, m, OutcomeRemoved)
	if _, err := os.Stat(want); !os.IsNotExist(err) {
		t.Error("uninstall left the entry")
	}
}

func waitForCall(t *testing.T, f *servicetest.Fakes, call string) {
	t.Helper()
	// The detached process is not ours to wait for: poll its record, with a bound far above
	// a shell script's start on a loaded machine.
	for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(filepath.Join(f.Dir, "calls.log")); strings.Contains(string(b), call) {
			return
		}
	}
	t.Fatalf("no call %q recorded", call)
}

func TestTrayAutostart(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the Run value is in the real registry")
	}
	servicetest.New(t)
	a := TrayAutostart("/opt/pond/bin/pond")
	if st, _ := a.Status(); st.Enabled {
		t.Fatal("enabled before Enable")
	}
	if r, err := a.Enable(true); err != nil || r.Outcome != OutcomeInstalled {
		t.Fatalf("dry run: %v %v", r, err)
	}
	if _, err := os.Stat(a.Where()); !os.IsNotExist(err) {
		t.Fatal("dry run wrote the entry")
	}
	if r, err := a.Enable(false); err != nil || r.Outcome != OutcomeInstalled {
		t.Fatalf("enable: %v %v", r, err)
	}
	// What go-autostart wrote is what want renders, so a second Enable changes nothing.
	have, _ := os.ReadFile(a.Where())
	if want, _ := a.want(); string(have) != want {
		t.Errorf("go-autostart wrote:\n%s\nwant renders:\n%s", have, want)
	}
	if r, _ := a.Enable(false); r.Outcome != OutcomeUnchanged {
		t.Errorf("second enable: %s", r.Outcome)
	}
	if st, _ := TrayAutostart("/elsewhere/pond").Status(); !st.Enabled || !st.Stale {
		t.Errorf("status for a moved binary: %+v, want enabled and stale", st)
	}
	if r, _ := a.Disable(false); r.Outcome != OutcomeRemoved {
		t.Errorf("disable: %s", r.Outcome)
	}
	if st, _ := a.Status(); st.Enabled {
		t.Error("enabled after Disable")
	}
}

// TestGuard: without fakes first on PATH a test is refused the real manager.
func TestGuard(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	m, err := New(Options{Exe: "/opt/pond", Manager: ManagerLaunchd})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Install(context.Background()); err == nil || !strings.Contains(err.Error(), "test guard") {
		t.Errorf("install without fakes: got %v, want the test guard's refusal", err)
	}
	fake := servicetest.New(t)
	os.Remove(filepath.Join(fake.Dir, FakeMarker))
	if _, err := m.Status(context.Background()); err == nil || !strings.Contains(err.Error(), "refusing to run the real") {
		t.Errorf("status with an unmarked launchctl: got %v", err)
	}
}

// TestLocationsCarryOver: locations chosen by flag or environment go into the service's command
// line; the defaults stay out, so a plain install writes a plain unit.
func TestLocationsCarryOver(t *testing.T) {
	o := &Options{Exe: "/opt/pond", Dirs: paths.Dirs{
		Data:    paths.Path{Path: "/archive", Source: paths.FromEnv},
		State:   paths.Path{Path: "/state", Source: paths.FromFlag},
		Cache:   paths.Path{Path: "/home/u/.cache/pond", Source: paths.FromDefault},
		Runtime: paths.Path{Path: "/run/user/1/pond", Source: paths.FromDefault},
	}}
	want := []string{"daemon", "--data-dir", "/archive", "--state-dir", "/state"}
	if diff := cmp.Diff(want, o.args("daemon")); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	unit, _ := (&systemdUser{o: o}).want()
	if !strings.Contains(string(unit), "ExecStart=/opt/pond daemon --data-dir /archive --state-dir /state\n") {
		t.Errorf("unit:\n%s", unit)
	}
}

// TestAutostartStop: stop signals the recorded daemon and returns once it is gone.
func TestAutostartStop(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	sleep, err := os.ReadFile("/bin/sleep")
	if err != nil {
		t.Skip("no /bin/sleep")
	}
	exe := filepath.Join(t.TempDir(), "pond")
	if err := os.WriteFile(exe, sleep, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	state := t.TempDir()
	os.WriteFile(pidFile(state), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o600)
	a := &autostartDaemon{o: &Options{Exe: exe, Dirs: paths.Dirs{State: paths.Path{Path: state}}}}
	if err := a.stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-exited // stop returned once the process was gone; Wait has reaped it or is about to
	if err := a.stop(context.Background()); err != nil {
		t.Errorf("second stop: %v", err)
	}
	if _, err := os.Stat(pidFile(state)); !os.IsNotExist(err) {
		t.Error("the stale pid record was kept")
	}
}
