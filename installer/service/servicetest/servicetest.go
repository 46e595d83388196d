// Package servicetest runs installer tests against fake service managers: systemctl,
// loginctl, journalctl, launchctl and schtasks shell scripts, first on PATH, that record their
// argv and keep just enough state (enabled, active, loaded, registered) to answer queries the
// way the real ones do. Main puts the whole test binary in a temporary HOME first.
package servicetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const childEnv = "POND_SERVICETEST_CHILD"

// Marker is service.FakeMarker (this package cannot import service, whose tests use it; a
// test there checks the two agree).
const Marker = ".pond-fake-managers"

// Main runs the tests in a child process whose HOME and XDG_CONFIG_HOME are a fresh temporary
// directory. The child is needed, not just os.Setenv: go-autostart reads both in its init,
// before any test code runs. Call it from TestMain.
func Main(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(m.Run())
	}
	home, err := os.MkdirTemp("", "pond-servicetest-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cmd := exec.Command(os.Args[0], os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), childEnv+"=1", "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"USERPROFILE="+home, "POND_SERVICE_MANAGER=")
	// A go command run by a test keeps the real build and module caches, which live under HOME.
	if cache, err := os.UserCacheDir(); err == nil && os.Getenv("GOCACHE") == "" {
		cmd.Env = append(cmd.Env, "GOCACHE="+filepath.Join(cache, "go-build"))
	}
	if h, err := os.UserHomeDir(); err == nil && os.Getenv("GOPATH") == "" {
		cmd.Env = append(cmd.Env, "GOPATH="+filepath.Join(h, "go"))
	}
	if cfg, err := os.UserConfigDir(); err == nil && os.Getenv("GOENV") == "" {
		cmd.Env = append(cmd.Env, "GOENV="+filepath.Join(cfg, "go", "env"))
	}
	err = cmd.Run()
	os.RemoveAll(home)
	if ee, ok := err.(*exec.ExitError); ok {
		os.Exit(ee.ExitCode())
	} else if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Fakes are the fake managers of one test.
type Fakes struct {
	Dir   string // on PATH, holding the scripts and Marker
	Pond  string // a fake pond binary that records its calls too
	State string // what the fakes remember: enabled, active, loaded, task, linger
	log   string
}

// The fakes record "name arg arg …" per call, quoting arguments that hold spaces, and answer:
// systemctl is-enabled/is-active/list-unit-files from the state files that enable/disable and
// start/stop/restart keep; launchctl print fails until bootstrap (exit 113, like launchctl for
// an unknown service) and bootout fails when nothing is loaded; schtasks /Query fails until
// /Create; loginctl says Linger=no; journalctl prints one line.
const script = `#!/bin/sh
name=$(basename "$0")
{
  printf '%s' "$name"
  for a in "$@"; do
    case "$a" in *" "*) printf " '%s'" "$a" ;; *) printf ' %s' "$a" ;; esac
  done
  echo
} >> "$FAKE_DIR/calls.log"
st="$FAKE_DIR/state"
case "$name" in
systemctl)
  for a in "$@"; do case "$a" in
    enable) touch "$st/enabled" ;;
    disable) rm -f "$st/enabled" ;;
    start|restart) touch "$st/active" ;;
    stop) rm -f "$st/active" ;;
    is-enabled) if [ -e "$st/enabled" ]; then echo enabled; else echo disabled; exit 1; fi ;;
    is-active) if [ -e "$st/active" ]; then echo active; else echo inactive; exit 3; fi ;;
    list-unit-files) if [ -e "$st/enabled" ]; then echo "pond.service enabled"; fi ;;
  esac; done ;;
loginctl) echo "Linger=no" ;;
journalctl) echo "-- journal of pond.service --" ;;
launchctl)
  case "$1" in
    bootstrap) if [ -e "$st/loaded" ]; then echo "Bootstrap failed: 5: Input/output error" >&2; exit 5; fi; touch "$st/loaded" ;;
    bootout) if [ ! -e "$st/loaded" ]; then echo "Boot-out failed: 3: No such process" >&2; exit 3; fi; rm -f "$st/loaded" ;;
    print) if [ ! -e "$st/loaded" ]; then echo "Could not find service" >&2; exit 113; fi; echo "state = running" ;;
  esac ;;
schtasks)
  case "$1" in
    /Create) touch "$st/task" ;;
    /Delete) rm -f "$st/task" ;;
    /Query) if [ ! -e "$st/task" ]; then echo "ERROR: The system cannot find the file specified." >&2; exit 1; fi ;;
  esac ;;
esac
exit 0
`

// New writes the fakes into a temporary directory and puts it first on PATH for this test.
func New(t *testing.T) *Fakes {
	t.Helper()
	dir := t.TempDir()
	f := &Fakes{Dir: dir, Pond: filepath.Join(dir, "pond"), State: filepath.Join(dir, "state"), log: filepath.Join(dir, "calls.log")}
	if err := os.Mkdir(f.State, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"systemctl", "loginctl", "journalctl", "launchctl", "schtasks", "pond"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, Marker), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_DIR", dir)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return f
}

// Calls returns the recorded calls since the last Calls, with the test's HOME written $HOME.
func (f *Fakes) Calls(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(f.log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	os.Remove(f.log)
	text := strings.TrimSpace(string(b))
	if text == "" {
		return nil
	}
	if h, err := os.UserHomeDir(); err == nil {
		text = strings.ReplaceAll(text, h, "$HOME")
	}
	return strings.Split(text, "\n")
}

// Set creates or removes a state file (enabled, active, loaded, task).
func (f *Fakes) Set(t *testing.T, name string, on bool) {
	t.Helper()
	p := filepath.Join(f.State, name)
	if !on {
		os.Remove(p)
		return
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
