package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
	"github.com/pondhq/pond/store/sqlite"
)

// TestSplit: a run the store refuses is split until the units it refuses stand alone; the rest
// is stored, each unit once. Refusing every unit of several is the store failing; an error that
// stops (the context's) ends it.
func TestSplit(t *testing.T) {
	bad := map[int]bool{3: true, 6: true}
	stored := map[int]int{}
	refused, err := split(8, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			if bad[i] {
				return fmt.Errorf("unit %d", i)
			}
		}
		for i := lo; i < hi; i++ {
			stored[i]++
		}
		return nil
	}, func(error) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(refused)); !slices.Equal(got, []int{3, 6}) {
		t.Errorf("refused %v, want [3 6]", got)
	}
	for i := range 8 {
		if want := map[bool]int{true: 0, false: 1}[bad[i]]; stored[i] != want {
			t.Errorf("unit %d stored %d times, want %d", i, stored[i], want)
		}
	}

	broken := errors.New("disk full")
	if _, err := split(4, func(int, int) error { return broken }, func(error) bool { return false }); !errors.Is(err, broken) {
		t.Errorf("every unit refused: %v, want the store's error", err)
	}
	if refused, err := split(1, func(int, int) error { return broken }, func(error) bool { return false }); err != nil || refused[0] == nil {
		t.Errorf("the one unit refused: %v, %v; want it reported, no error", refused, err)
	}
	calls := 0
	if _, err := split(8, func(int, int) error { calls++; return context.Canceled }, func(err error) bool { return errors.Is(err, context.Canceled) }); !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("cancelled: %v after %d calls, want context.Canceled after one", err, calls)
	}
}

// twoAgents is a store with the Claude Code and Codex CLI fixtures under one home, and targets
// syncing both as the daemon does (none named).
func twoAgents(t *testing.T) (r *rig, claude, codex Target) {
	t.Helper()
	cc, _ := all.ByName("claude-code")
	cx, _ := all.ByName("codex-cli")
	home := t.TempDir()
	claude = Target{Adapter: cc, Roots: []string{filepath.Join(home, "claude")}}
	codex = Target{Adapter: cx, Roots: []string{filepath.Join(home, "codex")}}
	adaptertest.CopyFixture(t, cc, claude.Roots[0], sqlite.CreateFromScript)
	adaptertest.CopyFixture(t, cx, codex.Roots[0], sqlite.CreateFromScript)
	return newRig(t, cc, claude.Roots[0]), claude, codex
}

// wantCounts is what reading root yields, straight from the adapter.
func wantCounts(t *testing.T, a adapters.Adapter, root string) adaptertest.Counts {
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, a, adaptertest.FakeEnv("linux", t.TempDir(), nil), root, nil, &c)
	return c.Counts()
}

