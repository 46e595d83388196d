package gemini

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

// corpusDir holds real Gemini CLI files gathered from public repositories
// (see shared/fixtures/SOURCES.md); they are read in place, never copied here.
var corpusDir = filepath.Join("..", "..", "..", "shared", "fixtures", "gemini")

// TestCorpus reads every Gemini file of the shared corpus: none may fail, and what each gives is
// logged.
func TestCorpus(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skipf("shared fixture corpus not available: %v", err)
	}
	var files []string
	err := filepath.WalkDir(corpusDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".jsonl")) {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skipf("no Gemini files under %s", corpusDir)
	}
	for _, path := range files {
		rel, _ := filepath.Rel(corpusDir, path)
		t.Run(rel, func(t *testing.T) {
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			src := adapters.Source{Key: rel, Path: path, Stamp: adapters.FileStamp(info), Size: info.Size(), ModTime: info.ModTime()}
			var c adaptertest.Collector
			cur, err := New().Read(context.Background(), adapters.Env{}, src, adapters.Cursor{}, &c)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if cur.Stamp != src.Stamp {
				t.Errorf("cursor stamp %q, want the source's %q", cur.Stamp, src.Stamp)
			}
			if len(c.Sessions()) != 1 {
				t.Errorf("got %d sessions, want 1", len(c.Sessions()))
			}
			t.Logf("%s: %s", rel, c.Counts())
			for _, s := range c.Sessions() {
				t.Logf("  session %s agent %s project %s created %s", s.ID, s.SourceAgent, s.Project, s.CreatedAt.Format("2006-01-02T15:04:05Z07:00"))
			}
			for _, p := range c.Bad {
				t.Logf("  malformed line %d: %s", p.At.Line, p.What)
			}
			for _, p := range c.Drift {
				t.Logf("  unknown: %s", p.What)
			}
			// A second read from the cursor finds nothing new.
			var again adaptertest.Collector
			if _, err := New().Read(context.Background(), adapters.Env{}, src, cur, &again); err != nil || len(again.Events) != 0 {
				t.Errorf("re-read from the cursor: got %d events, %v; want none", len(again.Events), err)
			}
		})
	}
}
