package daemon

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watcher follows the adapters' roots, sub-folders included (new ones are added as they
// appear), and reports which adapters saw changes once their files have been quiet for a
// moment. It never polls: it sleeps until the kernel reports a change.
type watcher struct {
	fs       *fsnotify.Watcher
	log      *slog.Logger
	debounce time.Duration // quiet time before a batch is reported
	maxWait  time.Duration // a batch is reported at the latest this long after its first change

	mu      sync.Mutex
	roots   map[string]string // root -> adapter
	dirs    map[string]bool
	pending map[string]bool // adapters with unreported changes
	ready   chan struct{}   // signalled (capacity 1) when pending gains an adapter
}

func newWatcher(log *slog.Logger, debounce time.Duration) (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return &watcher{fs: fw, log: log, debounce: debounce, maxWait: 10 * debounce,
		roots: map[string]string{}, dirs: map[string]bool{}, pending: map[string]bool{}, ready: make(chan struct{}, 1)}, nil
}

func (w *watcher) close() error { return w.fs.Close() }

// setRoots makes the watched roots exactly roots (adapter -> its roots). A root that is a
// symbolic link (a dotfile manager's ~/.claude -> ~/dotfiles/claude) is watched where it
// leads: the kernel reports changes under the folder it watches, by that folder's path.
func (w *watcher) setRoots(roots map[string][]string) {
	want := map[string]string{}
	for a, rs := range roots {
		for _, r := range rs {
			want[resolve(r)] = a
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for d := range w.dirs {
		if _, ok := w.rootOf(d, want); !ok {
			w.fs.Remove(d)
			delete(w.dirs, d)
		}
	}
	old := w.roots
	w.roots = want
	added := false
	for r, a := range want {
		w.addTree(r, a)
		if _, ok := old[r]; !ok {
			// Files written before this watch existed raised no event: read the root once.
			w.pending[a] = true
			added = true
		}
	}
	if added {
		select {
		case w.ready <- struct{}{}:
		default:
		}
	}
}

// count is how many directories are under watch.
func (w *watcher) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.dirs)
}

// resolve is path with its symbolic links followed, or cleaned as it is when it cannot be
// resolved (it does not exist yet).
func resolve(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return filepath.Clean(path)
}

// addTree watches dir and every folder below it for adapter (callers hold mu). A symbolic link
// to a folder, dir itself or one below it, is followed; a target outside the roots joins them,
// since the kernel names its changes by the target's path.
func (w *watcher) addTree(dir, adapter string) {
	dir = resolve(dir)
	if _, under := w.rootOf(dir, w.roots); !under {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			return
		}
		w.roots[dir] = adapter
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if !w.dirs[resolve(p)] { // a link back into what is watched already is a loop
				w.addTree(p, adapter)
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if w.dirs[p] {
			return nil
		}
		if err := w.fs.Add(p); err != nil {
			w.log.Warn("daemon: cannot watch a folder", "path", p, "error", err)
			return filepath.SkipDir
		}
		w.dirs[p] = true
		return nil
	})
}

// rootOf finds the adapter whose root holds p (the longest matching root).
func (w *watcher) rootOf(p string, roots map[string]string) (adapter string, ok bool) {
	best := -1
	for r, a := range roots {
		if (p == r || strings.HasPrefix(p, r+string(filepath.Separator))) && len(r) > best {
			best, adapter, ok = len(r), a, true
		}
	}
	return adapter, ok
}

// take returns and clears the adapters with changes.
func (w *watcher) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for a := range w.pending {
		out = append(out, a)
	}
	clear(w.pending)
	return out
}

// run reads the kernel's events until ctx ends.
func (w *watcher) run(ctx context.Context) {
	batch := map[string]bool{}
	var quiet, deadline <-chan time.Time
	report := func() {
		w.mu.Lock()
		for a := range batch {
			w.pending[a] = true
		}
		w.mu.Unlock()
		clear(batch)
		quiet, deadline = nil, nil
		select {
		case w.ready <- struct{}{}:
		default:
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			w.log.Warn("daemon: file watcher", "error", err)
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Changes were lost: treat every watched adapter as changed.
				w.mu.Lock()
				for _, a := range w.roots {
					batch[a] = true
				}
				w.mu.Unlock()
				report()
			}
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			w.mu.Lock()
			a, known := w.rootOf(ev.Name, w.roots)
			if known && ev.Has(fsnotify.Create) {
				w.addTree(ev.Name, a) // a new folder, and whatever was already written into it
			}
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				delete(w.dirs, ev.Name)
			}
			w.mu.Unlock()
			if !known || ev.Op == fsnotify.Chmod {
				continue
			}
			batch[a] = true
			quiet = time.After(w.debounce)
			if deadline == nil {
				deadline = time.After(w.maxWait)
			}
		case <-quiet:
			report()
		case <-deadline:
			report()
		}
	}
}
