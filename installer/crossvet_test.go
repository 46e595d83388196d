package installer

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestCrossVet vets the installer for macOS and Windows, whose service code this machine cannot
// run: it at least type-checks and passes vet there. Everything under installer/ is pure Go, so
// no C toolchain for those systems is needed.
func TestCrossVet(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no cross vet")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	for _, goos := range []string{"darwin", "windows", "linux"} {
		t.Run(goos, func(t *testing.T) {
			cmd := exec.Command(gobin, "vet", "github.com/pondhq/pond/installer/...")
			cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("GOOS=%s go vet ./installer/...: %v\n%s", goos, err, strings.TrimSpace(string(out)))
			}
		})
	}
}
