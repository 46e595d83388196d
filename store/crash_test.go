package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/sessiongen"
	"github.com/pondhq/pond/session/view"
)

// crashCorpus is what the crash test ingests: small enough for 20 rounds, large enough that a
// run spans many commits.
func crashCorpus() [][]session.Event {
	cfg := sessiongen.Default()
	cfg.Sessions, cfg.MessagesPerSess = 60, 16
	return sessiongen.New(cfg).All()
}

// ingestAll is the child process's work: store the corpus in batches of 6 sessions.
func ingestAll(dir string) error {
	s, err := Open(context.Background(), Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state"), Command: "crash-child"})
	if err != nil {
		return err
	}
	defer s.Close()
	corpus := crashCorpus()
	for i := 0; i < len(corpus); i += 6 {
		var batch []session.Event
		for _, sess := range corpus[i:min(i+6, len(corpus))] {
			batch = append(batch, sess...)
		}
		if _, err := s.Upsert(context.Background(), batch, Stamp{Adapter: "crash"}); err != nil {
			return err
		}
	}
	return nil
}

// TestCrashConvergence SIGKILLs a writer at random points of a large ingest, 20 times, then
// lets one run finish, and checks that Lance and the mirror hold exactly the corpus: every key
// once, no drift.
func TestCrashConvergence(t *testing.T) {
	if dir := os.Getenv("POND_TEST_CRASH_DIR"); dir != "" {
		if err := ingestAll(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if testing.Short() {
		t.Skip("crash rounds take a while; run without -short")
	}
	dir := t.TempDir()
	run := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestCrashConvergence$")
		cmd.Env = append(os.Environ(), "POND_TEST_CRASH_DIR="+dir)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	// How long a full run takes bounds where the kills land.
	t0 := time.Now()
	full := run()
	if err := full.Wait(); err != nil {
		t.Fatalf("uninterrupted run: %v", err)
	}
	span := time.Since(t0)
	os.RemoveAll(filepath.Join(dir, "data"))
	os.RemoveAll(filepath.Join(dir, "state"))

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(7, seed))
	for round := 0; round < 20; round++ {
		cmd := run()
		time.Sleep(time.Duration(rng.Int64N(int64(span))))
		cmd.Process.Kill()
		cmd.Wait()
	}
	if err := run().Wait(); err != nil {
		t.Fatalf("final run (kill seed %d): %v", seed, err)
	}

	s := openTestStore(t, dir)
	var want view.Tally
	for _, sess := range crashCorpus() {
		for _, e := range sess {
			tallyRow(&want, e.Kind())
		}
	}
	drift, err := s.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range drift {
		wantRows := []int{want.Sessions, want.Messages, want.Parts}[i]
		if !d.OK() || d.Lance != int64(wantRows) {
			t.Errorf("%s after 20 crashes (kill seed %d): lance %d mirror %d, want %d; drift %+v", d.Table, seed, d.Lance, d.Mirror, wantRows, d)
		}
	}
}

// TestOpenAfterATableCreationWasKilled: a process killed while it created the archive's tables
// can leave a table folder without a committed version (TestCrashConvergence met one). The
// next open creates that table again and the archive works; before, every open failed.
func TestOpenAfterATableCreationWasKilled(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	s.Close()
	parts := filepath.Join(dir, "data", "lance", TableParts+".lance")
	if err := os.RemoveAll(parts); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"_versions", "_transactions"} {
		if err := os.MkdirAll(filepath.Join(parts, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	s = openTestStore(t, dir)
	defer s.Close()
	out := upsert(t, s, chat("after", "claude-code", "/home/dev/after", "", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), "the parts table is back"))
	if out.Inserted.Parts != 1 {
		t.Fatalf("inserted %+v, want the part stored", out.Inserted)
	}
	if n, err := s.Table(TableParts).Count(context.Background(), ""); err != nil || n != 1 {
		t.Fatalf("parts in Lance: %d, %v", n, err)
	}
}
