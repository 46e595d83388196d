package adaptertest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// GenuineDir is the folder of a's genuine fixture: files its agent's own code wrote against the
// fake model (scripts/fixtures.sh), laid out as under the agent's root, in
// testdata/genuine/<adapter name>. The test fails when there is none.
func GenuineDir(t testing.TB, a adapters.Adapter) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "testdata", "genuine", a.Name())
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("no genuine fixture for %s (scripts/fixtures.sh %s writes it): %v", a.Name(), a.Name(), err)
	}
	return dir
}

// GenuineTexts are texts every genuine run holds: the fake model's scripted answers
// (scripts/fixtures/<agent>.json) and the prompts the script gives the agent.
var GenuineTexts = []string{"list the files here", "There is one file, notes.txt.", "now say done", "Done."}

// CheckGenuine reads a's genuine fixture and checks what every agent's own output must give:
// nothing malformed and no format drift (an unknown record type or key is a sign the agent
// moved on), the conversation's texts searchable, at least one tool call answered by a result
// with its call id, and, when a restores, every session restored natively reading back as
// stored. It returns what was read, for the adapter's own checks.
func CheckGenuine(t *testing.T, a adapters.Adapter) *Collector {
	t.Helper()
	return CheckGenuineDB(t, a, adapters.Env{}, nil, nil)
}

// CheckGenuineDB is CheckGenuine for an agent that keeps its sessions in SQLite: the genuine
// fixture holds each database as the SQL script of the tables the adapter reads (databases:
// the database's path → its script's, both relative to the fixture), which create builds in
// a copy of the fixture, read through env (its OpenSQLite).
func CheckGenuineDB(t *testing.T, a adapters.Adapter, env adapters.Env, create CreateDB, databases map[string]string) *Collector {
	t.Helper()
	root := GenuineDir(t, a)
	if len(databases) > 0 {
		root = filepath.Join(t.TempDir(), a.Name())
		if err := os.CopyFS(root, os.DirFS(GenuineDir(t, a))); err != nil {
			t.Fatal(err)
		}
		for db, script := range databases {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(script)))
			if err != nil {
				t.Fatal(err)
			}
			if err := create(filepath.Join(root, filepath.FromSlash(db)), string(b)); err != nil {
				t.Fatalf("%s: build %s: %v", a.Name(), db, err)
			}
		}
	}
	var c Collector
	ReadRoot(t, a, env, root, nil, &c)
	if len(c.Bad) > 0 {
		t.Errorf("%s's own files: malformed records %v", a.Name(), c.Bad)
	}
	if len(c.Drift) > 0 {
		t.Errorf("%s's own files: unknown records or keys %v", a.Name(), c.Drift)
	}
	if len(c.Sessions()) == 0 {
		t.Fatalf("no session in %s", root)
	}
	var search strings.Builder
	for _, m := range c.Messages() {
		search.WriteString(session.SearchText(&m, c.PartsOf(m.SessionID, m.ID)))
		search.WriteByte('\n')
	}
	for _, want := range GenuineTexts {
		if !strings.Contains(search.String(), want) {
			t.Errorf("no searchable text holds %q", want)
		}
	}
	calls, answered := map[string]bool{}, 0
	for _, p := range c.Parts() {
		if p.Type == session.PartToolCall {
			calls[p.CallID] = true
		}
	}
	for _, p := range c.Parts() {
		if p.Type == session.PartToolResult && calls[p.CallID] {
			answered++
		}
	}
	if len(calls) == 0 || answered == 0 {
		t.Errorf("%d tool calls, %d results answering them; want a call and its result", len(calls), answered)
	}
	enc, ok := a.(restore.Encoder)
	if !ok {
		return &c
	}
	ts := c.Transcripts()
	for _, batch := range batches(ts) {
		t.Run("native/"+strings.ReplaceAll(batch[0].Session.ID, "/", "_"), func(t *testing.T) {
			root, files, _ := encode(t, Config{Adapter: a}, enc, batch, true)
			var want []session.Event
			for _, f := range files {
				if f.Sidecar {
					continue
				}
				for _, id := range append([]string{f.Session}, f.Includes...) {
					want = append(want, Events(ts[id])...)
				}
			}
			var back Collector
			ReadRoot(t, a, env, root, nil, &back)
			CheckNativeRestore(t, want, files, &back, false)
		})
	}
	return &c
}
