package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResumeEndToEnd drives `pond resume` in an isolated home whose Claude Code sessions ran
// in a folder that exists: a native restore over the live files refuses (exit 3), a restore into
// Codex writes rollouts that Codex's adapter captures again as copies linked to the original,
// a second identical restore refuses, and unknown sessions and agents get exit codes 1 and 2.
func TestResumeEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the pond binary")
	}
	bin := pondBinary(t)
	home, env := isolatedHome(t)
	cwd := existingCwd(t, home)
	const id = "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b"
	if out, code := run(t, bin, env, "sync"); code != 0 {
		t.Fatalf("sync exited %d: %s", code, out)
	}
	if out, code := run(t, bin, env, "resume", id, "--to", "claude-code", "--format", "json"); code != 3 || !strings.Contains(out, `"target_exists"`) {
		t.Errorf("native restore over the live files: exit %d, %s; want 3 target_exists", code, out)
	}

	out, code := run(t, bin, env, "resume", id, "--to", "codex-cli", "--format", "json")
	if code != 0 {
		t.Fatalf("restore into codex exited %d: %s", code, out)
	}
	var o struct {
		Status, ID, Command string
		Files               []struct{ Path, Fidelity string }
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	if o.Status != "ok" || len(o.Files) != 3 || o.Files[0].Fidelity != "foreign" {
		t.Fatalf("outcome %+v, want ok with three foreign files (the session and its two sub-agents; its continuation is restored on its own)", o)
	}
	if want := "cd " + cwd + " && codex resume " + o.ID; o.Command != want {
		t.Errorf("command %q, want %q", o.Command, want)
	}
	for _, f := range o.Files {
		if !strings.HasPrefix(f.Path, filepath.Join(home, ".codex", "sessions")+"/") {
			t.Errorf("%s is not under the native Codex folder", f.Path)
		}
	}
	if _, code := run(t, bin, env, "resume", id, "--to", "codex-cli"); code != 3 {
		t.Errorf("second restore exited %d, want 3", code)
	}

	if out, code := run(t, bin, env, "sync", "codex-cli", "--path", filepath.Join(home, ".codex")); code != 0 {
		t.Fatalf("sync codex exited %d: %s", code, out)
	}
	out, _ = run(t, bin, env, "sql", "--format", "json",
		"SELECT parent_session_id AS parent, json_extract(options, '$.pond.restored_from.session') AS origin FROM sessions WHERE session_id = '"+o.ID+"'")
	if !strings.Contains(out, `"parent": "`+id+`"`) || !strings.Contains(out, `"origin": "`+id+`"`) {
		t.Errorf("the captured copy is not linked to its original: %s", out)
	}

	if _, code := run(t, bin, env, "resume", "no-such-session", "--to", "pi-coding-agent"); code != 1 {
		t.Errorf("unknown session exited %d, want 1", code)
	}
	if _, code := run(t, bin, env, "resume", id, "--to", "windsurf"); code != 2 {
		t.Errorf("unknown agent exited %d, want 2", code)
	}
}

// existingCwd gives the Claude Code fixtures in home a working directory that exists (they ran
// in /srv/demo), and returns it.
func existingCwd(t *testing.T, home string) string {
	t.Helper()
	cwd := filepath.Join(home, "demo")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(home, ".claude/projects/-srv-demo/*.jsonl"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(strings.ReplaceAll(string(b), "/srv/demo", cwd)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return cwd
}
