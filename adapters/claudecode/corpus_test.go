package claudecode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

// corpusDir holds real Claude Code transcripts (see its SOURCES.md); it is not part of the repo.
var corpusDir = filepath.Join("..", "..", "..", "shared", "fixtures", "claude-code")

// TestCorpus reads every transcript of the shared fixtures, in the agent's layout or not, and
// checks that every line is accounted for: each line is either reported malformed or kept
// verbatim exactly once (as a message, or on the first part a merged assistant line added).
func TestCorpus(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skipf("no shared fixtures at %s: %v", corpusDir, err)
	}
	files := 0
	err := filepath.WalkDir(corpusDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(d.Name(), ".jsonl") {
			return err
		}
		files++
		key, _ := filepath.Rel(corpusDir, path)
		t.Run(filepath.ToSlash(key), func(t *testing.T) {
			var c adaptertest.Collector
			cur := readFile(t, filepath.ToSlash(key), path, adapters.Cursor{}, &c)
			bad := map[int]bool{}
			for _, p := range c.Bad {
				bad[p.At.Line] = true
			}
			lines := fileLines(t, path, bad)
			kept := keptRecords(&c)
			if diff := cmp.Diff(lines, kept); diff != "" {
				t.Errorf("kept records differ from the lines (-lines +kept):\n%s", diff)
			}
			if len(c.Sessions()) != 1 {
				t.Errorf("%d sessions, want 1", len(c.Sessions()))
			}
			merged := len(kept) - len(c.Messages())
			for id, s := range c.Sessions() {
				t.Logf("session %s (parent %q, %s, project %q): %d lines = %d messages + %d merged assistant lines + %d malformed; %d parts; unknown: %v; cursor at line %d, state %d bytes",
					id, s.ParentSessionID, s.SourceAgent, s.Project, len(lines)+len(c.Bad), len(c.Messages()), merged, len(c.Bad), len(c.Parts()), drift(&c), cur.Line, len(cur.State))
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no transcripts under %s", corpusDir)
	}
}

func drift(c *adaptertest.Collector) []string {
	var out []string
	for _, p := range c.Drift {
		out = append(out, p.What)
	}
	return out
}
