package plugins_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/installer/plugins"
)

// TestHermesUnit runs hermes-pond's own unit tests (tests/test_pond.py: the byte budget, the
// bounds, the JSON answers, the daemon-down path, the socket checks) with the Python of the
// venv Hermes Agent is installed in (scripts/hermes-venv.sh; make verify-agents sets
// POND_HERMES_VENV to it). The plugin uses nothing beyond Python's standard library.
func TestHermesUnit(t *testing.T) {
	venv := os.Getenv("POND_HERMES_VENV")
	if venv == "" {
		t.Skip("POND_HERMES_VENV is not set: make verify-agents makes Hermes's venv (scripts/hermes-venv.sh) and runs this")
	}
	cmd := exec.Command(filepath.Join(venv, "bin", "python"), "-m", "unittest", "discover", "-v", "-s", "tests")
	cmd.Dir = "hermes-pond"
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python -m unittest: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestHermesFiles: what pond install writes is what Hermes needs in the folder (plugin.yaml
// naming the plugin pond, __init__.py defining register) and nothing the repository keeps
// beside it (tests, packaging).
func TestHermesFiles(t *testing.T) {
	dir := t.TempDir()
	if err := plugins.Write(plugins.Hermes, dir); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := filepath.Join(names...); got != filepath.Join("__init__.py", "plugin.yaml", "pond.py", "tools.py") {
		t.Errorf("written: %v", names)
	}
	if !plugins.Current(plugins.Hermes, dir) {
		t.Error("not current right after Write")
	}
	os.WriteFile(filepath.Join(dir, "pond.py"), []byte("# changed\n"), 0o644)
	if plugins.Current(plugins.Hermes, dir) {
		t.Error("current with a file changed")
	}
}
