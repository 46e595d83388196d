package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/adapters/claudecode"
)

// isolatedHome is a home directory holding one agent's fixture tree, and an environment that
// points every Pond location inside it.
func isolatedHome(t *testing.T) (home string, env []string) {
	t.Helper()
	home = t.TempDir()
	env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local/share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local/state"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_RUNTIME_DIR=" + filepath.Join(home, "run"),
		"POND_ONNXRUNTIME_LIB=" + os.Getenv("POND_ONNXRUNTIME_LIB")}
	adaptertest.FixtureHome(t, envOf(home, env), []adapters.Adapter{claudecode.Adapter{}}, nil)
	return home, env
}

// envOf is what an adapter sees of the environment env (NAME=value pairs) of a pond process.
func envOf(home string, env []string) adapters.Env {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	return adapters.Env{GOOS: runtime.GOOS, Home: home, Getenv: func(k string) string { return vars[k] }}
}

func run(t *testing.T, bin string, env []string, args ...string) (stdout string, code int) {
	t.Helper()
	return runIn(t, "", bin, env, args...)
}

// runIn runs pond in the working directory dir ("" for the test's).
func runIn(t *testing.T, dir, bin string, env []string, args ...string) (stdout string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = env, dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("pond %v: %v", args, err)
	}
	if testing.Verbose() {
		t.Logf("pond %s -> %d\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
	}
	return out.String(), code
}

// withoutIngest drops options.pond.ingest (each archive stamps its own) from an export, after
// folding back what an import kept apart under options.untrusted (the exporting archive's
// options.source and options.pond).
func withoutIngest(t *testing.T, export string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(export), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("export line %q: %v", line, err)
		}
		if o, ok := obj["options"].(map[string]any); ok {
			if u, ok := o["untrusted"].(map[string]any); ok {
				delete(o, "untrusted")
				for k, v := range u {
					o[k] = v
				}
			}
			if p, ok := o["pond"].(map[string]any); ok {
				delete(p, "ingest")
				if len(p) == 0 {
					delete(o, "pond")
				}
			}
		}
		out, _ := json.Marshal(obj)
		b.Write(out)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestEndToEnd drives the real binary in an isolated home: first sync discovers Claude Code,
// a second sync finds everything fresh, status and export see the sessions, an export imports
// into a fresh archive with nothing lost (its provenance kept apart), and doctor --verify finds
// no drift.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the pond binary")
	}
	bin := pondBinary(t)
	home, env := isolatedHome(t)

	out, code := run(t, bin, env, "sync", "--format", "json")
	if code != 0 {
		t.Fatalf("first sync exited %d: %s", code, out)
	}
	var rep struct {
		Adapters []struct {
			Adapter  string
			Inserted struct{ Sessions, Messages, Parts int }
			Skipped  map[string]int
		}
		Outcome string
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("sync --format json: %v\n%s", err, out)
	}
	if len(rep.Adapters) != 1 || rep.Adapters[0].Adapter != "claude-code" || rep.Adapters[0].Inserted.Sessions == 0 {
		t.Fatalf("first sync: %+v; want claude-code discovered and captured", rep)
	}
	firstSessions := rep.Adapters[0].Inserted.Sessions
	cfg, err := os.ReadFile(filepath.Join(home, ".config", "pond", "config.toml"))
	if err != nil || !strings.Contains(string(cfg), "[adapters.claude-code]") {
		t.Fatalf("config after bootstrap: %s, %v", cfg, err)
	}

	out, _ = run(t, bin, env, "sync", "--format", "json")
	json.Unmarshal([]byte(out), &rep)
	if rep.Adapters[0].Inserted.Sessions != 0 || rep.Adapters[0].Skipped["fresh"] == 0 {
		t.Fatalf("second sync: %+v; want everything fresh", rep)
	}

	out, _ = run(t, bin, env, "status", "--format", "json", "--include-subagents")
	var st struct{ Sessions, Messages int64 }
	if json.Unmarshal([]byte(out), &st); st.Sessions != int64(firstSessions) {
		t.Fatalf("status: %s; want %d sessions", out, firstSessions)
	}
	// Every agent Pond knows, with its state, in the text and in the JSON.
	var known struct{ Adapters []struct{ Name string } }
	json.Unmarshal([]byte(out), &known)
	text, _ := run(t, bin, env, "status")
	if len(known.Adapters) != len(all.Names()) || !strings.Contains(text, fmt.Sprintf("agents: %d known\n", len(all.Names()))) {
		t.Errorf("status lists %d agents in JSON, want %d:\n%s", len(known.Adapters), len(all.Names()), text)
	}
	for _, name := range all.Names() {
		if !strings.Contains(text, "\n  "+name+" ") {
			t.Errorf("status does not list the agent %s:\n%s", name, text)
		}
	}

	export, code := run(t, bin, env, "export")
	if n := strings.Count("\n"+export, "\n{\"kind\":\"session\""); code != 0 || n != firstSessions {
		t.Fatalf("export: %d sessions (exit %d), want %d", n, code, firstSessions)
	}
	exportFile := filepath.Join(t.TempDir(), "archive.jsonl")
	os.WriteFile(exportFile, []byte(export), 0o600)
	other := append(append([]string{}, env...), "POND_DATA_DIR="+filepath.Join(t.TempDir(), "data"), "POND_STATE_DIR="+filepath.Join(t.TempDir(), "state"))
	if _, code := run(t, bin, other, "import", exportFile); code != 0 {
		t.Fatalf("import exited %d", code)
	}
	again, _ := run(t, bin, other, "export")
	for _, line := range strings.Split(strings.TrimSpace(again), "\n") {
		var obj struct{ Options map[string]json.RawMessage }
		json.Unmarshal([]byte(line), &obj)
		if _, ok := obj.Options["source"]; ok {
			t.Fatalf("the import kept the export's options.source as its own: %.300s", line)
		}
	}
	if !strings.Contains(again, `"untrusted":{`) {
		t.Error("the import did not keep the export's provenance apart")
	}
	if a, b := withoutIngest(t, export), withoutIngest(t, again); a != b {
		t.Fatal("export of the re-imported archive differs from the original export (ingest stamps and what was kept apart aside)")
	}

	if out, code := run(t, bin, env, "doctor", "--verify"); code != 0 {
		t.Fatalf("doctor --verify exited %d:\n%s", code, out)
	}
	if _, code := run(t, bin, env, "sync", "no-such-agent"); code != 2 {
		t.Fatalf("sync of an unknown adapter exited %d, want 2", code)
	}
	// A --path one level too deep finds nothing, and says where it looked.
	tooDeep := filepath.Join(home, ".claude", "projects")
	if out, code := run(t, bin, env, "sync", "claude-code", "--path", tooDeep); code != 0 || !strings.Contains(out, "no sessions found under "+tooDeep) {
		t.Fatalf("sync of an empty root exited %d:\n%s", code, out)
	}
}

