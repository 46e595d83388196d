package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pondhq/pond/internal/s3test"
)

// pond copy through the binary: home A's archive into a .pond file, that file into home B's
// empty archive, and both exports equal, capture records and all; a second copy adds nothing;
// --verify-only passes on the copy and exits 6 against an archive missing the rows; a JSONL
// stream re-imports through pond import; a running daemon keeps copy out of its archive.
func TestCopyCommand(t *testing.T) {
	bin := pondBinary(t)
	homeA, envA := isolatedHome(t)
	if out, code := run(t, bin, envA, "sync"); code != 0 {
		t.Fatalf("sync exited %d: %s", code, out)
	}
	exportA, _ := run(t, bin, envA, "export")
	if strings.Count(exportA, "\n") < 10 {
		t.Fatalf("home A exports %q", exportA)
	}
	file := filepath.Join(t.TempDir(), "a.pond")
	out, code := run(t, bin, envA, "copy", "--from", "@", "--to", file, "--format", "json")
	if code != 0 {
		t.Fatalf("copy to .pond exited %d: %s", code, out)
	}
	var rep struct {
		Appended     int `json:"sessions_appended"`
		Verification struct {
			OK bool `json:"ok"`
		} `json:"verification"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Appended == 0 || !rep.Verification.OK {
		t.Fatalf("copy report %s: %v", out, err)
	}

	_, envB := isolatedHome(t)
	if out, code := run(t, bin, envB, "copy", "--from", file, "--to", "@"); code != 0 || !strings.Contains(out, "verified") {
		t.Fatalf("copy from .pond exited %d: %s", code, out)
	}
	if exportB, _ := run(t, bin, envB, "export"); exportB != exportA {
		t.Errorf("home B's export differs from home A's:\n%s\n---\n%s", exportB, exportA)
	}
	out, code = run(t, bin, envB, "copy", "--from", file, "--to", "@", "--format", "json")
	if code != 0 || !strings.Contains(out, `"sessions_appended": 0`) || !strings.Contains(out, `"messages": 0`) {
		t.Errorf("second copy exited %d: %s", code, out)
	}
	if out, code := run(t, bin, envB, "copy", "--from", file, "--to", "@", "--verify-only"); code != 0 {
		t.Errorf("verify-only of a good copy exited %d: %s", code, out)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	if out, code := run(t, bin, envA, "copy", "--from", filepath.Join(t.TempDir(), "none.pond"), "--to", empty); code == 0 {
		t.Errorf("copy from a missing .pond exited 0: %s", out)
	}
	// An archive holding none of A's rows: verification names them missing, exit 6.
	homeC, envC := isolatedHome(t)
	run(t, bin, envC, "export") // opens (so creates) an archive, captures nothing
	homeCData := filepath.Join(homeC, ".local/share/pond")
	if out, code := run(t, bin, envA, "copy", "--from", "@", "--to", homeCData, "--verify-only"); code != 6 || !strings.Contains(out, "VERIFICATION FAILED") {
		t.Errorf("verify-only against an empty archive exited %d: %s", code, out)
	}
	if out, code := run(t, bin, envA, "copy", "--from", "@", "--to", "s3:///"); code != 2 {
		t.Errorf("an unparsable location exited %d: %s", code, out)
	}
	if out, code := run(t, bin, envA, "copy", "--from", "@", "--to", filepath.Join(homeA, ".local/share/pond")); code != 2 {
		t.Errorf("copying an archive onto itself exited %d: %s", code, out)
	}

	// The JSONL stream: written by copy, read back by pond import into a fresh archive.
	stream := filepath.Join(t.TempDir(), "a.jsonl")
	if out, code := run(t, bin, envA, "copy", "--from", "@", "--to", stream); code != 0 {
		t.Fatalf("copy to .jsonl exited %d: %s", code, out)
	}
	if b, err := os.ReadFile(stream); err != nil || string(b) != exportA {
		t.Errorf("the stream differs from pond export: %v", err)
	}
	_, envD := isolatedHome(t)
	if out, code := run(t, bin, envD, "import", stream); code != 0 {
		t.Fatalf("import of the stream exited %d: %s", code, out)
	}
	if exportD, _ := run(t, bin, envD, "export"); withoutIngest(t, exportD) != withoutIngest(t, exportA) {
		t.Errorf("the re-imported stream differs")
	}
}

// A daemon running on the destination archive keeps pond copy out of it.
func TestCopyRefusesARunningDaemon(t *testing.T) {
	bin := pondBinary(t)
	home, env := isolatedHome(t)
	startDaemon(t, bin, env, home)
	src := filepath.Join(t.TempDir(), "src.pond")
	_, envA := isolatedHome(t)
	run(t, bin, envA, "sync")
	if out, code := run(t, bin, envA, "copy", "--from", "@", "--to", src); code != 0 {
		t.Fatalf("copy exited %d: %s", code, out)
	}
	cmd := exec.Command(bin, "copy", "--from", src, "--to", "@")
	cmd.Env = env
	b, err := cmd.CombinedOutput()
	out, code := string(b), cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatal(err)
	}
	if code != 1 || !strings.Contains(out, "daemon is running") {
		t.Errorf("copy into a daemon's archive exited %d: %s", code, out)
	}
}

// local → s3 → local on moto's server: the round trip is identical.
func TestCopyThroughObjectStorage(t *testing.T) {
	bin := pondBinary(t)
	srv := s3test.Start(t)
	url := srv.Bucket(t, "pond-copy", "backup/archive")
	aws := []string{"AWS_ACCESS_KEY_ID=testing", "AWS_SECRET_ACCESS_KEY=testing", "AWS_REGION=us-east-1"}
	_, envA := isolatedHome(t)
	envA = append(envA, aws...)
	run(t, bin, envA, "sync")
	exportA, _ := run(t, bin, envA, "export")
	if out, code := run(t, bin, envA, "copy", "--from", "@", "--to", url); code != 0 {
		t.Fatalf("copy to s3 exited %d: %s", code, out)
	}
	_, envB := isolatedHome(t)
	envB = append(envB, aws...)
	if out, code := run(t, bin, envB, "copy", "--from", url, "--to", "@"); code != 0 {
		t.Fatalf("copy from s3 exited %d: %s", code, out)
	}
	if exportB, _ := run(t, bin, envB, "export"); exportB != exportA || exportA == "" {
		t.Errorf("the round trip through s3 differs")
	}
	if out, code := run(t, bin, envB, "copy", "--from", url, "--to", "@", "--verify-only"); code != 0 {
		t.Errorf("verify-only exited %d: %s", code, out)
	}
}
