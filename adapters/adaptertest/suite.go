package adaptertest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// Config is one adapter's run of the conformance suite.
type Config struct {
	Adapter adapters.Adapter
	// Want is what reading the whole fixture yields.
	Want Counts
	// OpenSQLite and CreateDB stand in for the store's SQLite driver, for an agent that keeps a
	// database (store/sqlite.OpenAgentDB and CreateFromScript).
	OpenSQLite func(path string) (*sql.DB, error)
	CreateDB   CreateDB
	// WriteRows stands in for the store's writer of rows into an agent's database, for an agent
	// restored that way (store/sqlite.WriteAgentRows).
	WriteRows restore.RowWriter
}

// Run checks an adapter against the capture conventions (adapters/README.md) on its fixture,
// without the store: the fixture reads to Want and validates; a re-read from the cursors
// yields nothing, and touched sources only what was read already; a malformed line is reported
// where it is and the rest still read; a line-based source read while it grows, with a
// half-written last line, yields what reading it whole does; the declared capabilities hold;
// and a restore through the adapter's encoder reads back as what it restored. Call it from
// the adapter's own tests, so `go test ./adapters/<agent>` runs it.
func Run(t *testing.T, cfg Config) {
	a := cfg.Adapter
	env := func(home string) adapters.Env {
		e := FakeEnv("linux", home, nil)
		e.OpenSQLite = cfg.OpenSQLite
		return e
	}
	fixture := func(t *testing.T) string {
		root := filepath.Join(t.TempDir(), "root")
		CopyFixture(t, a, root, cfg.CreateDB)
		return root
	}

	t.Run("describe", func(t *testing.T) {
		d, ok := a.(adapters.Describer)
		if !ok {
			t.Fatalf("%s does not implement adapters.Describer", a.Name())
		}
		desc := d.Describe()
		if desc.Root == "" {
			t.Errorf("Describe().Root is empty: say what the root is, for pond sync --help")
		}
		dir := filepath.ToSlash(desc.Fixture.Dir)
		if info, err := os.Stat(filepath.Join(RepoRoot(t), filepath.FromSlash(dir))); err != nil || !info.IsDir() {
			t.Errorf("fixture %q is not a folder of the repository", dir)
		}
		// Everything about an agent lives in its package, its fixture too.
		typ := reflect.TypeOf(a)
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if _, pkg, ok := strings.Cut(typ.PkgPath(), "/adapters/"); ok && !strings.HasPrefix(dir, "adapters/"+pkg+"/") {
			t.Errorf("fixture %q is outside the adapter's package folder adapters/%s", dir, pkg)
		}
		for db, script := range desc.Fixture.Databases {
			if !filepath.IsLocal(db) || !filepath.IsLocal(script) {
				t.Errorf("fixture database %s from %s: both must be paths inside the fixture", db, script)
			}
		}
	})

	t.Run("read", func(t *testing.T) {
		root := fixture(t)
		var c Collector
		first := ReadRoot(t, a, env(t.TempDir()), root, nil, &c)
		if got := c.Counts(); got != cfg.Want {
			t.Errorf("read %v, want %v (Config.Want)", got, cfg.Want)
		}
		for _, p := range c.Bad {
			if p.At.Path == "" {
				t.Errorf("malformed record without a location: %+v", p)
			}
		}
		caps := a.Capabilities()
		var subagents, tools bool
		for _, s := range c.Sessions() {
			subagents = subagents || s.ParentSessionID != "" && strings.Contains(s.SourceAgent, "/")
		}
		for _, p := range c.Parts() {
			tools = tools || p.Type == session.PartToolCall
		}
		if tools && !caps.ToolCalls {
			t.Errorf("the fixture has tool calls, but Capabilities().ToolCalls is false")
		}
		if subagents && !caps.Subagents {
			t.Errorf("the fixture has sub-agent sessions, but Capabilities().Subagents is false")
		}

		// From the cursors, every source is fresh: nothing is read.
		var again Collector
		ReadRoot(t, a, env(t.TempDir()), root, first, &again)
		if n := len(again.Events); n != 0 {
			t.Errorf("a re-read from the cursors emitted %d events, want none", n)
		}
		// Touched but unchanged sources are read again and yield only what was read already,
		// so the store matches every key instead of adding one.
		touch(t, root, time.Now().Add(time.Minute))
		var touched Collector
		ReadRoot(t, a, env(t.TempDir()), root, first, &touched)
		known := keySet(c.Events)
		for k := range keySet(touched.Events) {
			if !known[k] {
				t.Errorf("touched sources yield %s, which the first read did not", k)
			}
		}
		if len(touched.Bad) > len(c.Bad) {
			t.Errorf("touched sources report %d malformed records, the first read %d", len(touched.Bad), len(c.Bad))
		}
	})

	t.Run("malformed", func(t *testing.T) {
		// A line that is not JSON, one nested far beyond adapters.MaxDepth (16 MB of it: it
		// once overflowed the stack), and one over the line cap (set just above the fixture's
		// longest line), each in the middle of the file: reported at its line, skipped, the
		// rest read, and the cursor past it.
		longest := 0
		_, lines := LargestJSONL(t, fixture(t))
		for _, l := range lines {
			longest = max(longest, len(l))
		}
		for _, tc := range []struct {
			name string
			line string
		}{
			{"truncated", `{"truncated": tr`},
			{"deep", strings.Repeat("[", 8<<20) + strings.Repeat("]", 8<<20)},
			{"deep-object", strings.Repeat(`{"a":`, 3<<20) + "1" + strings.Repeat("}", 3<<20)},
			{"over-cap", `{"type":"user","text":"` + strings.Repeat("x", 2*longest) + `"}`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				root := fixture(t)
				file, lines := LargestJSONL(t, root)
				if len(lines) < 2 {
					t.Skip("no line-based source of two lines or more in the fixture")
				}
				capped := func(home string) adapters.Env {
					e := env(home)
					e.Limits.LineBytes = int64(longest)
					return e
				}
				var whole Collector
				ReadRoot(t, a, capped(t.TempDir()), root, nil, &whole)
				at := len(lines) / 2
				bad := append(append(append([][]byte{}, lines[:at]...), []byte(tc.line+"\n")), lines[at:]...)
				if err := os.WriteFile(file, bytes.Join(bad, nil), 0o644); err != nil {
					t.Fatal(err)
				}
				var c Collector
				cursors := ReadRoot(t, a, capped(t.TempDir()), root, nil, &c)
				found := false
				for _, p := range c.Bad {
					found = found || p.At.Path == file && p.At.Line == at+1
				}
				if !found || len(c.Bad) != len(whole.Bad)+1 {
					t.Errorf("got %d malformed reports %v; want the ones of the fixture (%d) and %s:%d", len(c.Bad), clip(c.Bad), len(whole.Bad), file, at+1)
				}
				got := keySet(c.Events)
				for k := range keySet(whole.Events) {
					if !got[k] {
						t.Errorf("with a malformed line the read misses %s", k)
					}
				}
				if !a.Capabilities().Incremental {
					return
				}
				// The cursor is past the line: a read from it does not meet the line again.
				touch(t, root, time.Now().Add(time.Minute))
				var again Collector
				ReadRoot(t, a, capped(t.TempDir()), root, cursors, &again)
				for _, p := range again.Bad {
					if p.At.Path == file && p.At.Line == at+1 {
						t.Errorf("a read from the cursors reports line %d again: the cursor did not move past it", at+1)
					}
				}
			})
		}
	})

	t.Run("incremental", func(t *testing.T) {
		root := fixture(t)
		file, lines := LargestJSONL(t, root)
		if len(lines) < 4 {
			t.Skip("no line-based source of four lines or more in the fixture")
		}
		data := bytes.Join(lines, nil)
		var whole Collector
		ReadRoot(t, a, env(t.TempDir()), root, nil, &whole)
		// The file grows: the first half, then a half-written line, then the rest.
		half := bytes.Join(lines[:len(lines)/2], nil)
		next := lines[len(lines)/2]
		partial := append(append([]byte{}, half...), next[:len(next)/2]...)
		var grown Collector
		var cursors map[string]adapters.Cursor
		for _, content := range [][]byte{half, partial, data} {
			if err := os.WriteFile(file, content, 0o644); err != nil {
				t.Fatal(err)
			}
			// Writes within one clock tick must still look changed.
			mt := time.Now().Add(time.Duration(len(content)) * time.Millisecond)
			os.Chtimes(file, mt, mt)
			cursors = ReadRoot(t, a, env(t.TempDir()), root, cursors, &grown)
		}
		if diff := diffKeys(keySet(whole.Events), keySet(grown.Events)); diff != "" {
			t.Errorf("a growing file yields other keys than the whole file:\n%s", diff)
		}
		if len(grown.Bad) != len(whole.Bad) {
			t.Errorf("a growing file reports %d malformed records, the whole file %d: %v", len(grown.Bad), len(whole.Bad), grown.Bad)
		}
	})

	t.Run("checkpoints", func(t *testing.T) {
		// A cursor the adapter offers mid-source (adapters.Checkpointer) resumes exactly: what
		// was emitted before it and what a read from it emits are the keys of the whole read.
		root := fixture(t)
		file, _ := LargestJSONL(t, root)
		if file == "" {
			t.Skip("no line-based source in the fixture")
		}
		e := env(t.TempDir())
		srcs, err := a.Scan(t.Context(), e, root)
		if err != nil {
			t.Fatal(err)
		}
		var src adapters.Source
		for _, s := range srcs {
			if s.Path == file {
				src = s
			}
		}
		var whole checkpointing
		if _, err := a.Read(t.Context(), e, src, adapters.Cursor{}, &whole); err != nil {
			t.Fatal(err)
		}
		if len(whole.at) == 0 {
			t.Skip("the adapter offers no cursor mid-source")
		}
		all := keySet(whole.Events)
		for i, cur := range whole.cursors {
			if cur.Stamp != "" {
				t.Errorf("checkpoint %d has the stamp %q: a source not read whole must not look fresh", i, cur.Stamp)
			}
			var rest Collector
			if _, err := a.Read(t.Context(), e, src, cur, &rest); err != nil {
				t.Fatalf("read from checkpoint %d: %v", i, err)
			}
			got := keySet(whole.Events[:whole.at[i]])
			again := 0 // messages and parts emitted before the checkpoint and again after it
			for k := range keySet(rest.Events) {
				if got[k] && strings.Contains(k, "/") {
					again++
				}
				got[k] = true
			}
			// A resumed read repeats the session, and at most the message it adds parts to:
			// more means it did not resume where the cursor says.
			if again > 1 {
				t.Errorf("read resumed from checkpoint %d (line %d) emits %d messages and parts again, want at most one", i, cur.Line, again)
			}
			if diff := diffKeys(all, got); diff != "" {
				t.Errorf("read resumed from checkpoint %d (line %d) yields other keys than the whole read:\n%s", i, cur.Line, diff)
			}
		}
	})

	t.Run("restore", func(t *testing.T) {
		enc, isEncoder := a.(restore.Encoder)
		if declared := a.Capabilities().Restore; declared != isEncoder {
			t.Fatalf("Capabilities().Restore is %v, but implementing restore.Encoder is %v: they must agree", declared, isEncoder)
		}
		if !isEncoder {
			t.Skip("the adapter does not restore")
		}
		var c Collector
		ReadRoot(t, a, env(t.TempDir()), fixture(t), nil, &c)
		ts := c.Transcripts()
		for _, batch := range batches(ts) {
			id := batch[0].Session.ID
			t.Run("native/"+strings.ReplaceAll(id, "/", "_"), func(t *testing.T) {
				root, files, _ := encode(t, cfg, enc, batch, true)
				var want []session.Event
				for _, f := range files {
					if f.Sidecar {
						continue
					}
					for _, id := range append([]string{f.Session}, f.Includes...) {
						want = append(want, Events(ts[id])...)
					}
				}
				back := readBack(t, cfg, root, files, env)
				// A restore the agent takes in (restore.ReadBacker) is compared without its raw
				// records, which come back in another form.
				_, takenIn := cfg.Adapter.(restore.ReadBacker)
				CheckNativeRestore(t, want, files, back, takenIn)
			})
			t.Run("foreign/"+strings.ReplaceAll(id, "/", "_"), func(t *testing.T) {
				root, files, plan := encode(t, cfg, enc, batch, false)
				back := readBack(t, cfg, root, files, env)
				if len(back.Bad) > 0 {
					t.Errorf("malformed records in the restore: %v", back.Bad)
				}
				got := back.Sessions()
				rs, ok := got[plan.ID]
				if !ok {
					t.Fatalf("reading the restore back finds no session %s (the plan's id)", plan.ID)
				}
				var pond struct {
					RestoredFrom restore.Mark `json:"restored_from"`
				}
				_ = json.Unmarshal(rs.Options["pond"], &pond)
				if pond.RestoredFrom.Session != id {
					t.Errorf("options.pond.restored_from = %+v, want session %s", pond.RestoredFrom, id)
				}
			})
		}
	})
}

