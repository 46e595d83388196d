package capture

import (
	"context"
	"maps"
	"path/filepath"

	"github.com/pondhq/pond/adapters"
)

// RootState is what a sync left of a root it scanned and settled, for an adapter that stamps
// its roots (adapters.Adapter.RootStamp): while the root's stamp stays the same, the next sync does
// not scan it and reports what this one's next scan would have found.
type RootState struct {
	Stamp string `json:"stamp"` // the root's stamp, taken before the scan
	// Version is the Pond version that scanned: another may stamp sources differently.
	Version string `json:"version,omitempty"`
	// Cursors is how many cursors the adapter held for the root: another number means the
	// cursor file is not the one the root was settled with.
	Cursors int `json:"cursors"`
	Sources int `json:"sources"`
	// Skipped counts the sources by why a sync would skip them: fresh, or the adapter's own
	// reasons (superseded, unsupported).
	Skipped map[string]int `json:"skipped,omitempty"`
}

// RootSet is one adapter's settled roots by root.
type RootSet map[string]RootState

func (c *Cursors) rootsPath(adapter string) string {
	return filepath.Join(c.Dir, "cursors", adapter+".roots.json")
}

// LoadRoots reads an adapter's settled roots; none yet, or a damaged file, is an empty set
// (every root is scanned).
func (c *Cursors) LoadRoots(adapter string) (RootSet, error) {
	return loadState[RootSet](c.rootsPath(adapter), "root stamps")
}

// SaveRoots writes an adapter's settled roots.
func (c *Cursors) SaveRoots(adapter string, set RootSet) error {
	return saveState(c.rootsPath(adapter), set)
}

// scannedRoot is a root scanned by this sync, with the stamp taken before the scan ("" when
// the adapter gave none).
type scannedRoot struct {
	root  string
	stamp string
	srcs  []adapters.Source
}

// rootStamp is the adapter's stamp of root, or "" when it has none to give. A failure only
// costs a scan, which reports what is wrong with the root.
func (e *Engine) rootStamp(ctx context.Context, a adapters.Adapter, root string) string {
	stamp, err := a.RootStamp(ctx, e.Env, root)
	if err != nil {
		e.Log.Debug("capture: no root stamp", "adapter", a.Name(), "root", root, "error", err)
		return ""
	}
	return stamp
}

// unchanged reports whether a root stamped stamp can be left unscanned: it was settled with
// that stamp, by this version, over the cursors now held.
func (st RootState) unchanged(stamp, version string, cursors int) bool {
	return stamp != "" && st.Stamp == stamp && st.Version == version && st.Cursors == cursors
}

// settle records the roots this sync scanned. A root is settled when its next scan would find
// nothing to read: every source skipped by the adapter or holding a cursor at its stamp. It is
// not when a read failed (no cursor), a turn was in progress (OpenCode's pending/ cursor) or the
// source changed between scan and read (a cursor at another stamp): the next sync scans it
// again.
func settle(roots RootSet, scanned []scannedRoot, cursors CursorSet, version string) (changed bool) {
	for _, sr := range scanned {
		st, ok := settled(sr, cursors)
		if !ok || sr.stamp == "" {
			if _, had := roots[sr.root]; had {
				delete(roots, sr.root)
				changed = true
			}
			continue
		}
		st.Version = version
		if old, had := roots[sr.root]; !had || !sameRootState(old, st) {
			roots[sr.root] = st
			changed = true
		}
	}
	return changed
}

func settled(sr scannedRoot, cursors CursorSet) (RootState, bool) {
	st := RootState{Stamp: sr.stamp, Cursors: len(cursors[sr.root]), Sources: len(sr.srcs), Skipped: map[string]int{}}
	for _, src := range sr.srcs {
		if src.Skip != "" {
			st.Skipped[src.Skip]++
			continue
		}
		if cur, ok := cursors.Get(sr.root, src.Key); !ok || cur.Stamp != src.Stamp {
			return RootState{}, false
		}
		st.Skipped[SkipFresh]++
	}
	return st, true
}

func sameRootState(a, b RootState) bool {
	return a.Stamp == b.Stamp && a.Version == b.Version && a.Cursors == b.Cursors && a.Sources == b.Sources &&
		maps.Equal(a.Skipped, b.Skipped)
}