// TestSearchAndRead drives search, get-session and get-message through the real binary: a
// synced session is found, its page read from the hit's message id, the message read in full,
// and the exit codes tell a bad request (2) from an unknown id (1).
func TestSearchAndRead(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the pond binary")
	}
	bin := pondBinary(t)
	_, env := isolatedHome(t)
	if out, code := run(t, bin, env, "sync"); code != 0 {
		t.Fatalf("sync exited %d: %s", code, out)
	}
	out, code := run(t, bin, env, "search", "calc_test.go fails", "--format", "json")
	if code != 0 {
		t.Fatalf("search exited %d: %s", code, out)
	}
	var res struct {
		Sessions []struct {
			SessionID string `json:"session_id"`
			Matches   []struct {
				MessageID string `json:"message_id"`
				Text      string `json:"text"`
			} `json:"matches"`
		} `json:"sessions"`
		SearchableInScope int `json:"searchable_in_scope"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 1 || res.SearchableInScope == 0 || !strings.Contains(res.Sessions[0].Matches[0].Text, "calc_test.go") {
		t.Fatalf("search result: %s", out)
	}
	hit := res.Sessions[0].Matches[0].MessageID

	text, code := run(t, bin, env, "search", "calc_test.go fails")
	if code != 0 || !strings.Contains(text, "**calc_test.go**") || !strings.Contains(text, res.Sessions[0].SessionID) {
		t.Errorf("text search (%d): %s", code, text)
	}
	page, code := run(t, bin, env, "get-session", hit, "--limit", "3")
	if code != 0 || !strings.Contains(page, "is a message id: this page starts at it") || !strings.Contains(page, "-> ") {
		t.Errorf("get-session from a message id (%d): %s", code, page)
	}
	msg, code := run(t, bin, env, "get-message", hit, "--format", "json")
	if code != 0 || !strings.Contains(msg, `"target_parts"`) {
		t.Errorf("get-message (%d): %s", code, msg)
	}
	if out, code := run(t, bin, env, "search", "x", "--mode", "vector"); code != 2 {
		t.Errorf("vector search without a model exited %d: %s", code, out)
	}
	if out, code := run(t, bin, env, "get-session", "no-such-id"); code != 1 {
		t.Errorf("unknown id exited %d: %s", code, out)
	}
	if out, code := run(t, bin, env, "get-message", res.Sessions[0].SessionID); code != 2 {
		t.Errorf("get-message of a session id exited %d: %s", code, out)
	}
}