// batches are the restores a collection allows: each session without a parent among the
// collected ones, with its direct children, when none of those has children of its own.
func batches(ts map[string]*restore.Transcript) [][]*restore.Transcript {
	kids := map[string][]string{}
	for id, t := range ts {
		if p := t.Session.ParentSessionID; p != "" && ts[p] != nil {
			kids[p] = append(kids[p], id)
		}
	}
	var out [][]*restore.Transcript
	for id, t := range ts {
		if p := t.Session.ParentSessionID; p != "" && ts[p] != nil {
			continue
		}
		batch := []*restore.Transcript{t}
		sort.Strings(kids[id])
		deep := false
		for _, k := range kids[id] {
			deep = deep || len(kids[k]) > 0
			batch = append(batch, ts[k])
		}
		if !deep {
			out = append(out, batch)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0].Session.ID < out[j][0].Session.ID })
	return out
}

// encode plans a restore of batch under a fresh root and writes its files (never over one),
// as resume would. The plan names a session id and a command, and every file stays under the
// root.
func encode(t *testing.T, cfg Config, enc restore.Encoder, batch []*restore.Transcript, native bool) (string, []restore.File, *restore.Plan) {
	t.Helper()
	root := t.TempDir()
	plan, err := enc.Encode(&restore.Job{Batch: batch, Native: native, Root: root, ImportDir: root})
	if err != nil {
		t.Fatal(err)
	}
	if plan.ID == "" || len(plan.Argv) == 0 || len(plan.Files) == 0 {
		t.Fatalf("plan without an id, a command or files: %+v", plan)
	}
	// The session id reaches the command as an argument of its own, whatever it holds.
	last := plan.Argv[len(plan.Argv)-1]
	if len(last) < 2 || last[0] == "" {
		t.Fatalf("the plan's last command %q is no program with arguments", last)
	}
	var files []restore.File
	for _, f := range plan.Files {
		rel, err := filepath.Rel(root, f.Path)
		if err != nil || !filepath.IsLocal(rel) {
			t.Fatalf("%s is not under the restore's root %s", f.Path, root)
		}
		if f.Bytes != len(f.Data) {
			t.Errorf("%s: %d bytes planned, %d reported", f.Path, len(f.Data), f.Bytes)
		}
		if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
			t.Fatal(err)
		}
		if f.Rows != nil {
			if f.File.Rows != f.Rows.Count() {
				t.Errorf("%s: %d rows planned, %d reported", f.Path, f.Rows.Count(), f.File.Rows)
			}
			if cfg.WriteRows == nil {
				t.Fatalf("%s restores rows into a database: pass a WriteRows (store/sqlite.WriteAgentRows)", cfg.Adapter.Name())
			}
			left, err := cfg.WriteRows(context.Background(), f.Path, f.Rows)
			if err != nil {
				t.Fatal(err)
			}
			if len(left) > 0 {
				t.Errorf("%s: columns left out of a database the restore created: %v", f.Path, left)
			}
			files = append(files, f.File)
			continue
		}
		w, err := os.OpenFile(f.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(f.Data); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		files = append(files, f.File)
	}
	return root, files, plan
}

