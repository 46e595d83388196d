package capture

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
	"github.com/pondhq/pond/store/sqlite"
)

type rig struct {
	t     *testing.T
	dir   string
	store *store.Store
	eng   *Engine
	a     adapters.Adapter
	root  string
}

func newRig(t *testing.T, a adapters.Adapter, root string) *rig {
	dir := t.TempDir()
	s, err := store.Open(context.Background(), store.Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	env := adaptertest.FakeEnv("linux", dir, nil)
	env.OpenSQLite = sqlite.OpenAgentDB
	return &rig{t: t, dir: dir, store: s, a: a, root: root,
		eng: &Engine{Store: s, Env: env, Cursors: &Cursors{Dir: filepath.Join(dir, "state")}}}
}

func (r *rig) sync() *view.AdapterReport {
	r.t.Helper()
	rep, err := r.eng.Sync(context.Background(), []Target{{Adapter: r.a, Roots: []string{r.root}, Named: true}}, Options{})
	if err != nil {
		r.t.Fatal(err)
	}
	if rep.Adapters[0].Reason != "" {
		r.t.Fatalf("sync: %s: %s", rep.Adapters[0].Reason, rep.Adapters[0].Error)
	}
	return &rep.Adapters[0]
}

func (r *rig) counts() sqlite.Counts {
	c, err := r.store.Mirror().Counts(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}

func (r *rig) noDrift() {
	r.t.Helper()
	drift, err := r.store.Verify(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	for _, d := range drift {
		if !d.OK() {
			r.t.Fatalf("drift in %s: %+v", d.Table, d)
		}
	}
}

// TestConformance runs every registered adapter through the real sync engine and the real store
// (Lance and SQLite in a temp dir), over the adapter's own test tree: the store converges on what
// the adapter yields. The store-free part of the suite runs in each adapter's own tests
// (adaptertest.Run).
func TestConformance(t *testing.T) {
	for _, a := range all.Adapters() {
		t.Run(a.Name(), func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			adaptertest.CopyFixture(t, a, root, sqlite.CreateFromScript)

			// What the adapter yields, read directly: the counts the store must end up with.
			var col adaptertest.Collector
			env := adaptertest.FakeEnv("linux", t.TempDir(), nil)
			env.OpenSQLite = sqlite.OpenAgentDB
			adaptertest.ReadRoot(t, a, env, root, nil, &col)
			want := col.Counts()

			r := newRig(t, a, root)
			first := r.sync()
			c := r.counts()
			if c.Sessions != int64(want.Sessions) || c.Messages != int64(want.Messages) || c.Parts != int64(want.Parts) {
				t.Fatalf("stored %+v, the adapter yields %s", c, want)
			}
			if first.MalformedCount != want.Malformed {
				t.Errorf("sync reported %d malformed records, the adapter %d", first.MalformedCount, want.Malformed)
			}
			for _, p := range first.Malformed {
				if p.Path == "" {
					t.Errorf("malformed record without a location: %+v", p)
				}
			}
			r.noDrift()

			// Re-sync: every source fresh (or one Scan lists but never reads), nothing read,
			// nothing written.
			again := r.sync()
			if again.Skipped[SkipFresh]+again.Skipped[adapters.SkipSuperseded]+again.Skipped[adapters.SkipUnsupported] != first.Sources || again.Inserted != (view.Tally{}) {
				t.Fatalf("re-sync: %+v; want every source fresh and nothing inserted", again)
			}
			// Sources touched but unchanged are re-read and match what is stored.
			now := time.Now().Add(time.Minute)
			filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					os.Chtimes(p, now, now)
				}
				return nil
			})
			touched := r.sync()
			if touched.Inserted != (view.Tally{}) {
				t.Fatalf("touched sources inserted %+v; want everything matched", touched.Inserted)
			}

			// Deleting the agent's files leaves the sessions in the archive.
			before := r.counts()
			os.RemoveAll(root)
			os.MkdirAll(root, 0o755)
			r.sync()
			if after := r.counts(); after != before {
				t.Fatalf("after the agent deleted its files: %+v, want %+v kept", after, before)
			}
			r.noDrift()
		})

		t.Run(a.Name()+"/incremental", func(t *testing.T) {
			src := adaptertest.FixtureDir(t, a)
			file, _ := adaptertest.LargestJSONL(t, src)
			if file == "" {
				t.Skip("no line-based source in the fixture tree")
			}
			rel, _ := filepath.Rel(src, file)
			data, _ := os.ReadFile(file)
			lines := bytes.SplitAfter(data, []byte("\n"))
			if len(lines) < 4 {
				t.Skip("fixture file too short to split")
			}
			// One store gets the whole tree at once; the other sees the file grow: the first
			// half, then a half-written line, then the rest.
			whole := filepath.Join(t.TempDir(), "root")
			adaptertest.CopyFixture(t, a, whole, sqlite.CreateFromScript)
			full := newRig(t, a, whole)
			full.sync()

			grown := filepath.Join(t.TempDir(), "root")
			adaptertest.CopyFixture(t, a, grown, sqlite.CreateFromScript)
			target := filepath.Join(grown, rel)
			half := bytes.Join(lines[:len(lines)/2], nil)
			next := lines[len(lines)/2]
			partial := append(append([]byte{}, half...), next[:len(next)/2]...)
			inc := newRig(t, a, grown)
			for _, content := range [][]byte{half, partial, data} {
				if err := os.WriteFile(target, content, 0o644); err != nil {
					t.Fatal(err)
				}
				// Writes within one clock tick must still look changed.
				mt := time.Now().Add(time.Duration(len(content)) * time.Millisecond)
				os.Chtimes(target, mt, mt)
				inc.sync()
			}
			if got, want := inc.counts(), full.counts(); got != want {
				t.Fatalf("grown file stored %+v, whole file %+v", got, want)
			}
			inc.noDrift()
			ids := func(r *rig) []string {
				rows, _ := r.store.Mirror().DB().Query(`SELECT session_id || '/' || message_id FROM messages`)
				defer rows.Close()
				var out []string
				for rows.Next() {
					var k string
					rows.Scan(&k)
					out = append(out, k)
				}
				sort.Strings(out)
				return out
			}
			if g, w := ids(inc), ids(full); len(g) != len(w) || (len(g) > 0 && g[len(g)-1] != w[len(w)-1]) {
				t.Fatalf("message keys differ between grown and whole reads")
			}
		})
	}
}
