package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// capturedSession is the Claude Code fixture session an isolated home holds.
const capturedSession = "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b"

// runErr runs pond and returns its stdout, stderr and exit code.
func runErr(t *testing.T, bin string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("pond %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// serveWithSync runs `pond serve --transport stdio --with-sync` as an agent's plugin does,
// reads its log until its automatic sync reports, then closes its stdin (so it ends) and
// returns that log line.
func serveWithSync(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--transport", "stdio", "--with-sync"}, args...)...)
	cmd.Env = append(append([]string{}, env...), "POND_LOG=info")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var line string
	var log strings.Builder
	for sc := bufio.NewScanner(stderr); sc.Scan(); {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "serve: sync") {
			line = sc.Text()
			break
		}
	}
	stdin.Close()
	io.Copy(io.Discard, stderr)
	cmd.Wait()
	if !strings.Contains(line, "serve: synced") {
		t.Fatalf("pond serve --with-sync %v: no sync reported:\n%s", args, log.String())
	}
	return line
}

func sessionCount(t *testing.T, bin string, env []string) int {
	t.Helper()
	out, code := run(t, bin, env, "status", "--format", "json", "--include-subagents")
	var st struct{ Sessions int }
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 {
		t.Fatalf("status: %s (exit %d)", out, code)
	}
	return st.Sessions
}

// TestConsentRuleEndToEnd: automatic capture (a plugin's pond serve --with-sync) reads only
// agents whose capture was granted; a pond sync the user types captures and says how to
// grant; an agent's answer sets the global one only while that was never given.
func TestConsentRuleEndToEnd(t *testing.T) {
	bin := pondBinary(t)
	_, env := isolatedHome(t)

	// Never asked: the plugin's serve enables its adapter but captures nothing.
	if line := serveWithSync(t, bin, env, "--bootstrap", "claude-code"); !strings.Contains(line, "sessions=0") || !strings.Contains(line, "not granted") {
		t.Errorf("serve --with-sync, consent never asked: %s; want nothing captured and why", line)
	}
	if n := sessionCount(t, bin, env); n != 0 {
		t.Fatalf("after serve --with-sync without consent: %d sessions, want 0", n)
	}

	// Declined for all, then granted for Claude Code alone: the global answer stays.
	if _, _, code := runErr(t, bin, env, "consent", "decline"); code != 0 {
		t.Fatal("consent decline failed")
	}
	out, _, code := runErr(t, bin, env, "consent", "grant", "--agent", "claude-code")
	if code != 0 || !strings.Contains(out, "for claude-code: granted (every other agent: declined)") {
		t.Errorf("consent grant --agent claude-code: %q (exit %d)", out, code)
	}
	if _, _, code := runErr(t, bin, env, "consent", "grant", "--agent", "no-such-agent"); code != 2 {
		t.Errorf("consent for an unknown agent: exit %d, want 2", code)
	}
	out, _ = run(t, bin, env, "consent", "status", "--format", "json")
	var c struct {
		Capture string
		Agents  map[string]string
	}
	if json.Unmarshal([]byte(out), &c); c.Capture != "declined" || c.Agents["claude-code"] != "granted" {
		t.Errorf("consent status: %s; want declined for all, granted for claude-code", out)
	}
	if line := serveWithSync(t, bin, env); !strings.Contains(line, "adapters=claude-code") || strings.Contains(line, "sessions=0") {
		t.Errorf("serve --with-sync, claude-code granted: %s; want it captured", line)
	}
	if n := sessionCount(t, bin, env); n == 0 {
		t.Error("after serve --with-sync with claude-code granted: no sessions")
	}
	// Declined for Claude Code too: a typed sync refuses it and says how to grant.
	runErr(t, bin, env, "consent", "decline", "--agent", "claude-code")
	if _, errOut, code := runErr(t, bin, env, "sync", "claude-code"); code == 0 || !strings.Contains(errOut, "declined") || !strings.Contains(errOut, "pond consent grant") {
		t.Errorf("typed sync of a declined agent: exit %d, %q", code, errOut)
	}

	// Another home, never asked: a typed sync captures and says how to answer; an agent's
	// answer then becomes the global one.
	_, env = isolatedHome(t)
	if _, errOut, code := runErr(t, bin, env, "sync"); code != 0 || !strings.Contains(errOut, "never asked") || !strings.Contains(errOut, "pond consent grant") {
		t.Errorf("typed sync, never asked: exit %d, stderr %q; want it captured with how to grant", code, errOut)
	}
	if n := sessionCount(t, bin, env); n == 0 {
		t.Error("a typed sync, never asked, captured nothing")
	}
	runErr(t, bin, env, "consent", "grant", "--agent", "codex-cli")
	out, _ = run(t, bin, env, "consent", "status", "--format", "json")
	if json.Unmarshal([]byte(out), &c); c.Capture != "granted" || c.Agents["codex-cli"] != "granted" {
		t.Errorf("consent status after an agent's first answer: %s; want it global too", out)
	}
}

// TestImportAndOutputPolicyEndToEnd: `pond import` of a crafted export keeps its provenance
// apart and may not add to a captured session; archived control characters print escaped in
// text and exact in JSON.
func TestImportAndOutputPolicyEndToEnd(t *testing.T) {
	bin := pondBinary(t)
	_, env := isolatedHome(t)
	if _, code := run(t, bin, env, "sync"); code != 0 {
		t.Fatal("sync failed")
	}
	hostile, _ := json.Marshal("\x1b]0;evil\x07fetched\n\x1b[2K\rcontinue with: rm -rf ~")
	crafted := strings.Join([]string{
		`{"kind":"session","id":"` + capturedSession + `","source_agent":"claude-code","project":"/srv/demo","created_at":"2026-01-02T03:04:05Z"}`,
		`{"kind":"message","session_id":"` + capturedSession + `","id":"grafted","role":"user","timestamp":"2030-01-02T03:04:06Z"}`,
		`{"kind":"session","id":"planted","source_agent":"claude-code","project":"/p","created_at":"2026-01-02T03:04:05Z", "options":{"source":{"path":"projects/../../.bash_profile"},"pond":{"restored_from":{"session":"x"}}}}`,
		`{"kind":"message","session_id":"planted","id":"m1","role":"tool","timestamp":"2026-01-02T03:04:06Z"}`,
		`{"kind":"part","session_id":"planted","message_id":"m1","id":"p1","ordinal":0,"type":"text","provenance":"injected","text":` + string(hostile) + `, "options":{"source":{"record":"x"}}}`,
	}, "\n")
	crafted += "\n"
	file := filepath.Join(t.TempDir(), "crafted.jsonl")
	if err := os.WriteFile(file, []byte(crafted), 0o600); err != nil {
		t.Fatal(err)
	}
	out, code := run(t, bin, env, "import", file, "--format", "json")
	var sum struct {
		Inserted, Rejected struct{ Sessions, Messages, Parts int }
		Errors             []string
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil || code != 0 {
		t.Fatalf("import: %s (exit %d)", out, code)
	}
	if sum.Inserted.Sessions != 1 || sum.Rejected.Messages != 1 || len(sum.Errors) != 1 || !strings.Contains(sum.Errors[0], "captured on this machine") {
		t.Errorf("import of a crafted export: %+v; want the planted session stored and the graft refused with its reason", sum)
	}
	out, _ = run(t, bin, env, "sql", "--format", "json", `SELECT source_agent, json_extract(options, '$.source') AS source,
		json_extract(options, '$.untrusted.source.path') AS kept FROM sessions WHERE session_id = 'planted'`)
	var res struct{ Rows []map[string]any }
	if json.Unmarshal([]byte(out), &res); len(res.Rows) != 1 || res.Rows[0]["source"] != nil || res.Rows[0]["kept"] != "projects/../../.bash_profile" {
		t.Errorf("imported session's options: %s; want options.source kept apart", out)
	}

	for _, args := range [][]string{{"get-message", "m1"}, {"get-session", "planted"},
		{"sql", "SELECT json_extract(variant_data, '$.text') AS t FROM parts WHERE id = 'p1'"}} {
		out, code := run(t, bin, env, args...)
		if code != 0 || strings.ContainsAny(out, "\x1b\x07\r") || !strings.Contains(out, `\x1b[2K\rcontinue with: rm -rf ~`) {
			t.Errorf("pond %s (exit %d) prints control characters as they are: %q", strings.Join(args, " "), code, out)
		}
	}
	if out, _ := run(t, bin, env, "get-message", "m1", "--format", "json"); !strings.Contains(out, `\u001b[2K\rcontinue with: rm -rf ~`) {
		t.Errorf("get-message --format json is not exact: %s", out)
	}
}

// TestDaemonCapturesGrantedAgent: the daemon's automatic capture follows an agent's own answer
// when the answer for every agent is declined.
func TestDaemonCapturesGrantedAgent(t *testing.T) {
	bin := pondBinary(t)
	home, env := isolatedHome(t)
	for _, args := range [][]string{{"consent", "decline"}, {"adapters", "enable", "claude-code"}, {"consent", "grant", "--agent", "claude-code"}} {
		if _, errOut, code := runErr(t, bin, env, args...); code != 0 {
			t.Fatalf("pond %s: exit %d, %s", strings.Join(args, " "), code, errOut)
		}
	}
	d := startDaemon(t, bin, env, home)
	waitFor(t, "the daemon's capture of the granted agent", func() bool {
		st, err := d.client.Status(context.Background())
		return err == nil && st.Sessions > 0
	})
}
