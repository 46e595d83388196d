package resume_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/resume"
)

// aiderBatch checks restores into Aider all at once, in one Python process: each restored
// history is copied into a private folder when it is made (Aider appends to the history it
// restores), and at the end scripts/verify-agents/aider-load.py restores every one through
// Aider's own main and Coder as `aider --chat-history-file F --restore-chat-history --message
// PROMPT` does before it calls the model, and reports the messages it would send. A start of
// `aider` costs about 13 s (a pass of one CLI run per restore took 29 min), so the CLI itself
// resumes only spot checks against the fake model's chat completions (the first restore from
// each of two agents), besides the control run. Aider's native restores name their session by
// where the history is (resume.IDFromFileName), so no native one is compared, by the CLI or the
// batch; the batch still restores them, and each must hold a turn.
type aiderBatch struct {
	venv     string
	state    string
	restores int
	reqs     []aiderRequest
	spots    map[string]bool // the agents restored from whose spot check was taken
}

type aiderRequest struct {
	Key     string `json:"key"`
	History string `json:"history"`
}

// add copies the history of a restore's root into the batch and returns its key.
func (b *aiderBatch) add(t *testing.T, o *resume.Outcome, _ func(session string) string) map[string]string {
	t.Helper()
	if b.state == "" {
		dir, err := os.MkdirTemp("", "pond-aider-verify-")
		if err != nil {
			t.Fatal(err)
		}
		b.state = dir
	}
	b.restores++
	keys := map[string]string{}
	for _, f := range o.Files {
		if f.Sidecar || f.ID != o.ID {
			continue // Aider restores the one history its command names
		}
		data, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(b.state, fmt.Sprintf("r%d", b.restores))
		history := filepath.Join(dir, filepath.Base(f.Path))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(history, data, 0o600); err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("r%d:%s", b.restores, f.ID)
		keys[f.Path] = key
		b.reqs = append(b.reqs, aiderRequest{Key: key, History: history})
	}
	return keys
}

// spot says whether the CLI itself resumes this file too: the first restore from each of the
// first two agents restored from (a sub-agent session, "claude-code/subagent", counts as its
// agent's).
func (b *aiderBatch) spot(o *resume.Outcome, _ resume.File) bool {
	from, _, _ := strings.Cut(o.From, "/")
	if b.spots[from] || len(b.spots) == 2 {
		return false
	}
	b.spots[from] = true
	return true
}

// finish restores everything added through aider-load.py: what Aider would send of each
// history, by key. A control history that does not exist (in an empty folder, as the CLI's
// control run has it) must come back as restoring nothing.
func (b *aiderBatch) finish(t *testing.T) map[string]seen {
	defer os.RemoveAll(b.state)
	control := aiderRequest{Key: "control", History: filepath.Join(t.TempDir(), ".aider.chat.history.md")}
	var in bytes.Buffer
	for _, r := range append([]aiderRequest{control}, b.reqs...) {
		line, _ := json.Marshal(r)
		in.Write(line)
		in.WriteByte('\n')
	}
	script, err := filepath.Abs(filepath.Join("..", "scripts", "verify-agents", "aider-load.py"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	// Nothing is sent to a model: the API base is a closed port, so a request would fail.
	cmd := agentCmd(t.TempDir(), []string{"HOME=" + home, "OPENAI_API_BASE=http://127.0.0.1:9/v1",
		"OPENAI_API_KEY=pond-fake-key", "LITELLM_LOCAL_MODEL_COST_MAP=True"},
		filepath.Join(b.venv, "bin", "python"), script, verifyPrompt)
	cmd.Stdin = &in
	start := time.Now()
	out, stderr, err := runSplit(cmd, 10*time.Minute)
	if err != nil {
		t.Fatalf("aider-load.py: %v\n%s", err, stderr)
	}
	t.Logf("aider: %d histories of %d restores restored through Aider's main and Coder in %s", len(b.reqs), b.restores, time.Since(start).Round(time.Second))
	got, answered := map[string]seen{}, map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var p struct {
			Key     string   `json:"key"`
			Texts   []string `json:"texts"`
			Calls   []string `json:"calls"`
			Results int      `json:"results"`
			Error   string   `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("aider-load.py printed %q: %v", clip(line), err)
		}
		answered[p.Key] = true
		var s seen
		for _, x := range p.Texts {
			s.text(x)
		}
		s.Texts = slices.DeleteFunc(s.Texts, func(x string) bool { return aiderFillers[x] })
		s.Calls, s.Results = p.Calls, p.Results
		// As with the CLI (aiderResume): Aider starts afresh on a history it cannot restore,
		// so a request holding no turn of the history is a failure.
		if p.Error == "" && len(s.Texts) == 0 {
			p.Error = "aider restored no turn of the history"
		}
		if p.Key == control.Key {
			if p.Error == "" {
				t.Errorf("Aider restores %s, which does not exist: %s", control.History, clip(line))
			}
			continue
		}
		if p.Error != "" {
			t.Errorf("Aider cannot restore %s: %s", p.Key, p.Error)
			continue
		}
		got[p.Key] = s
	}
	for _, r := range append([]aiderRequest{control}, b.reqs...) {
		if !answered[r.Key] {
			t.Errorf("aider-load.py said nothing of %s", r.Key)
		}
	}
	return got
}

// runSplit is runAgentFor with the command's stdout apart from its stderr, for a command that
// answers on stdout and lets the agent's code print to stderr.
func runSplit(cmd *exec.Cmd, limit time.Duration) (stdout, stderr string, err error) {
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return "", "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(limit):
		_ = cmd.Process.Kill()
		<-done
		err = fmt.Errorf("timed out after %s", limit)
	}
	return out.String(), errs.String(), err
}
