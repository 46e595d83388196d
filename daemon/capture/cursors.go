package capture

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/internal/atomicfile"
	"github.com/pondhq/pond/session/view"
)

// Cursors keeps each adapter's source cursors in the state directory, one JSON file per
// adapter, rewritten atomically after every committed batch.
type Cursors struct {
	Dir string
}

// CursorSet is one adapter's cursors by root, then by source key.
type CursorSet map[string]map[string]adapters.Cursor

// Get returns the cursor of a source and whether there is one.
func (c CursorSet) Get(root, key string) (adapters.Cursor, bool) {
	cur, ok := c[root][key]
	return cur, ok
}

// Set records a source's cursor.
func (c CursorSet) Set(root, key string, cur adapters.Cursor) {
	if c[root] == nil {
		c[root] = map[string]adapters.Cursor{}
	}
	c[root][key] = cur
}

func (c *Cursors) path(adapter string) string {
	return filepath.Join(c.Dir, "cursors", adapter+".json")
}

// Load reads an adapter's cursors; none yet is an empty set.
func (c *Cursors) Load(adapter string) (CursorSet, error) {
	return loadState[CursorSet](c.path(adapter), "cursors")
}

// Save writes an adapter's cursors.
func (c *Cursors) Save(adapter string, set CursorSet) error { return saveState(c.path(adapter), set) }

// loadState reads a JSON state file; none yet is an empty value. A damaged file is an empty
// value too: it costs a full re-read or re-scan, which converges, and never blocks capture.
func loadState[T ~map[string]V, V any](path, what string) (T, error) {
	set := T{}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return set, nil
	}
	if err != nil {
		return nil, fmt.Errorf("capture: %s: %w", what, err)
	}
	if json.Unmarshal(b, &set) != nil {
		return T{}, nil
	}
	return set, nil
}

// saveState writes a JSON state file atomically.
func saveState(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return writeAtomic(path, b)
}

// writeAtomic writes a state file atomically (mode 0600).
func writeAtomic(path string, data []byte) error { return atomicfile.Write(path, data, 0o600) }

// SaveLastSync records a finished sync in the state directory.
func SaveLastSync(stateDir string, r *view.SyncReport, runErr error) error {
	ls := view.LastSync{Outcome: "failed"}
	if r != nil {
		ls = view.LastSync{
			FinishedAt:       r.FinishedAt.Format("2006-01-02T15:04:05Z07:00"),
			DurationSecs:     r.FinishedAt.Sub(r.StartedAt).Seconds(),
			SessionsInserted: r.Inserted.Sessions,
			MessagesInserted: r.Inserted.Messages,
			Outcome:          r.Outcome,
		}
	}
	if runErr != nil {
		ls.Outcome, ls.Error = "failed", runErr.Error()
	}
	prev, _ := ReadLastSync(stateDir)
	ls.Health = nextHealth(prev.Health, r)
	b, _ := json.MarshalIndent(ls, "", "  ")
	return writeAtomic(filepath.Join(stateDir, "last-sync.json"), b)
}

// ReadLastSync reads the last-sync record; ok is false when there is none.
func ReadLastSync(stateDir string) (ls view.LastSync, ok bool) {
	b, err := os.ReadFile(filepath.Join(stateDir, "last-sync.json"))
	if err != nil {
		return ls, false
	}
	return ls, json.Unmarshal(b, &ls) == nil
}