// readBack reads what a restore wrote under root with the adapter.
func readBack(t *testing.T, cfg Config, root string, files []restore.File, env func(string) adapters.Env) *Collector {
	t.Helper()
	if rb, ok := cfg.Adapter.(restore.ReadBacker); ok {
		var err error
		if root, err = rb.ReadBackRoot(files, t.TempDir()); err != nil {
			t.Fatal(err)
		}
	}
	var c Collector
	ReadRoot(t, cfg.Adapter, env(t.TempDir()), root, nil, &c)
	return &c
}

// touch sets the modification time of every file under root.
func touch(t *testing.T, root string, at time.Time) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, at, at)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// LargestJSONL is the biggest line-based source under root and its lines (each with its
// newline), or "" when there is none.
func LargestJSONL(t *testing.T, root string) (string, [][]byte) {
	t.Helper()
	var best string
	var size int64
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".jsonl" {
			if info, err := d.Info(); err == nil && info.Size() > size {
				best, size = p, info.Size()
			}
		}
		return nil
	})
	if best == "" {
		return "", nil
	}
	data, err := os.ReadFile(best)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return best, lines
}

// checkpointing is a Collector that asks for a cursor after every record, and keeps each with
// how many events came before it.
type checkpointing struct {
	Collector
	cursors []adapters.Cursor
	at      []int
}

func (c *checkpointing) WantCheckpoint() bool { return true }

func (c *checkpointing) Checkpoint(cur adapters.Cursor) {
	c.cursors, c.at = append(c.cursors, cur), append(c.at, len(c.Events))
}

// clip shortens reports for a failure message (a report may quote a long line).
func clip(ps []Problem) []Problem {
	out := make([]Problem, len(ps))
	for i, p := range ps {
		out[i] = p
		if len(p.What) > 200 {
			out[i].What = p.What[:200] + "…"
		}
	}
	return out
}

// keySet is the distinct archive keys of events.
func keySet(events []session.Event) map[string]bool {
	out := map[string]bool{}
	for _, e := range events {
		out[e.Key().String()] = true
	}
	return out
}

// diffKeys lists the keys only one side has.
func diffKeys(want, got map[string]bool) string {
	var b strings.Builder
	for _, k := range sortedKeys(want) {
		if !got[k] {
			fmt.Fprintf(&b, "- %s\n", k)
		}
	}
	for _, k := range sortedKeys(got) {
		if !want[k] {
			fmt.Fprintf(&b, "+ %s\n", k)
		}
	}
	return b.String()
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
