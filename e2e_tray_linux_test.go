//go:build linux && !headless

package main

import (
	"os/exec"
	"testing"
)

// TestTrayOverDBus runs the real tray against a real daemon under Xvfb on a private session bus
// (scripts/tray-smoke.sh): the menu is read through com.canonical.dbusmenu GetLayout, "Pause
// capture" is clicked through Event, and the daemon is checked to have declined capture.
func TestTrayOverDBus(t *testing.T) {
	for _, tool := range []string{"Xvfb", "dbus-daemon", "busctl", "import", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (scripts/apt.sh)", tool)
		}
	}
	bin := pondBinary(t)
	cmd := exec.Command("scripts/tray-smoke.sh", bin, t.TempDir())
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("tray-smoke.sh: %v", err)
	}
}
