package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/pondhq/pond/internal/atomicfile"
)

// FakeMarker is the file a directory of fake service managers holds. Under `go test` every
// manager command must resolve to a directory holding it: a test never reaches the real
// systemctl, launchctl, loginctl, schtasks or journalctl of the machine it runs on (one project
// learned this after its tests loaded a real agent into a developer's launchd).
const FakeMarker = ".pond-fake-managers"

// managerCommands are what each manager runs; guard checks all of them before anything runs,
// including the commands kardianos/service runs itself.
var managerCommands = map[string][]string{
	ManagerSystemd:   {"systemctl", "loginctl", "journalctl"},
	ManagerLaunchd:   {"launchctl"},
	ManagerSchtasks:  {"schtasks"},
	ManagerAutostart: nil,
}

// underTest reports whether this process is a Go test binary.
func underTest() bool {
	exe := filepath.Base(os.Args[0])
	return strings.HasSuffix(exe, ".test") || strings.HasSuffix(exe, ".test.exe")
}

// guard refuses, in a test binary, to use a manager whose commands are not fakes.
func guard(manager string) error {
	if !underTest() {
		return nil
	}
	for _, name := range managerCommands[manager] {
		p, err := exec.LookPath(name)
		if err != nil {
			return fmt.Errorf("service: test guard: no fake %s on PATH (put one in a directory holding %s)", name, FakeMarker)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), FakeMarker)); err != nil {
			return fmt.Errorf("service: test guard: refusing to run the real %s (%s) from a test; put a fake first on PATH in a directory holding %s", name, p, FakeMarker)
		}
	}
	if h, err := os.UserHomeDir(); err != nil || !strings.HasPrefix(h, os.TempDir()) {
		return fmt.Errorf("service: test guard: HOME (%s) is not a temporary directory", h)
	}
	return nil
}

// run runs a manager command and returns its combined output; a failure carries the output.
func run(ctx context.Context, argv ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	hideWindow(cmd)
	err := cmd.Run()
	text := strings.TrimSpace(out.String())
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && text != "" {
			return text, fmt.Errorf("%s: %s (exit %d)", quoteArgs(argv), text, ee.ExitCode())
		}
		return text, fmt.Errorf("%s: %w", quoteArgs(argv), err)
	}
	return text, nil
}

// runStep runs argv unless this is a dry run, recording it in r either way.
func runStep(ctx context.Context, r *Result, dry bool, argv ...string) error {
	r.Changes = append(r.Changes, Change{Action: "run", Command: argv})
	if dry {
		return nil
	}
	_, err := run(ctx, argv...)
	return err
}

// writeFile replaces a definition atomically: a manager reading it never sees half a file.
func writeFile(path string, data []byte, perm os.FileMode) error {
	if err := atomicfile.Write(path, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// quoteArgs renders argv for people: arguments with spaces or quotes are quoted.
func quoteArgs(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\"'\\$`") {
			a = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(a) + `"`
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
