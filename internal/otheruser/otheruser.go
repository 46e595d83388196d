// Package otheruser runs the test binary again as another local user (nobody), for the tests
// of what keeps other users out: the runtime directory's checks and the peer-uid checks on
// both ends of the sockets. It is pure Go (no setpriv, curl or socat). Starting a process as
// another user needs root; CI runs the tests as root (make test), and elsewhere these tests
// skip, saying so.
package otheruser

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// UID and GID are nobody's, the other user the tests run as.
const (
	UID = 65534
	GID = 65534
)

// envRole names the role a process started by Command plays.
const envRole = "POND_OTHERUSER_ROLE"

// Main runs the role this process was started in by Command and exits with the role's exit
// code; in any other process it returns at once. Call it first in TestMain.
func Main(roles map[string]func(args []string) int) {
	role := os.Getenv(envRole)
	if role == "" {
		return
	}
	run, ok := roles[role]
	if !ok {
		fmt.Fprintf(os.Stderr, "otheruser: this test binary has no role %q\n", role)
		os.Exit(2)
	}
	os.Exit(run(os.Args[1:]))
}

// Command is this test binary run as nobody in role, with args. It skips t unless the test
// runs as root on a Unix system, and logs that it runs as another user, so a test's output
// says the cross-user check really ran.
func Command(t testing.TB, role string, args ...string) *exec.Cmd {
	t.Helper()
	Require(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The go command builds test binaries in a private folder nobody cannot enter: link (or
	// copy) the binary into one it can.
	dir := t.TempDir()
	OpenPath(t, dir)
	bin := filepath.Join(dir, "as-nobody")
	if err := os.Link(exe, bin); err != nil {
		copyFile(t, exe, bin)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), envRole+"="+role)
	cmd.SysProcAttr = asNobody()
	t.Logf("running %q as uid %d (nobody)", role, UID)
	return cmd
}

// Give hands path over to nobody, so a process started by Command can create files in it.
func Give(t testing.TB, path string) {
	t.Helper()
	Require(t)
	if err := os.Lchown(path, UID, GID); err != nil {
		t.Fatal(err)
	}
}

// OpenPath lets other users walk down to dir (not list it): t.TempDir makes its folders 0700.
func OpenPath(t testing.TB, dir string) {
	t.Helper()
	for d := dir; d != "/" && d != filepath.Clean(os.TempDir()); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
}

// Require skips t unless this process can start processes as another user: a test calls it
// before a costly set-up that only a cross-user run needs.
func Require(t testing.TB) {
	t.Helper()
	if !canSwitchUser() {
		t.Skip("needs root on a Unix system to run a process as another user (CI runs the tests as root)")
	}
}

func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
