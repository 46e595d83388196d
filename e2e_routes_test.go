package main

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// TestResumeThroughDaemon runs the same restores twice, once in-process and once with a daemon
// running: the same exit codes and outcomes, the same files. Each run has its own working
// directory (a relative --out-dir) and its own CODEX_HOME, which only the CLI's environment
// names; with the daemon the CLI's own data directory is empty, so only the daemon's archive can
// have answered.
func TestResumeThroughDaemon(t *testing.T) {
	bin := pondBinary(t)
	home, env := isolatedHome(t)
	existingCwd(t, home)
	if out, code := run(t, bin, env, "sync"); code != 0 {
		t.Fatalf("sync exited %d: %s", code, out)
	}
	const id = "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b"
	cases := []struct {
		name   string
		args   []string
		code   int
		status string
	}{
		{"foreign_rel_out_dir", []string{id, "--to", "pi-coding-agent", "--out-dir", "look"}, 0, "ok"},
		{"again", []string{id, "--to", "pi-coding-agent", "--out-dir", "look"}, 3, "target_exists"},
		{"native_codex_home", []string{id, "--to", "codex-cli"}, 0, "ok"},
		{"native_over_live_files", []string{id, "--to", "claude-code"}, 3, "target_exists"},
		{"not_stored", []string{"no-such-session", "--to", "codex-cli"}, 1, "not_stored"},
		{"unknown_agent", []string{id, "--to", "windsurf"}, 2, "unknown_agent"},
	}
	type result struct {
		code  int
		o     view.ResumeOutcome
		files map[string]string // path under the run's folder -> content
	}
	restoreAll := func(dir string, env []string) map[string]result {
		t.Helper()
		env = append(env, "CODEX_HOME="+filepath.Join(dir, "codex"))
		out := map[string]result{}
		for _, c := range cases {
			stdout, code := runIn(t, dir, bin, env, append([]string{"resume", "--format", "json"}, c.args...)...)
			r := result{code: code}
			if err := json.Unmarshal([]byte(stdout), &r.o); err != nil {
				t.Fatalf("%s: %v\n%s", c.name, err, stdout)
			}
			if code != c.code || string(r.o.Status) != c.status {
				t.Errorf("%s in %s: exit %d %s, want %d %s", c.name, dir, code, r.o.Status, c.code, c.status)
			}
			for _, f := range r.o.Files {
				if code == 0 && !strings.HasPrefix(f.Path, dir+"/") {
					t.Errorf("%s: %s is not under %s", c.name, f.Path, dir)
				}
			}
			// Each run has its own folder; the rest must be the same.
			r.o.Command = strings.ReplaceAll(r.o.Command, dir, "<dir>")
			r.files = filesUnder(t, dir)
			out[c.name] = r
		}
		return out
	}
	here := restoreAll(t.TempDir(), env)

	d := startDaemon(t, bin, env, home)
	var daemonEnv []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "XDG_DATA_HOME=") {
			daemonEnv = append(daemonEnv, kv)
		}
	}
	daemonEnv = append(daemonEnv, "XDG_DATA_HOME="+t.TempDir())
	there := restoreAll(t.TempDir(), daemonEnv)
	if st, err := d.client.Status(context.Background()); err != nil || st.Sessions == 0 {
		t.Fatalf("daemon status %+v, %v", st, err)
	}

	for _, c := range cases {
		a, b := here[c.name], there[c.name]
		if a.code != b.code || a.o.Status != b.o.Status || a.o.ID != b.o.ID || a.o.Command != b.o.Command || len(a.o.Files) != len(b.o.Files) {
			t.Errorf("%s: in-process exit %d %+v; through the daemon exit %d %+v", c.name, a.code, a.o, b.code, b.o)
		}
		if len(a.files) == 0 || !mapsEqual(a.files, b.files) {
			t.Errorf("%s: the files differ: in-process %d, through the daemon %d", c.name, len(a.files), len(b.files))
		}
	}
}

// filesUnder maps each file under dir, by its path relative to dir, to its content (with dir
// itself written <dir>).
func filesUnder(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = strings.ReplaceAll(string(b), dir, "<dir>")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestModelThroughDaemon: with a daemon running, `pond model install` and `disable` switch the
// daemon's vector search at once, with no restart, and the daemon announces each change.
func TestModelThroughDaemon(t *testing.T) {
	modelDir := os.Getenv("POND_TEST_MODEL_DIR")
	if modelDir == "" {
		t.Fatal("POND_TEST_MODEL_DIR must be set: run the tests with make test")
	}
	bin := pondBinary(t)
	home, env := isolatedHome(t)
	// The archive is embedded before the daemon starts, then semantic search is turned off.
	for _, args := range [][]string{{"sync"}, {"model", "install", "--from", modelDir}, {"optimize", "--embed"}, {"model", "disable"}} {
		if out, code := run(t, bin, env, args...); code != 0 {
			t.Fatalf("pond %v exited %d: %s", args, code, out)
		}
	}
	d := startDaemon(t, bin, env, home)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	changes := 0
	hello := make(chan struct{})
	go d.client.Watch(ctx, "", func(ev apitype.Event) error {
		mu.Lock()
		defer mu.Unlock()
		switch ev.Type {
		case apitype.EventHello:
			close(hello)
		case apitype.EventModel:
			changes++
		}
		return nil
	})
	<-hello
	sawChanges := func(n int) func() bool {
		return func() bool { mu.Lock(); defer mu.Unlock(); return changes >= n }
	}

	vector := func() (*view.SearchResult, error) {
		return d.client.Search(ctx, &apitype.SearchRequest{SearchRequest: view.SearchRequest{Query: "run the calculator tests", Mode: "vector"}})
	}
	refused := func(when string) {
		t.Helper()
		var ae *apitype.Error
		if _, err := vector(); !errors.As(err, &ae) || ae.Code != apitype.CodeValidation {
			t.Errorf("vector search %s: %v, want refused", when, err)
		}
	}
	refused("with semantic search off")

	if out, code := run(t, bin, env, "model", "install", "--from", modelDir); code != 0 {
		t.Fatalf("model install through the daemon exited %d: %s", code, out)
	}
	waitFor(t, "model_changed after install", sawChanges(1))
	res, err := vector()
	if err != nil || res.Mode != "vector" || len(res.Sessions) == 0 {
		t.Fatalf("vector search after install: %+v, %v", res, err)
	}
	out, code := run(t, bin, env, "search", "run the calculator tests", "--mode", "vector", "--format", "json")
	if code != 0 || !strings.Contains(out, `"mode": "vector"`) {
		t.Errorf("pond search --mode vector exited %d: %s", code, out)
	}
	out, code = run(t, bin, env, "model", "status", "--format", "json")
	var st view.ModelStatus
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || !st.Enabled || st.Embedded == nil || st.Embedded.ThisModel == 0 {
		t.Fatalf("model status through the daemon exited %d: %s", code, out)
	}
	if out, code := run(t, bin, env, "model", "verify"); code != 0 {
		t.Errorf("model verify through the daemon exited %d: %s", code, out)
	}

	if out, code := run(t, bin, env, "model", "disable"); code != 0 {
		t.Fatalf("model disable through the daemon exited %d: %s", code, out)
	}
	waitFor(t, "model_changed after disable", sawChanges(2))
	refused("after disable")
	if _, code := run(t, bin, env, "search", "calculator", "--mode", "vector"); code != 2 {
		t.Errorf("pond search --mode vector after disable exited %d, want 2", code)
	}
}
