package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/sqlite"
)

// openShared opens a machine's store (its own mirror and state) on the Lance tables in shared.
func openShared(t *testing.T, machine, shared string) *Store {
	t.Helper()
	s, err := Open(context.Background(), Options{DataDir: filepath.Join(machine, "data"), StateDir: filepath.Join(machine, "state"),
		Storage: shared, Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Two machines write one archive at the same time, each its own sessions, batch after batch:
// each numbers its rows in a range of its own, and each mirror, caught up, holds the union,
// with no row missing or doubled on either side.
func TestTwoWritersOneArchive(t *testing.T) {
	ctx := context.Background()
	shared := filepath.Join(t.TempDir(), "lance")
	a := openShared(t, t.TempDir(), shared)
	b := openShared(t, t.TempDir(), shared)
	const batches = 6
	var wg sync.WaitGroup
	for _, w := range []struct {
		s    *Store
		name string
	}{{a, "a"}, {b, "b"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range batches {
				if _, err := w.s.Upsert(ctx, clone(t, everyKind(fmt.Sprintf("%s%d", w.name, i))), Stamp{Adapter: "test"}); err != nil {
					t.Errorf("%s: %v", w.name, err)
				}
			}
		}()
	}
	wg.Wait()
	if a.writer == 0 || b.writer == 0 || a.writer == b.writer {
		t.Fatalf("writer numbers %d and %d", a.writer, b.writer)
	}
	for _, s := range []*Store{a, b} {
		if _, err := s.CatchUp(ctx); err != nil {
			t.Fatal(err)
		}
		drift, err := s.Verify(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range drift {
			if !d.OK() {
				t.Errorf("writer %d drifts: %+v", s.writer, d)
			}
		}
		counts, err := s.Mirror().Counts(ctx)
		if err != nil || counts.Sessions != 2*batches || counts.Messages != 3*2*batches || counts.Parts != 10*2*batches {
			t.Errorf("writer %d mirror: %+v, %v", s.writer, counts, err)
		}
		writers, err := s.Mirror().Writers(ctx)
		if err != nil || len(writers) != 2 {
			t.Fatalf("writers %+v, %v", writers, err)
		}
		for _, w := range writers {
			if (w.Writer != a.writer && w.Writer != b.writer) || w.Messages != 3*batches || w.Sessions != batches || w.Hostname == "" || w.LastCapture == "" {
				t.Errorf("writer %+v", w)
			}
		}
	}
	// A third look finds nothing new, and each machine's next rows follow its own last.
	if n, err := a.CatchUp(ctx); err != nil || n != (view.Tally{}) {
		t.Errorf("second catch-up applied %d, %v", n, err)
	}
	last, err := b.lastSeq(ctx)
	if err != nil || sqlite.WriterOf(last) != b.writer || last&(1<<sqlite.WriterShift-1) != 14*batches {
		t.Errorf("b's last number %d (writer %d), %v", last, sqlite.WriterOf(last), err)
	}
}

// A machine's writer number is kept per archive: a store reopened keeps it, another archive
// gets one of its own.
func TestWriterNumberIsKeptPerArchive(t *testing.T) {
	ctx := context.Background()
	machine := t.TempDir()
	one, two := filepath.Join(t.TempDir(), "one"), filepath.Join(t.TempDir(), "two")
	s := openShared(t, machine, one)
	upsert(t, s, everyKind("x"))
	w1 := s.writer
	s.Close()
	s = openShared(t, machine, one)
	upsert(t, s, everyKind("y"))
	if s.writer != w1 {
		t.Errorf("reopened: writer %d, was %d", s.writer, w1)
	}
	s.Close()
	s2, err := Open(ctx, Options{DataDir: filepath.Join(t.TempDir(), "data"), StateDir: filepath.Join(machine, "state"), Storage: two})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	w2, err := s2.writerNumber(ctx)
	if err != nil || w2 == 0 {
		t.Fatalf("second archive: %d, %v", w2, err)
	}
	// The draw refuses a number the archive's rows carry.
	if taken, err := s2.writerTaken(ctx, w2); err != nil || taken {
		t.Errorf("an empty archive's number taken: %v, %v", taken, err)
	}
	upsert(t, s2, everyKind("z"))
	if taken, err := s2.writerTaken(ctx, w2); err != nil || !taken {
		t.Errorf("a used number not seen taken: %v, %v", taken, err)
	}
}

func TestMissingFilter(t *testing.T) {
	for _, c := range []struct {
		marks map[int64]int64
		want  string
	}{
		{nil, "ingest_seq >= 0"},
		{map[int64]int64{0: 12}, "NOT ((ingest_seq >= 0 AND ingest_seq <= 12))"},
		{map[int64]int64{3: 3<<sqlite.WriterShift + 5}, fmt.Sprintf("NOT ((ingest_seq >= %d AND ingest_seq <= %d))", int64(3)<<sqlite.WriterShift, int64(3)<<sqlite.WriterShift+5)},
	} {
		if got := missingFilter(c.marks); got != c.want {
			t.Errorf("%v: %s, want %s", c.marks, got, c.want)
		}
	}
}

// An erase on one machine reaches the other through the archive's erasures log: its mirror
// loses the session, its denylist gains it (a write of it is refused), and a lift on the first
// machine takes it off the second's list.
func TestErasureReachesTheOtherMachine(t *testing.T) {
	ctx := context.Background()
	shared := filepath.Join(t.TempDir(), "lance")
	a := openShared(t, t.TempDir(), shared)
	b := openShared(t, t.TempDir(), shared)
	upsert(t, a, everyKind("gone"))
	upsert(t, a, everyKind("kept"))
	upsert(t, b, everyKind("mine"))
	if _, err := b.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if c, _ := b.Mirror().Counts(ctx); c.Sessions != 3 {
		t.Fatalf("b before the erase: %+v", c)
	}
	if _, err := a.Erase(ctx, view.EraseRequest{Sessions: []string{"gone"}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if c, _ := b.Mirror().Counts(ctx); c.Sessions != 2 || c.Messages != 6 {
		t.Errorf("b after the erase: %+v", c)
	}
	noDrift(t, b, "b drifts")
	if out := upsert(t, b, everyKind("gone")); out.Erased.Sessions != 1 || out.Inserted != (view.Tally{}) {
		t.Errorf("b re-capturing the erased session: erased %+v, inserted %+v", out.Erased, out.Inserted)
	}
	if lifted, _, err := a.Lift(ctx, []string{"gone"}); err != nil || len(lifted) != 1 {
		t.Fatalf("lift: %v, %v", lifted, err)
	}
	if _, err := b.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if denied, _ := b.Denied(); len(denied) != 0 {
		t.Errorf("b's denylist after the lift: %v", denied)
	}
	if out := upsert(t, b, everyKind("gone")); out.Inserted.Sessions != 1 {
		t.Errorf("b capturing the lifted session: %+v", out.Inserted)
	}
}

// The archive in the data directory is this machine's alone: its rows stay writer 0's, as
// before writers were numbered, and it lists one host, this one.
func TestOwnArchiveIsWriterZero(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	upsert(t, s, everyKind("x"))
	last, err := s.lastSeq(ctx)
	if err != nil || last != 14 {
		t.Errorf("last number %d, %v; want 14 (14 rows numbered from 1)", last, err)
	}
	hosts, err := s.Hosts(ctx)
	if err != nil || len(hosts) != 1 || hosts[0].Writer != 0 || !hosts[0].This || hosts[0].Messages != 3 || hosts[0].Hostname == "" {
		t.Errorf("hosts %+v, %v", hosts, err)
	}
}

// pond redact --all on one machine rewrites sessions with their secrets replaced: the other
// machine's mirror, caught up, holds the redacted copy, not the secret.
func TestRewriteReachesTheOtherMachine(t *testing.T) {
	ctx := context.Background()
	shared := filepath.Join(t.TempDir(), "lance")
	a := openShared(t, t.TempDir(), shared)
	b := openShared(t, t.TempDir(), shared)
	const secret = "AKIAQYLPMN5HHHFPZAM2"
	ev := everyKind("leaky")
	for _, e := range ev {
		if p := e.Part; p != nil && p.ID == "p0" && p.MessageID == "m1" {
			p.Text = "deploy with " + secret + " tonight"
		}
	}
	upsert(t, a, ev)
	if _, err := b.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	// What each mirror holds itself (the values it leaves to Lance are Lance's to redact).
	has := func(s *Store) int {
		var n int
		if err := s.Mirror().DB().QueryRow(`SELECT (SELECT count(*) FROM messages WHERE search_text LIKE '%' || ?1 || '%')
			+ (SELECT count(*) FROM _pond_parts_here WHERE variant_data LIKE '%' || ?1 || '%')`, secret).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if has(b) != 2 {
		t.Fatalf("b's mirror holds the secret %d times before the rewrite, want 2 (the message's search text, the part)", has(b))
	}
	if rep, err := a.RedactAll(ctx, nil); err != nil || rep.Sessions != 1 {
		t.Fatalf("redact --all: %+v, %v", rep, err)
	}
	if _, err := b.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if has(a) != 0 || has(b) != 0 {
		t.Errorf("the secret is still in a's mirror (%d) or b's (%d)", has(a), has(b))
	}
	if c, _ := b.Mirror().Counts(ctx); c.Sessions != 1 || c.Messages != 3 || c.Parts != 10 {
		t.Errorf("b after the rewrite: %+v", c)
	}
	if denied, _ := b.Denied(); len(denied) != 0 {
		t.Errorf("a rewrite put %v on b's denylist", denied)
	}
}
