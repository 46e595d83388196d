package installer

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/installer/service"
	"github.com/pondhq/pond/installer/service/servicetest"
	"github.com/pondhq/pond/paths"
)

func TestMain(m *testing.M) { servicetest.Main(m) }

func testOptions(t *testing.T) Options {
	t.Helper()
	root := t.TempDir()
	p := func(s string) paths.Path { return paths.Path{Path: filepath.Join(root, s)} }
	return Options{Exe: "/opt/pond/bin/pond", Manager: service.ManagerLaunchd, Tray: true, MCP: true,
		Dirs: paths.Dirs{ConfigFile: p("config/pond/config.toml"), Data: p("data"), State: p("state"), Cache: p("cache"), Runtime: p("run")}}
}

func outcomes(r Report) map[string]string {
	out := map[string]string{}
	for _, s := range r.Steps {
		out[s.Name] = s.Outcome
	}
	return out
}

func TestInstallUninstall(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the tray's Run value is in the real registry")
	}
	fakes := servicetest.New(t)
	o := testOptions(t)
	ctx := context.Background()

	dry := o
	dry.DryRun = true
	rep := Install(ctx, dry)
	if diff := cmp.Diff(map[string]string{"service": "installed", "tray": "installed", "agents": "not available"}, outcomes(rep)); diff != "" {
		t.Errorf("dry run outcomes (-want +got):\n%s", diff)
	}
	text := rep.Text("install")
	for _, want := range []string{"nothing was changed", "would be installed", "write ", "run launchctl bootstrap gui/"} {
		if !strings.Contains(text, want) {
			t.Errorf("dry-run text lacks %q:\n%s", want, text)
		}
	}
	for _, c := range fakes.Calls(t) {
		if !strings.HasPrefix(c, "launchctl print ") {
			t.Errorf("dry run changed the manager's state: %s", c)
		}
	}

	rep = Install(ctx, o)
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"service": "installed", "tray": "installed", "agents": "not available"}, outcomes(rep)); diff != "" {
		t.Errorf("install outcomes (-want +got):\n%s", diff)
	}
	tray := service.TrayAutostart(o.Exe)
	if st, _ := tray.Status(); !st.Enabled || st.Stale {
		t.Errorf("tray entry after install: %+v", st)
	}
	rep = Install(ctx, o)
	if diff := cmp.Diff(map[string]string{"service": "unchanged", "tray": "unchanged", "agents": "not available"}, outcomes(rep)); diff != "" {
		t.Errorf("second install outcomes (-want +got):\n%s", diff)
	}

	noTray := o
	noTray.Tray = false
	if st := Install(ctx, noTray).Steps[1]; st.Outcome != service.OutcomeRemoved {
		t.Errorf("install --no-tray over an earlier tray entry: %+v, want it removed", st)
	}
	Install(ctx, o)

	rep = Uninstall(ctx, o)
	if diff := cmp.Diff(map[string]string{"service": "removed", "tray": "removed", "agents": "not available"}, outcomes(rep)); diff != "" {
		t.Errorf("uninstall outcomes (-want +got):\n%s", diff)
	}
	if st, _ := tray.Status(); st.Enabled {
		t.Error("uninstall left the tray entry")
	}
	if names := []string{rep.Steps[0].Name, rep.Steps[1].Name, rep.Steps[2].Name}; strings.Join(names, ",") != "agents,tray,service" {
		t.Errorf("uninstall order %v: want the install's reversed", names)
	}
}

func TestInstallSkips(t *testing.T) {
	servicetest.New(t)
	o := testOptions(t)
	o.DryRun, o.Tray, o.MCP = true, false, false
	rep := Install(context.Background(), o)
	if diff := cmp.Diff(map[string]string{"service": "installed", "tray": "skipped", "agents": "skipped"}, outcomes(rep)); diff != "" {
		t.Errorf("--no-tray --no-mcp (-want +got):\n%s", diff)
	}
	o.Tray, o.NoTrayWhy = true, "this pond has no tray built in"
	if got := Install(context.Background(), o).Steps[1]; got.Outcome != OutcomeSkipped || got.Summary != o.NoTrayWhy {
		t.Errorf("tray step of a pond without a tray: %+v", got)
	}
}

func TestInstallReportsAFailedStep(t *testing.T) {
	servicetest.New(t)
	o := testOptions(t)
	o.Manager = "upstart"
	rep := Install(context.Background(), o)
	if rep.Steps[0].Outcome != OutcomeFailed || rep.Err() == nil || !strings.Contains(rep.Err().Error(), "unknown service manager") {
		t.Errorf("service step with a bad manager: %+v, err %v", rep.Steps[0], rep.Err())
	}
	if rep.Steps[1].Outcome == OutcomeFailed {
		t.Error("one step's failure stopped the next")
	}
}

func TestPurge(t *testing.T) {
	servicetest.New(t)
	o := testOptions(t)
	for _, d := range []string{o.Dirs.Data.Path, o.Dirs.State.Path, o.Dirs.Cache.Path} {
		if err := os.MkdirAll(filepath.Join(d, "x"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Dir(o.Dirs.ConfigFile.Path), 0o700)
	os.WriteFile(o.Dirs.ConfigFile.Path, []byte("x"), 0o600)
	want := []string{o.Dirs.Data.Path, o.Dirs.State.Path, o.Dirs.Cache.Path, o.Dirs.ConfigFile.Path}
	if diff := cmp.Diff(want, PurgeTargets(o.Dirs)); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}

	o.Purge, o.DryRun = true, true
	st := Uninstall(context.Background(), o).Steps[3]
	if st.Name != "purge" || st.Outcome != service.OutcomeRemoved || len(st.Changes) != 4 {
		t.Errorf("dry-run purge: %+v", st)
	}
	if len(PurgeTargets(o.Dirs)) != 4 {
		t.Fatal("dry-run purge removed something")
	}

	o.DryRun = false
	st = Uninstall(context.Background(), o).Steps[3]
	if st.Outcome != service.OutcomeRemoved || len(st.Changes) != 4 {
		t.Errorf("purge: %+v", st)
	}
	if left := PurgeTargets(o.Dirs); len(left) != 0 {
		t.Errorf("purge left %v", left)
	}
	if _, err := os.Stat(filepath.Dir(o.Dirs.ConfigFile.Path)); !os.IsNotExist(err) {
		t.Error("purge left the config file's empty pond folder")
	}
}

func TestPurgeRefusesHome(t *testing.T) {
	servicetest.New(t)
	o := testOptions(t)
	home, _ := os.UserHomeDir()
	o.Dirs.Cache = paths.Path{Path: home}
	o.Purge = true
	st := Uninstall(context.Background(), o).Steps[3]
	if st.Outcome != OutcomeFailed || !strings.Contains(st.Error, "home directory") {
		t.Errorf("purge of HOME: %+v", st)
	}
	if _, err := os.Stat(home); err != nil {
		t.Fatalf("HOME is gone: %v", err)
	}
	for _, c := range []struct {
		p    string
		want bool
	}{{"/", true}, {home, true}, {filepath.Dir(home), true}, {filepath.Join(home, ".cache", "pond"), false}} {
		if got := unsafeToPurge(c.p, home); got != c.want {
			t.Errorf("unsafeToPurge(%s) = %v, want %v", c.p, got, c.want)
		}
	}
}
