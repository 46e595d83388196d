package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/store/sqlite"
)

// ErrUnknownAdapter is returned by Targets for an adapter name Pond does not know.
var ErrUnknownAdapter = errors.New("unknown adapter")

// ErrPathNeedsAdapter is returned by Targets for a path without an adapter.
var ErrPathNeedsAdapter = errors.New("--path needs an adapter: pond sync ADAPTER --path DIR")

// Env is the environment adapters read, with the store's SQLite opener for agents that keep
// sessions in SQLite, and its row writer for restores into them.
func Env() adapters.Env {
	env := adapters.CurrentEnv()
	env.OpenSQLite = sqlite.OpenAgentDB
	env.WriteRows = sqlite.WriteAgentRows
	return env
}

// ExistingRoots are the adapter's default roots that exist on this machine. A searched root
// (Aider's: the home folder, which always exists) counts only when its search finds a session
// file there; that answer is kept for a minute, since status asks on every call.
func ExistingRoots(a adapters.Adapter, env adapters.Env) []string {
	var out []string
	for _, r := range a.Roots(env) {
		if st, err := os.Stat(r); err != nil || !st.IsDir() {
			continue
		}
		if a.Capabilities().Searched && !searchFinds(a, env, r) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// searchFound caches searchFinds per adapter and root.
var searchFound struct {
	sync.Mutex
	m map[string]searchAnswer
}

type searchAnswer struct {
	found bool
	at    time.Time
}

// searchFinds reports whether a's search of root finds a source (within a few seconds: a
// search cut short by the deadline counts what it found).
func searchFinds(a adapters.Adapter, env adapters.Env, root string) bool {
	key := a.Name() + "\x00" + root
	searchFound.Lock()
	ans, ok := searchFound.m[key]
	searchFound.Unlock()
	if ok && time.Since(ans.at) < time.Minute {
		return ans.found
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srcs, _ := a.Scan(ctx, env, root)
	ans = searchAnswer{found: len(srcs) > 0, at: time.Now()}
	searchFound.Lock()
	if searchFound.m == nil {
		searchFound.m = map[string]searchAnswer{}
	}
	searchFound.m[key] = ans
	searchFound.Unlock()
	return ans.found
}

// Bootstrap enables the adapters whose data exists, the first time Pond runs: only when the
// config names no adapter at all (a disabled entry counts) and capture is not declined.
func Bootstrap(cfg *config.Config, env adapters.Env) (changed bool) {
	if len(cfg.Adapters) > 0 || cfg.Consent.Capture == config.Declined {
		return false
	}
	for _, a := range all.Adapters() {
		if len(ExistingRoots(a, env)) > 0 {
			cfg.Adapters[a.Name()] = config.Adapter{Enabled: true}
			changed = true
		}
	}
	return changed
}

// Targets picks what a sync reads: one named adapter (optionally at path, which must be
// absolute), or every enabled adapter at its configured or discovered root.
func Targets(cfg *config.Config, env adapters.Env, name, path string) ([]Target, error) {
	if name != "" {
		a, ok := all.ByName(name)
		if !ok {
			return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownAdapter, name, strings.Join(all.Names(), ", "))
		}
		t := Target{Adapter: a, Named: true}
		switch {
		case path != "":
			t.Roots = []string{filepath.Clean(path)}
		case cfg.Adapters[name].Path != "":
			t.Roots = []string{cfg.Adapters[name].Path}
		default:
			t.Roots = ExistingRoots(a, env)
		}
		return []Target{t}, nil
	}
	if path != "" {
		return nil, ErrPathNeedsAdapter
	}
	var out []Target
	for _, a := range all.Adapters() {
		entry, ok := cfg.Adapters[a.Name()]
		if !ok || !entry.Enabled {
			continue
		}
		t := Target{Adapter: a}
		if entry.Path != "" {
			t.Roots = []string{entry.Path}
		} else {
			t.Roots = ExistingRoots(a, env)
		}
		out = append(out, t)
	}
	return out, nil
}
