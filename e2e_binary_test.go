package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The end-to-end tests run the real pond binary. Linking it takes tens of seconds, so each
// build (full, and headless) is made once per test run, in a directory TestMain removes.
var (
	binDirOnce sync.Once
	binDir     string
	binDirErr  error
	builds     sync.Map // build tags -> *binaryBuild
)

type binaryBuild struct {
	once sync.Once
	path string
	err  error
}

// pondBinary is the pond binary as `make build` makes it. Tests that need it are skipped under
// -short.
func pondBinary(t testing.TB) string { return buildPond(t, "sqlite_fts5") }

// buildPond builds the pond binary with the given tags, once per run.
func buildPond(t testing.TB, tags string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the pond binary")
	}
	binDirOnce.Do(func() { binDir, binDirErr = os.MkdirTemp("", "pond-e2e-bin") })
	if binDirErr != nil {
		t.Fatal(binDirErr)
	}
	v, _ := builds.LoadOrStore(tags, &binaryBuild{})
	b := v.(*binaryBuild)
	b.once.Do(func() {
		b.path = filepath.Join(binDir, "pond-"+strings.ReplaceAll(tags, ",", "-"))
		out, err := exec.Command("go", "build", "-tags", tags, "-o", b.path, ".").CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build -tags %s: %v\n%s", tags, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// TestMain removes the binaries buildPond made.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// TestHeadlessBuild: the headless build links no GL, X or Wayland library, so it runs on a
// server, and its `pond tray` says how to get the desktop app.
func TestHeadlessBuild(t *testing.T) {
	bin := buildPond(t, "sqlite_fts5,headless")
	out, err := exec.Command("ldd", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("ldd %s: %v\n%s", bin, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		lib := strings.TrimSpace(line)
		for _, desktop := range []string{"libGL", "libEGL", "libX", "libxcb", "libwayland", "libxkbcommon"} {
			if strings.HasPrefix(lib, desktop) {
				t.Errorf("the headless binary links %s", lib)
			}
		}
	}
	if !strings.Contains(string(out), "libc.so") {
		t.Fatalf("ldd listed no libc; is this the binary?\n%s", out)
	}
	cmd := exec.Command(bin, "tray")
	msg, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(msg), "make build") {
		t.Errorf("pond tray in a headless build: %v, %q; want exit 2 saying how to get the full build", err, msg)
	}
}

// TestQuietStartUnderCLocale: the full build (which links Fyne) prints nothing on stderr for an
// ordinary command under the C.UTF-8 locale of Debian and most containers (Fyne's package init
// used to log a locale parse error on every run; see app/fynelocale).
func TestQuietStartUnderCLocale(t *testing.T) {
	bin := pondBinary(t)
	for _, locale := range []string{"C.UTF-8", "POSIX.utf8", "C", "en_US.UTF-8"} {
		for _, name := range []string{"LANG", "LC_ALL"} {
			cmd := exec.Command(bin, "version")
			cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), name + "=" + locale}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s=%s pond version: %v\n%s", name, locale, err, stderr.String())
			}
			if stderr.Len() > 0 {
				t.Errorf("%s=%s pond version wrote to stderr:\n%s", name, locale, stderr.String())
			}
		}
	}
}
