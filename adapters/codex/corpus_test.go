package codex

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/session"
)

// corpusDir holds real Codex files (see shared/fixtures/SOURCES.md); tests read them in place.
var corpusDir = filepath.Join("..", "..", "..", "shared", "fixtures", "codex")

// TestCorpus reads every Codex file of the shared fixtures: no error, every line kept once or
// reported, and a line-by-line read equal to a whole one.
func TestCorpus(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skipf("shared fixtures not available at %s: %v", corpusDir, err)
	}
	var paths []string
	err := filepath.WalkDir(corpusDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".jsonl.zst")) {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Skipf("no Codex files under %s", corpusDir)
	}
	for _, path := range paths {
		rel, _ := filepath.Rel(corpusDir, path)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			c, _ := readFile(t, path)
			checkLossless(t, path, c)
			for id, s := range c.Sessions() {
				t.Logf("session %s: agent %s, project %s, parent %q, created %s", id, s.SourceAgent, s.Project, s.ParentSessionID, s.CreatedAt.Format("2006-01-02T15:04:05Z07:00"))
			}
			t.Logf("%d lines: %v", len(fileLines(t, path)), c.Counts())
			for _, p := range c.Drift {
				t.Logf("unknown at line %d: %s", p.At.Line, p.What)
			}
			for _, p := range c.Bad {
				t.Logf("malformed line %d: %s", p.At.Line, p.What)
			}
			checkEveryLine(t, path, false)
		})
	}
}

// TestCorpusLocalTimeName checks the real 0.158.0 rollout, whose file name is in local time
// (UTC-3) while its records are in UTC: the session starts at session_meta's time, and the
// developer and environment messages are not searched.
func TestCorpusLocalTimeName(t *testing.T) {
	path := filepath.Join(corpusDir, "lazyagents", "0.158.0", "home", ".codex", "sessions", "2026", "09", "30",
		"rollout-2026-09-30T08-39-00-01a0f21c-5c40-7f72-9aa9-ef0b43570680.jsonl")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("shared fixture not available: %v", err)
	}
	c, _ := readFile(t, path)
	s := c.Sessions()["01a0f21c-5c40-7f72-9aa9-ef0b43570680"]
	if want := time.Date(2026, 9, 30, 11, 39, 0, 33e6, time.UTC); !s.CreatedAt.Equal(want) || s.Project != "/work/proj" {
		t.Errorf("session created %v in %q, want %v in /work/proj", s.CreatedAt, s.Project, want)
	}
	wantSearch := map[string]string{
		"msg_01a0f21c-5c56-7a72-b8aa-ea26ff2abb5e": "run echo fixture please",
		"msg_1": "The command printed fixture.",
	}
	if diff := cmp.Diff(wantSearch, searchTexts(c)); diff != "" {
		t.Errorf("search text (-want +got):\n%s", diff)
	}
	var results []part
	for _, p := range partsOf(c) {
		if p.Type == session.PartToolResult {
			results = append(results, p)
		}
	}
	if len(results) != 1 || results[0].Name != "exec_command" || results[0].CallID != "call_1" || results[0].Failure {
		t.Errorf("tool results %+v, want exec_command call_1, not failed", results)
	}
}
