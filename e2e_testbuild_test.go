package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestTestFlagsNeedTheTestBuild: --test-open-sockets (sockets every user may connect to, for
// the peer-uid tests) exists only in a binary built with the pondtest tag, never in a release.
func TestTestFlagsNeedTheTestBuild(t *testing.T) {
	for _, tc := range []struct {
		name, tags string
		known      bool
	}{
		{"release", "sqlite_fts5", false},
		{"pondtest", "sqlite_fts5,pondtest", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := buildPond(t, tc.tags)
			// A bad --log-level ends the command before the daemon touches anything; only
			// whether the flag before it parses differs between the builds.
			cmd := exec.Command(bin, "daemon", "--test-open-sockets", "--log-level", "bogus")
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
			out, err := cmd.CombinedOutput()
			unknown := strings.Contains(string(out), "unknown flag: --test-open-sockets")
			badLevel := strings.Contains(string(out), `--log-level "bogus"`)
			if err == nil || unknown == tc.known || badLevel != tc.known {
				t.Fatalf("pond daemon --test-open-sockets in the %s build: %v\n%s", tc.name, err, out)
			}
		})
	}
}
