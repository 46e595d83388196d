package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pondhq/pond/installer"
	"github.com/pondhq/pond/installer/service"
	"github.com/pondhq/pond/installer/service/servicetest"
)

// TestInstallEndToEnd drives pond install, service and uninstall --purge through the real
// binary in an isolated home, against fake systemctl and loginctl first on PATH (the binary is
// not a test binary, so the PATH and POND_SERVICE_MANAGER below are what keep it off the
// machine's own service manager).
func TestInstallEndToEnd(t *testing.T) {
	fakes := servicetest.New(t) // before isolatedHome, which copies PATH
	bin := pondBinary(t)
	home, env := isolatedHome(t)
	env = append(env, "FAKE_DIR="+fakes.Dir, service.EnvManager+"=systemd")
	unit := filepath.Join(home, ".config", "systemd", "user", "pond.service")

	out, code := run(t, bin, env, "install", "--dry-run", "--format", "json")
	var rep installer.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("install --dry-run: exit %d, %v\n%s", code, err, out)
	}
	if !rep.DryRun || rep.Steps[0].Name != "service" || rep.Steps[0].Outcome != "installed" || len(rep.Steps[0].Changes) == 0 {
		t.Errorf("dry run report: %+v", rep)
	}
	if _, err := os.Stat(unit); !os.IsNotExist(err) {
		t.Fatal("install --dry-run wrote the unit")
	}

	if out, code = run(t, bin, env, "install", "--no-mcp"); code != 0 {
		t.Fatalf("install: exit %d\n%s", code, out)
	}
	b, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := filepath.EvalSymlinks(bin)
	if !strings.Contains(string(b), "ExecStart="+exe+" daemon\n") || !strings.Contains(string(b), "WantedBy=default.target") {
		t.Errorf("unit does not run this binary's daemon:\n%s", b)
	}
	calls := strings.Join(fakes.Calls(t), "\n")
	for _, want := range []string{"systemctl enable --user pond.service", "systemctl start --user pond.service"} {
		if !strings.Contains(calls, want) {
			t.Errorf("install did not run %q; calls:\n%s", want, calls)
		}
	}

	out, _ = run(t, bin, env, "service", "status", "--format", "json")
	var st struct{ Service service.Status }
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Service.State != service.Running {
		t.Errorf("service status: %v\n%s", err, out)
	}

	os.MkdirAll(filepath.Join(home, ".local", "share", "pond", "lance"), 0o700)
	if _, code = run(t, bin, env, "uninstall", "--purge"); code != 2 {
		t.Errorf("uninstall --purge with nothing typed and no --yes: exit %d, want 2", code)
	}
	if _, err := os.Stat(unit); err != nil {
		t.Fatal("an unconfirmed purge removed the unit")
	}
	if out, code = run(t, bin, env, "uninstall", "--purge", "--yes"); code != 0 {
		t.Fatalf("uninstall --purge --yes: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(unit); !os.IsNotExist(err) {
		t.Error("uninstall left the unit")
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "share", "pond")); !os.IsNotExist(err) {
		t.Errorf("--purge left the data folder:\n%s", out)
	}
}
