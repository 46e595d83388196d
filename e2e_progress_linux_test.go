package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSyncProgressUnderDaemon: on a terminal, pond sync draws the same progress whether it
// syncs in its own process or a daemon does the work (the CLI follows the daemon's watch
// stream).
func TestSyncProgressUnderDaemon(t *testing.T) {
	bin := pondBinary(t)
	home, env := isolatedHome(t)
	alone := finalProgress(t, syncOnTerminal(t, bin, env))
	if len(alone) == 0 {
		t.Fatal("pond sync drew no progress on a terminal")
	}
	// Consent is not asked, so the daemon does not sync on its own: the sync below is the CLI's.
	d := startDaemon(t, bin, env, home)
	viaDaemon := finalProgress(t, syncOnTerminal(t, bin, env, "--verify"))
	if strings.Join(viaDaemon, "\n") != strings.Join(alone, "\n") {
		t.Errorf("progress through the daemon %q, want %q as without one", viaDaemon, alone)
	}
	if !strings.Contains(d.log.String(), "path=/v1/sync ") {
		t.Error("the sync did not go through the daemon")
	}
}

var progressLine = regexp.MustCompile(`(\S+)\s+(\d+)/(\d+) sources`)

// finalProgress is each adapter's last progress line, when all its sources were read.
func finalProgress(t *testing.T, stderr string) []string {
	t.Helper()
	var out []string
	for _, m := range progressLine.FindAllStringSubmatch(stderr, -1) {
		if m[2] == m[3] {
			out = append(out, m[0])
		}
	}
	return out
}

// syncOnTerminal runs pond sync with its stderr on a pseudo-terminal and returns what it drew.
func syncOnTerminal(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	master, slave := openPTY(t)
	cmd := exec.Command(bin, append([]string{"sync"}, args...)...)
	cmd.Env = env
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	drawn := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(master) // ends (EIO) once the child closed its side
		drawn <- b
	}()
	err := cmd.Wait()
	b := <-drawn
	if err != nil {
		t.Fatalf("pond sync %v: %v\n%s%s", args, err, stdout.String(), b)
	}
	return string(b)
}

// openPTY opens a pseudo-terminal pair.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	if slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0); err != nil {
		t.Fatal(err)
	}
	return master, slave
}
