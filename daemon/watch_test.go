package daemon

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/daemon/capture"
)

// TestWatcherFollowsSymlinks: an agent root that is a symbolic link (a dotfile manager's
// ~/.claude -> ~/dotfiles/claude), and a folder inside it that links elsewhere, are watched
// where they lead: a session written there is reported for the adapter by the real watcher.
func TestWatcherFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "claude")
	elsewhere := filepath.Join(dir, "elsewhere")
	for _, d := range []string{filepath.Join(real, "projects", "p"), filepath.Join(elsewhere, "q")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	root := filepath.Join(dir, "home", ".claude")
	if err := os.MkdirAll(filepath.Dir(root), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, root); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(real, "projects", "linked")); err != nil {
		t.Fatal(err)
	}

	w, err := newWatcher(slog.New(slog.DiscardHandler), 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	w.setRoots(map[string][]string{"claude-code": {root}})
	// real, projects, p, and through the inner link elsewhere and q.
	if n := w.count(); n != 5 {
		t.Fatalf("watching %d folders, want 5 (the link's target, its folders and the inner link's)", n)
	}
	<-w.ready // a new root is read once
	w.take()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.run(ctx)
	for _, file := range []string{
		filepath.Join(root, "projects", "p", "s.jsonl"),
		filepath.Join(root, "projects", "linked", "q", "t.jsonl"),
	} {
		if err := os.WriteFile(file, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		select {
		case <-w.ready:
		case <-time.After(time.Minute): // a bound on a hang, not a measure of speed
			t.Fatalf("no change reported for %s", file)
		}
		if got := w.take(); !slices.Equal(got, []string{"claude-code"}) {
			t.Fatalf("changes reported for %v after writing %s, want [claude-code]", got, file)
		}
	}
}

// TestSearchedRootsAreNotWatched: a root an adapter searches (Aider's home) is never handed to
// the watcher, which would otherwise follow the whole home; an agent's own root is.
func TestSearchedRootsAreNotWatched(t *testing.T) {
	home := t.TempDir()
	var targets []capture.Target
	// Aider's root is the home, searched.
	for _, name := range []string{"aider", "claude-code"} {
		a, ok := all.ByName(name)
		if !ok {
			t.Fatalf("no adapter %s", name)
		}
		targets = append(targets, capture.Target{Adapter: a, Roots: []string{filepath.Join(home, a.Name())}})
	}
	got := watchedRoots(targets)
	if _, ok := got["aider"]; ok {
		t.Errorf("aider's searched root is watched: %v", got)
	}
	if !slices.Equal(got["claude-code"], []string{filepath.Join(home, "claude-code")}) {
		t.Errorf("claude-code's root is not watched: %v", got)
	}
}
