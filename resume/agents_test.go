package resume_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/resume"
	"github.com/pondhq/pond/session"
)

func piAdapter() adapters.Adapter {
	a, _ := all.ByName("pi-coding-agent")
	return a
}

// TestAgentLoaders loads restored files with the agents' own session code, installed from
// the npm registry by `make verify-agents` (scripts/verify-agents.sh), which sets
// POND_VERIFY_AGENTS to the install. Today: pi's SessionManager, the code `pi --session <file>`
// runs. Every fixture session of every agent is restored into pi (native for pi's own) and pi
// must see the session under the id the restore names, in its working directory, with the
// messages the restore wrote and every tool call answered.
func TestAgentLoaders(t *testing.T) {
	dir := os.Getenv("POND_VERIFY_AGENTS")
	if dir == "" {
		t.Skip("POND_VERIFY_AGENTS is not set: make verify-agents installs the agents' loaders and runs this")
	}
	ctx := context.Background()
	checked := 0
	for _, cs := range corpus(t) {
		t.Run(cs.agent+"/"+cs.name, func(t *testing.T) {
			var c adaptertest.Collector
			cs.read(t, &c)
			s := openStore(t)
			upsert(t, s, c.Events)
			for _, id := range roots(ctx, t, s) {
				o := restore(t, s, resume.Request{Session: id, To: "pi-coding-agent", OutDir: t.TempDir()})
				if o.Status != resume.OK {
					t.Fatalf("restore %s: %s: %s", id, o.Status, o.Message)
				}
				byPath := map[string]resume.File{}
				var paths []string
				for _, f := range o.Files {
					byPath[f.Path] = f
					paths = append(paths, f.Path)
				}
				for _, got := range piLoad(t, dir, paths) {
					f := byPath[got.File]
					if got.ID != f.ID {
						t.Errorf("%s: pi sees session %q, the restore named %q", got.File, got.ID, f.ID)
					}
					tr, err := s.ReadTranscript(ctx, f.Session)
					if err != nil {
						t.Fatal(err)
					}
					if got.Cwd != tr.Session.Project {
						t.Errorf("%s: pi's cwd %q, want %q", got.File, got.Cwd, tr.Session.Project)
					}
					if o.Native {
						continue // pi's own file: whatever pi made of the original it makes of this
					}
					// pi's view must be Pond's view of the same file: the texts, the calls,
					// and an answer for every call.
					var own adaptertest.Collector
					adaptertest.ReadRoot(t, piAdapter(), testEnv(""), filepath.Dir(filepath.Dir(filepath.Dir(got.File))), nil, &own)
					var mine []session.Event
					for _, e := range own.Events {
						if e.Key().SessionID == f.ID {
							mine = append(mine, e)
						}
					}
					want := conversationFrom(mine, false)
					if got.Texts != len(want.Texts) {
						t.Errorf("%s: pi sees %d texts, Pond reads %d (roles %v)", got.File, got.Texts, len(want.Texts), got.Roles)
					}
					if got.ToolCalls != len(want.Calls) || got.ToolResults != got.ToolCalls {
						t.Errorf("%s: pi sees %d calls and %d results, Pond reads %d calls; each must be answered once (roles %v)", got.File, got.ToolCalls, got.ToolResults, len(want.Calls), got.Roles)
					}
					checked++
				}
			}
		})
	}
	t.Logf("pi loaded %d foreign restores", checked)
}

type piSeen struct {
	File        string   `json:"file"`
	ID          string   `json:"id"`
	Cwd         string   `json:"cwd"`
	Roles       []string `json:"roles"`
	Texts       int      `json:"texts"`
	ToolCalls   int      `json:"toolCalls"`
	ToolResults int      `json:"toolResults"`
}

// piLoad runs scripts/verify-agents/pi-load.mjs (copied into the install) on the files.
func piLoad(t *testing.T, dir string, files []string) []piSeen {
	t.Helper()
	cmd := exec.Command("node", append([]string{filepath.Join(dir, "pi-load.mjs")}, files...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pi's loader failed: %v\n%s", err, stderr.String())
	}
	var seen []piSeen
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s piSeen
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("pi's loader printed %q: %v", strings.TrimSpace(sc.Text()), err)
		}
		seen = append(seen, s)
	}
	if len(seen) != len(files) {
		t.Fatalf("pi's loader reported %d of %d files:\n%s", len(seen), len(files), out)
	}
	return seen
}
