//go:build unix

package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
)

// splitCorpus is one large batch: every session of crashCorpus in a single Upsert, as a first
// sync of a busy agent writes it.
func splitCorpus() []session.Event {
	var batch []session.Event
	for _, sess := range crashCorpus() {
		batch = append(batch, sess...)
	}
	return batch
}

// killBetweenAppends stores the batch in a child process that SIGKILLs itself once the
// batch's messages are committed to Lance and before its parts are.
func killBetweenAppends(t testing.TB, dir, name string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^"+name+"$")
	cmd.Env = append(os.Environ(), "POND_TEST_CRASH_SPLIT_DIR="+dir)
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child: got %v, want it killed between the appends", err)
	}
}

// crashChild is the child side of killBetweenAppends; it reports whether it ran.
func crashChild() bool {
	dir := os.Getenv("POND_TEST_CRASH_SPLIT_DIR")
	if dir == "" {
		return false
	}
	afterMessagesAppended = func() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	s, err := Open(context.Background(), Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state"), Command: "crash-child"})
	if err == nil {
		_, err = s.Upsert(context.Background(), splitCorpus(), Stamp{Adapter: "crash"})
	}
	fmt.Fprintln(os.Stderr, "crash child was not killed:", err)
	os.Exit(1)
	return true
}

func tableVersions(t testing.TB, s *Store) map[string]uint64 {
	t.Helper()
	v := map[string]uint64{}
	for _, name := range tableNames {
		n, err := s.Table(name).Version(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		v[name] = n
	}
	return v
}

// TestCrashBetweenAppendsConvergesInFewCommits: a writer killed after a large batch's messages
// reached Lance and before its parts did leaves every message without its parts. The next
// write of the same batch stores the parts, finds every message's search text already right,
// and commits a handful of Lance versions, not one per message.
func TestCrashBetweenAppendsConvergesInFewCommits(t *testing.T) {
	if crashChild() {
		return
	}
	dir := t.TempDir()
	killBetweenAppends(t, dir, "TestCrashBetweenAppendsConvergesInFewCommits")
	s := openTestStore(t, dir)
	if n, err := s.Table(TableMessages).Count(context.Background(), ""); err != nil || n == 0 {
		t.Fatalf("after the kill Lance holds %d messages (%v); want the batch's messages", n, err)
	}
	before := tableVersions(t, s)
	batch := splitCorpus()
	out := upsert(t, s, batch)
	after := tableVersions(t, s)
	for _, name := range tableNames {
		// One append per 32 MiB chunk of parts, one of sessions; none for messages.
		if d := after[name] - before[name]; d > 3 {
			t.Errorf("%s: the converging write made %d Lance versions, want at most 3 (%d messages in the batch)", name, d, out.Matched.Messages)
		}
	}
	if out.Reindexed != 0 {
		t.Errorf("reindexed %d messages whose search text was already right", out.Reindexed)
	}
	drift, err := s.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var want view.Tally
	for _, e := range batch {
		tallyRow(&want, e.Kind())
	}
	for i, d := range drift {
		if wantRows := []int{want.Sessions, want.Messages, want.Parts}[i]; !d.OK() || d.Lance != int64(wantRows) {
			t.Errorf("%s: lance %d mirror %d, want %d; drift %+v", d.Table, d.Lance, d.Mirror, wantRows, d)
		}
	}
}

// BenchmarkCrashRecovery times the write that converges after a kill between the message and
// part appends of a large batch, against the same batch written into an empty store (the goal:
// no slower). Run: make bench PKGS=./store/ BENCH=CrashRecovery
func BenchmarkCrashRecovery(b *testing.B) {
	batch := splitCorpus()
	for _, tc := range []struct {
		name  string
		crash bool
	}{{"cold", false}, {"after_kill", true}} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				dir := b.TempDir()
				if tc.crash {
					killBetweenAppends(b, dir, "TestCrashBetweenAppendsConvergesInFewCommits")
				}
				s, err := Open(context.Background(), Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state"), Command: "bench"})
				if err != nil {
					b.Fatal(err)
				}
				events := clone(b, batch)
				b.StartTimer()
				if _, err := s.Upsert(context.Background(), events, Stamp{Adapter: "bench"}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(len(batch)), "events/op")
		})
	}
}
