// Package scripts holds the tests of the set-up scripts; the scripts themselves are bash.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// checkIn runs `apt.sh check` with every path it looks at moved under root.
func checkIn(t *testing.T, root string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "apt.sh", "check")
	cmd.Env = append(os.Environ(), "POND_PREFLIGHT_ROOT="+root, "POND_CACHE_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestAptCheckNamesTheMissingPackage builds a tree holding every file the check wants, then
// removes the protobuf well-known types (the file a fresh machine once lacked) and expects the
// check to fail naming libprotobuf-dev, and only it.
func TestAptCheckNamesTheMissingPackage(t *testing.T) {
	root := t.TempDir()
	out, err := checkIn(t, root)
	if err == nil {
		t.Fatalf("check passed on an empty tree:\n%s", out)
	}
	wanted := regexp.MustCompile(`(?m)^  (\S+) \((/[^)]+)\)$`).FindAllStringSubmatch(out, -1)
	if len(wanted) < 20 {
		t.Fatalf("an empty tree is missing only %d files; the check lists fewer than it should:\n%s", len(wanted), out)
	}
	for _, w := range wanted {
		p := filepath.Join(root, w[2])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := checkIn(t, root); err != nil {
		t.Fatalf("check failed with every file present: %v\n%s", err, out)
	}

	if err := os.Remove(filepath.Join(root, "/usr/include/google/protobuf/empty.proto")); err != nil {
		t.Fatal(err)
	}
	out, err = checkIn(t, root)
	if err == nil {
		t.Fatalf("check passed without google/protobuf/empty.proto:\n%s", out)
	}
	if !strings.Contains(out, "apt-get install libprotobuf-dev") {
		t.Errorf("check did not name the package to install:\n%s", out)
	}
	if n := len(regexp.MustCompile(`(?m)^  \S+ \(`).FindAllString(out, -1)); n != 1 {
		t.Errorf("check listed %d missing files, want 1:\n%s", n, out)
	}
}
