package resume_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/resume"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store"
	"github.com/pondhq/pond/store/sqlite"
)

// archive serves a real store to resume (what `pond resume` does).
type archive struct{ s *store.Store }

func (a archive) Transcript(ctx context.Context, id string) (*resume.Transcript, error) {
	t, err := a.s.ReadTranscript(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, resume.ErrNotStored
	}
	if err != nil {
		return nil, err
	}
	return (*resume.Transcript)(t), nil
}

func (a archive) Children(ctx context.Context, id string) ([]string, error) {
	return a.s.ChildSessionIDs(ctx, id)
}

func openStore(t testing.TB) *store.Store {
	t.Helper()
	dir := t.TempDir()
	s, err := store.Open(context.Background(), store.Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// upsert stores events as the sync engine does: stamped with the adapter that read them (the
// agent of the first session, without its sub-kind).
func upsert(t testing.TB, s *store.Store, events []session.Event) {
	t.Helper()
	adapter := ""
	for _, e := range events {
		if e.Session != nil {
			adapter, _, _ = strings.Cut(e.Session.SourceAgent, "/")
			break
		}
	}
	upsertAs(t, s, events, adapter)
}

// upsertAs stores events stamped as stored by adapter ("api" for the ingest route, "import"
// for `pond import`).
func upsertAs(t testing.TB, s *store.Store, events []session.Event, adapter string) {
	t.Helper()
	out, err := s.Upsert(context.Background(), events, store.Stamp{Adapter: adapter})
	if err != nil {
		t.Fatal(err)
	}
	if n := out.Rejected.Sessions + out.Rejected.Messages + out.Rejected.Parts; n > 0 {
		t.Fatalf("store rejected %d events: %+v", n, out.Rows)
	}
}

// rowsEnv is the environment of a restore in these tests: no home, and the store's writer of
// rows for agents restored into their database (Hermes).
var rowsEnv = adapters.Env{WriteRows: sqlite.WriteAgentRows}

func testEnv(home string) adapters.Env {
	env := adaptertest.FakeEnv("linux", home, nil)
	env.OpenSQLite = sqlite.OpenAgentDB
	env.WriteRows = sqlite.WriteAgentRows
	return env
}

// sharedFixtures is ../shared/fixtures, outside the repository.
var sharedFixtures = filepath.Join("..", "..", "shared", "fixtures")

// corpusSource is one fixture source: a file read on its own, or every source of a root.
type corpusSource struct {
	agent string
	name  string // for subtest names
	read  func(t *testing.T, c *adaptertest.Collector)
}

// fixtureSource reads an adapter's own fixture: in place, or from a copy when it holds
// databases to build.
func fixtureSource(a adapters.Adapter) corpusSource {
	return corpusSource{agent: a.Name(), name: "testdata", read: func(t *testing.T, c *adaptertest.Collector) {
		root := adaptertest.FixtureDir(t, a)
		switch {
		case a.Capabilities().Searched:
			// Files found by a search have no id of their own: their sessions are named by
			// where the file is (Aider's history). Read from one place whatever the checkout's
			// path, the golden files stay the same on every machine.
			root = filepath.Join(os.TempDir(), "pond-resume-fixture-"+a.Name())
			fixtureCopy(t, a, root)
		case len(adaptertest.Fixture(t, a).Databases) > 0:
			root = filepath.Join(t.TempDir(), "root")
			adaptertest.CopyFixture(t, a, root, sqlite.CreateFromScript)
		}
		adaptertest.ReadRoot(t, a, testEnv(root), root, nil, c)
	}}
}

var fixtureCopies sync.Map // adapter name → *sync.Once

// fixtureCopy copies a's fixture to root once per test process.
func fixtureCopy(t *testing.T, a adapters.Adapter, root string) {
	once, _ := fixtureCopies.LoadOrStore(a.Name(), new(sync.Once))
	once.(*sync.Once).Do(func() {
		if err := os.RemoveAll(root); err != nil {
			t.Fatal(err)
		}
		adaptertest.CopyFixture(t, a, root, sqlite.CreateFromScript)
	})
}

// rootSource reads every source an adapter finds under root.
func rootSource(agent, name, root string, env func(t *testing.T) (string, adapters.Env)) corpusSource {
	return corpusSource{agent: agent, name: name, read: func(t *testing.T, c *adaptertest.Collector) {
		a, _ := all.ByName(agent)
		r, e := root, testEnv(root)
		if env != nil {
			r, e = env(t)
		}
		adaptertest.ReadRoot(t, a, e, r, nil, c)
	}}
}

// fileSource reads one file as a source keyed by its path below base.
func fileSource(agent, base, path string) corpusSource {
	key, _ := filepath.Rel(base, path)
	return corpusSource{agent: agent, name: filepath.ToSlash(key), read: func(t *testing.T, c *adaptertest.Collector) {
		a, _ := all.ByName(agent)
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		src := adapters.Source{Key: filepath.ToSlash(key), Path: path, Stamp: adapters.FileStamp(info), Size: info.Size(), ModTime: info.ModTime()}
		if _, err := a.Read(context.Background(), testEnv(base), src, adapters.Cursor{}, c); err != nil {
			t.Fatal(err)
		}
	}}
}

// filesUnder lists the files below dir whose names end with one of exts.
func filesUnder(dir string, exts ...string) []string {
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		for _, e := range exts {
			if strings.HasSuffix(d.Name(), e) {
				out = append(out, path)
				break
			}
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// openCodeRoot is an OpenCode data folder in a temporary directory: the SQL dump as
// opencode.db and a storage tree copied in.
func openCodeRoot(script, storage string) func(t *testing.T) (string, adapters.Env) {
	return func(t *testing.T) (string, adapters.Env) {
		root := t.TempDir()
		if script != "" {
			b, err := os.ReadFile(script)
			if err != nil {
				t.Fatal(err)
			}
			if err := sqlite.CreateFromScript(filepath.Join(root, "opencode.db"), string(b)); err != nil {
				t.Fatal(err)
			}
		}
		if storage != "" {
			if err := os.CopyFS(filepath.Join(root, "storage"), os.DirFS(storage)); err != nil {
				t.Fatal(err)
			}
		}
		return root, testEnv(root)
	}
}

// corpus lists every fixture session source: each registered adapter's own fixture and, when
// present, ../shared/fixtures.
func corpus(t *testing.T) []corpusSource {
	var cs []corpusSource
	for _, a := range all.Adapters() {
		cs = append(cs, fixtureSource(a))
	}
	cs = append(cs, fileSource("codex-cli", "../adapters/codex/testdata", "../adapters/codex/testdata/compressed/rollout-2026-02-01T08-00-00-0195a0c4-9999-7888-8777-666655554444.jsonl"))
	// A Codex thread in two rollout files (one session), and pi 1.x's own file with context edits.
	cs = append(cs, rootSource("codex-cli", "paginated", "../adapters/codex/testdata/paginated", nil),
		rootSource("pi-coding-agent", "genuine", "../testdata/genuine/pi-coding-agent", nil))
	sh := sharedFixtures
	if _, err := os.Stat(sh); err != nil {
		t.Logf("no shared fixtures at %s (%v): only the adapters' own testdata", sh, err)
		return cs
	}
	cs = append(cs,
		rootSource("claude-code", "shared", filepath.Join(sh, "claude-code"), nil),
		rootSource("claude-code", "shared-lazyagents", filepath.Join(sh, "claude-code/lazyagents/2.1.284/home/.claude"), nil),
		rootSource("codex-cli", "shared-lazyagents", filepath.Join(sh, "codex/lazyagents/0.158.0/home/.codex"), nil),
		rootSource("opencode", "shared-lazyagents", "", openCodeRoot(filepath.Join(sh, "opencode/lazyagents/1.18.33/home/.local/share/opencode/opencode.sql"), "")),
		rootSource("opencode", "shared-storage_v2", "", openCodeRoot("", filepath.Join(sh, "opencode/agent-sessions/storage_v2"))),
		rootSource("opencode", "shared-storage_legacy", "", openCodeRoot("", filepath.Join(sh, "opencode/agent-sessions/storage_legacy"))),
		rootSource("pi-coding-agent", "shared-lazyagents", filepath.Join(sh, "pi/lazyagents/0.87.1/home/.pi/agent"), nil),
	)
	base := filepath.Join(sh, "claude-code/agent-sessions")
	for _, f := range filesUnder(base, ".jsonl") {
		cs = append(cs, fileSource("claude-code", base, f))
	}
	base = filepath.Join(sh, "codex/agent-sessions")
	for _, f := range filesUnder(base, ".jsonl") {
		cs = append(cs, fileSource("codex-cli", base, f))
	}
	base = filepath.Join(sh, "gemini/agent-sessions")
	for _, f := range filesUnder(base, ".json", ".jsonl") {
		cs = append(cs, fileSource("gemini-cli", base, f))
	}
	base = filepath.Join(sh, "qwen-code/agent-sessions")
	for _, f := range filesUnder(base, ".jsonl") {
		cs = append(cs, fileSource("qwen-code", base, f))
	}
	base = filepath.Join(sh, "copilot-cli/agent-sessions")
	for _, f := range filesUnder(base, ".jsonl") {
		cs = append(cs, fileSource("copilot-cli", base, f))
	}
	base = filepath.Join(sh, "cursor/agent-sessions")
	for _, f := range filesUnder(base, ".jsonl") {
		cs = append(cs, fileSource("cursor", base, f))
	}
	base = filepath.Join(sh, "openclaw")
	for _, f := range filesUnder(filepath.Join(base, "agent-sessions"), ".jsonl") {
		cs = append(cs, fileSource("openclaw", base, f))
	}
	base = filepath.Join(sh, "pi")
	for _, f := range append(filesUnder(filepath.Join(base, "agent-sessions"), ".jsonl"), filesUnder(filepath.Join(base, "pi-mono"), ".jsonl")...) {
		cs = append(cs, fileSource("pi-coding-agent", base, f))
	}
	return cs
}

// roots are the stored sessions a restore starts from: all but the sub-agents of a stored
// session (which are restored with it). A fork or a continuation is restored on its own.
func roots(ctx context.Context, t *testing.T, s *store.Store) []string {
	ids, err := s.SessionIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	agent := map[string]string{}
	parent := map[string]string{}
	for _, id := range ids {
		tr, err := s.ReadTranscript(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		agent[id], parent[id] = tr.Session.SourceAgent, tr.Session.ParentSessionID
	}
	var out []string
	for _, id := range ids {
		p, ok := agent[parent[id]]
		if !ok || agent[id] != p+"/subagent" {
			out = append(out, id)
		}
	}
	return out
}

// fixedNow is the clock of every restore in the tests.
func fixedNow() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }
