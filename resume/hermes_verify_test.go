package resume_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/resume"
)

// hermesBatch checks restores into Hermes Agent all at once, in one Python process: each
// restore's root is copied into a private folder when it is made, and at the end
// scripts/verify-agents/hermes-load.py resumes every restored session through Hermes's own
// SessionDB as `hermes chat --resume` does before it calls the model (resolve the session the
// resume goes on from, load its live rows, repair the sequence with the prompt appended). A
// start-up of `hermes` costs seconds to a minute under load, so the CLI itself resumes only
// spot checks (spot: the first native restore and the first foreign restore with sub-agents)
// against the fake chat-completions server, besides the control run.
type hermesBatch struct {
	venv     string
	state    string
	restores int
	reqs     []hermesRequest
	spots    map[string]bool // the spot checks taken: "native", "subagents"
}

type hermesRequest struct {
	Key string `json:"key"`
	DB  string `json:"db"`
	ID  string `json:"id"`
	// A native restore may go on from another session of its chain (a compression
	// continuation's tip); a foreign one has none.
	Native bool `json:"native"`
}

// add copies one restore into the batch and returns the key of each of its files.
func (b *hermesBatch) add(t *testing.T, o *resume.Outcome, _ func(session string) string) map[string]string {
	t.Helper()
	if b.state == "" {
		dir, err := os.MkdirTemp("", "pond-hermes-verify-")
		if err != nil {
			t.Fatal(err)
		}
		b.state = dir
	}
	b.restores++
	root := filepath.Join(b.state, fmt.Sprintf("r%d", b.restores))
	if err := copyTree(o.Root, root); err != nil {
		t.Fatalf("copy the restore %s: %v", o.Root, err)
	}
	// The store a file's session is resumed from: the file itself when it is one (rows), else
	// the store of the profile the restore resumes in.
	profileDB := filepath.Join(root, "state.db")
	if p := hermesProfile(o); p != "" {
		profileDB = filepath.Join(root, "profiles", p, "state.db")
	}
	keys := map[string]string{}
	for _, f := range o.Files {
		if f.Sidecar || f.ID != o.ID {
			continue // Hermes resumes a session by its root's id, sub-agents in the store beside it
		}
		db := profileDB
		if filepath.Base(f.Path) == "state.db" {
			rel, err := filepath.Rel(o.Root, f.Path)
			if err != nil || strings.HasPrefix(rel, "..") {
				t.Fatalf("%s is not under the restore's root %s", f.Path, o.Root)
			}
			db = filepath.Join(root, rel)
		}
		key := fmt.Sprintf("r%d:%s", b.restores, f.ID)
		keys[f.Path] = key
		b.reqs = append(b.reqs, hermesRequest{Key: key, DB: db, ID: f.ID, Native: o.Native})
	}
	return keys
}

// spot says whether the CLI itself resumes this file too.
func (b *hermesBatch) spot(o *resume.Outcome, f resume.File) bool {
	kind := "native"
	if !o.Native {
		if len(o.Files) < 2 {
			return false
		}
		kind = "subagents"
	}
	if b.spots[kind] {
		return false
	}
	b.spots[kind] = true
	return true
}

// hermesProfile is the profile a restore resumes in (its command's --profile), "" for the
// default one.
func hermesProfile(o *resume.Outcome) string {
	if len(o.Argv) > 0 {
		if a := o.Argv[len(o.Argv)-1]; len(a) > 2 && a[1] == "--profile" {
			return a[2]
		}
	}
	return ""
}

// finish resumes everything added through hermes-load.py: what Hermes made of each file, by key.
func (b *hermesBatch) finish(t *testing.T) map[string]seen {
	defer os.RemoveAll(b.state)
	const control = "r1:0b5e7a1e-0000-4000-8000-00000000c0de"
	reqs := append([]hermesRequest{{Key: control, DB: b.reqs[0].DB, ID: strings.TrimPrefix(control, "r1:")}}, b.reqs...)
	var in strings.Builder
	for _, r := range reqs {
		line, _ := json.Marshal(r)
		in.Write(line)
		in.WriteByte('\n')
	}
	script, err := filepath.Abs(filepath.Join("..", "scripts", "verify-agents", "hermes-load.py"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := agentCmd(t.TempDir(), []string{"HOME=" + home, "HERMES_HOME=" + home, "HERMES_DISABLE_LAZY_INSTALLS=1"},
		filepath.Join(b.venv, "bin", "python"), script, verifyPrompt)
	cmd.Stdin = strings.NewReader(in.String())
	start := time.Now()
	out, err := runAgentFor(cmd, 10*time.Minute)
	if err != nil {
		t.Fatalf("hermes-load.py: %v\n%s", err, out)
	}
	t.Logf("hermes: %d sessions of %d restores resumed through SessionDB in %s", len(b.reqs), b.restores, time.Since(start).Round(time.Second))
	native := map[string]bool{}
	for _, r := range b.reqs {
		native[r.Key] = r.Native
	}
	got := map[string]seen{}
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "{") {
			continue // Hermes's own notices
		}
		var p struct {
			Key     string   `json:"key"`
			ID      string   `json:"id"`
			Texts   []string `json:"texts"`
			Calls   []string `json:"calls"`
			Results int      `json:"results"`
			Error   string   `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("hermes-load.py printed %q: %v", clip(line), err)
		}
		if p.Key == control {
			if p.Error == "" {
				t.Errorf("Hermes resumes session %s, which was never restored: %s", control, clip(line))
			}
			continue
		}
		if p.Error != "" {
			t.Errorf("Hermes cannot resume %s: %s", p.Key, p.Error)
			continue
		}
		if _, id, _ := strings.Cut(p.Key, ":"); p.ID != id && !native[p.Key] {
			t.Errorf("Hermes resumes %s from session %s instead", p.Key, p.ID)
		}
		var s seen
		for _, x := range p.Texts {
			s.text(x)
		}
		s.Calls, s.Results = p.Calls, p.Results
		got[p.Key] = s
	}
	for _, r := range b.reqs {
		if _, ok := got[r.Key]; !ok {
			t.Errorf("hermes-load.py said nothing of %s", r.Key)
		}
	}
	return got
}

// copyTree copies the regular files and folders under from into to.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o700)
		case d.Type().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, data, 0o600)
		}
		return nil
	})
}