// TestInvalidUTF8 (issue 19, item 15): a byte that is not UTF-8 inside a JSON string (which
// JSON parsers accept and Arrow refuses) no longer stops capture for its adapter and the ones
// after it: the text is stored with U+FFFD, and a native restore writes the line back byte for
// byte.
func TestInvalidUTF8(t *testing.T) {
	r, claude, codex := twoAgents(t)
	file := filepath.Join(claude.Roots[0], "projects", "-srv-demo", "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.jsonl")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const text = `"Also add a test for Mul."`
	bad := "\"Also add a test for Mul \xff\xfe caf\xe9.\""
	if !bytes.Contains(data, []byte(text)) {
		t.Fatalf("fixture %s has no %s", file, text)
	}
	data = bytes.Replace(data, []byte(text), []byte(bad), 1)
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var line []byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if bytes.Contains(l, []byte(bad)) {
			line = l
		}
	}

	rep, err := r.eng.Sync(t.Context(), []Target{claude, codex}, Options{})
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	if rep.Outcome != "ok" {
		t.Fatalf("sync outcome %s: %+v", rep.Outcome, rep.Adapters)
	}
	for i, tg := range []Target{claude, codex} {
		want := wantCounts(t, tg.Adapter, tg.Roots[0])
		if got := rep.Adapters[i].Inserted; got.Sessions != want.Sessions || got.Messages != want.Messages || got.Parts != want.Parts {
			t.Errorf("%s: inserted %+v, want everything the adapter reads: %s", tg.Adapter.Name(), got, want)
		}
	}
	r.noDrift()

	// The text reads back repaired; the native restore gives the line back as written.
	tr, err := r.store.ReadTranscript(t.Context(), "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ps := range tr.Parts {
		for _, p := range ps {
			found = found || strings.HasPrefix(p.Text, "Also add a test for Mul \uFFFD") && strings.HasSuffix(p.Text, " caf\uFFFD.")
		}
	}
	if !found {
		t.Errorf("no part reads the repaired text")
	}
	rt := restore.Transcript(*tr)
	plan, err := claude.Adapter.(restore.Encoder).Encode(&restore.Job{Batch: []*restore.Transcript{&rt}, Native: true, Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	restored := false
	for _, f := range plan.Files {
		restored = restored || bytes.Contains(f.Data, line)
	}
	if !restored {
		t.Errorf("the native restore does not hold the line with its original bytes")
	}
}

// TestAdapterFailureDoesNotStopSync: an adapter that cannot run at all (here its cursor file
// cannot be read) is reported as failed, and the adapters after it are still captured.
func TestAdapterFailureDoesNotStopSync(t *testing.T) {
	r, claude, codex := twoAgents(t)
	if err := os.MkdirAll(filepath.Join(r.eng.Cursors.Dir, "cursors", "claude-code.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	rep, err := r.eng.Sync(t.Context(), []Target{claude, codex}, Options{})
	if err != nil {
		t.Fatalf("sync: %v; want the failure reported for its adapter", err)
	}
	if a := rep.Adapters[0]; a.Reason != "failed" || a.Error == "" {
		t.Errorf("claude-code: reason %q, error %q; want failed, with why", a.Reason, a.Error)
	}
	want := wantCounts(t, codex.Adapter, codex.Roots[0])
	if got := rep.Adapters[1].Inserted; got.Sessions != want.Sessions || got.Messages != want.Messages {
		t.Errorf("codex-cli inserted %+v, want %s", got, want)
	}
	if rep.Outcome != "partial" {
		t.Errorf("outcome %q, want partial", rep.Outcome)
	}
}

// TestLargeSourceInBatches (item 16): a source several times larger than a batch is stored in
// several batches while it is read (each a Lance commit), not held whole; the archive ends up
// with everything, and the cursor moves once it has all been stored.
func TestLargeSourceInBatches(t *testing.T) {
	cc, _ := all.ByName("claude-code")
	root := largeClaudeSession(t, 1500)
	size := int64(0)
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if info, ierr := os.Stat(p); err == nil && ierr == nil && !d.IsDir() {
			size += info.Size()
		}
		return nil
	})

	r := newRig(t, cc, root)
	before, err := r.store.Table(store.TableMessages).Version(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	const flush = 256 << 10
	rep, err := r.eng.Sync(t.Context(), []Target{{Adapter: cc, Roots: []string{root}, Named: true}}, Options{FlushBytes: flush})
	if err != nil {
		t.Fatal(err)
	}
	want := wantCounts(t, cc, root)
	if got := rep.Adapters[0].Inserted; got.Sessions != 1 || got.Messages != want.Messages || got.Parts != want.Parts {
		t.Fatalf("inserted %+v, want %s", got, want)
	}
	after, err := r.store.Table(store.TableMessages).Version(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if commits, atLeast := after-before, uint64(size/flush/2); commits < atLeast {
		t.Errorf("a %d-byte source stored in %d commits of messages; want at least %d (batches of %d bytes)", size, commits, atLeast, flush)
	}
	r.noDrift()
	if again := r.sync(); again.Skipped[SkipFresh] != 1 || again.Inserted != (view.Tally{}) {
		t.Errorf("re-sync: %+v; want the source fresh (its cursor saved) and nothing inserted", again)
	}
}

// TestChunkCursors: a large source's chunks carry the adapter's cursor at their end, so that a
// sync stopped after a chunk was stored resumes there: what the chunks up to one held and what
// a read from its cursor yields are together the whole source, with nothing read twice but the
// session (and the message parts are added to).
func TestChunkCursors(t *testing.T) {
	cc, _ := all.ByName("claude-code")
	root := largeClaudeSession(t, 600)
	srcs, err := cc.Scan(t.Context(), adapters.Env{}, root)
	if err != nil || len(srcs) != 1 {
		t.Fatalf("scan: %v, %d sources", err, len(srcs))
	}
	e := &Engine{Env: adaptertest.FakeEnv("linux", t.TempDir(), nil)}
	out := make(chan readResult, 1)
	b := newBudget(1 << 20)
	go e.readSources(t.Context(), cc, []job{{root: root, src: srcs[0]}}, Options{FlushBytes: 128 << 10}, out, b)
	var before []map[string]bool // keys handed over up to each chunk with a cursor
	var cursors []adapters.Cursor
	seen := map[string]bool{}
	var last readResult
	for r := range out {
		b.release(r.em.bytes) // as the writer does once a batch is stored
		for _, ev := range r.em.events {
			seen[ev.Key().String()] = true
		}
		if r.chunk && r.chunkNext {
			before, cursors = append(before, maps.Clone(seen)), append(cursors, r.next)
		}
		if !r.chunk {
			last = r
		}
	}
	if last.err != nil {
		t.Fatal(last.err)
	}
	if len(cursors) < 3 {
		t.Fatalf("%d chunks with a cursor, want several", len(cursors))
	}
	for i, cur := range cursors {
		if cur.Stamp != "" || cur.Offset <= 0 || cur.Offset >= srcs[0].Size {
			t.Fatalf("chunk %d's cursor %+v: want one inside the file, without the source's stamp", i, cur)
		}
		var rest adaptertest.Collector
		if _, err := cc.Read(t.Context(), e.Env, srcs[0], cur, &rest); err != nil {
			t.Fatal(err)
		}
		got, again := maps.Clone(before[i]), 0
		for _, ev := range rest.Events {
			k := ev.Key().String()
			if got[k] && ev.Session == nil {
				again++
			}
			got[k] = true
		}
		if !maps.Equal(got, seen) || again > 1 {
			t.Errorf("chunk %d: resumed from its cursor, %d keys of %d, %d read again; want all, at most one again", i, len(got), len(seen), again)
		}
	}
}

// largeClaudeSession writes a Claude Code session of n messages of about 3 KB under a new root.
func largeClaudeSession(t *testing.T, n int) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "claude")
	dir := filepath.Join(root, "projects", "-w")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	const sid = "5b0c3a10-5b4e-4d21-9a8f-0c1d2e3f4a5b"
	var b strings.Builder
	pad := strings.Repeat("lorem ipsum ", 250)
	parent := "null"
	for i := range n {
		uuid := fmt.Sprintf("m-%05d", i)
		ts := fmt.Sprintf("2026-03-02T%02d:%02d:%02d.000Z", i/3600, i/60%60, i%60)
		if i%2 == 0 {
			fmt.Fprintf(&b, `{"parentUuid":%s,"cwd":"/w","sessionId":"%s","type":"user","message":{"role":"user","content":"question %d %s"},"uuid":"%s","timestamp":"%s"}`+"\n", parent, sid, i, pad, uuid, ts)
		} else {
			fmt.Fprintf(&b, `{"parentUuid":%s,"cwd":"/w","sessionId":"%s","type":"assistant","message":{"id":"msg_%d","type":"message","role":"assistant","content":[{"type":"text","text":"answer %d %s"},{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"ls"}}]},"uuid":"%s","timestamp":"%s"}`+"\n", parent, sid, i, i, pad, i, uuid, ts)
		}
		parent = `"` + uuid + `"`
	}
	if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return root
}
