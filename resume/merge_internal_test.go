package resume

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/adapters/restore"
)

// TestMergeIntoAnIndex: a planned merge (OpenClaw's sessions.json) adds its members to the
// index already there and keeps every byte of it; a name the index already has fails the whole
// batch with nothing written and the index as it was; a later failure in the batch puts the
// index back; an index that is no JSON object is refused, untouched; a missing one is created.
func TestMergeIntoAnIndex(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	const theirs = "{\n    \"agent:main:main\": {\"sessionId\": \"s-old\", \"updatedAt\": 1},\n    \"agent:main:x\":{}\n}\n"
	add := []byte(`{"agent:main:pond-a": {"sessionId": "a"}, "agent:main:subagent:b": {"sessionId": "b", "spawnedBy": "agent:main:pond-a"}}`)
	setup := func(t *testing.T, index string) (root, path string) {
		root = t.TempDir()
		path = filepath.Join(root, "agents", "main", "sessions", "sessions.json")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if index != "" {
			if err := os.WriteFile(path, []byte(index), 0o640); err != nil {
				t.Fatal(err)
			}
		}
		return root, path
	}
	plan := func(root, path string, data []byte) []restore.Planned {
		side := restore.NewFile(path, "a", "a", restore.Native, "", data)
		side.Sidecar, side.Merge = true, true
		return []restore.Planned{
			restore.NewFile(filepath.Join(filepath.Dir(path), "a.jsonl"), "a", "a", restore.Foreign, "", []byte("{}\n")),
			side,
		}
	}
	read := func(t *testing.T, path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	t.Run("added-beside", func(t *testing.T) {
		root, path := setup(t, theirs)
		if err := writeBatch(context.Background(), []string{root}, nil, plan(root, path, add), nil, now); err != nil {
			t.Fatal(err)
		}
		got := read(t, path)
		if !strings.HasPrefix(got, strings.TrimSuffix(theirs, "\n}\n")) {
			t.Errorf("the index's own bytes changed:\n%s", got)
		}
		var index map[string]map[string]any
		if err := json.Unmarshal([]byte(got), &index); err != nil {
			t.Fatalf("merged index is not JSON: %v\n%s", err, got)
		}
		for _, k := range []string{"agent:main:main", "agent:main:x", "agent:main:pond-a", "agent:main:subagent:b"} {
			if _, ok := index[k]; !ok {
				t.Errorf("merged index lacks %s:\n%s", k, got)
			}
		}
		if index["agent:main:main"]["sessionId"] != "s-old" || len(index) != 4 {
			t.Errorf("merged index:\n%s", got)
		}
		if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
			t.Errorf("the index's mode changed to %v", info.Mode().Perm())
		}
	})
	t.Run("name-taken", func(t *testing.T) {
		index := `{"agent:main:pond-a": {"sessionId": "mine"}}`
		root, path := setup(t, index)
		var exists *existsError
		if err := writeBatch(context.Background(), []string{root}, nil, plan(root, path, add), nil, now); !errors.As(err, &exists) {
			t.Fatalf("got %v, want a refusal for the taken key", err)
		}
		if got := read(t, path); got != index {
			t.Errorf("the index changed:\n%s", got)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(path), "a.jsonl")); err == nil {
			t.Error("the refused batch wrote its transcript")
		}
	})
	t.Run("undone", func(t *testing.T) {
		root, path := setup(t, theirs)
		files := plan(root, path, add)
		// Rows planned for a database, with no writer for them: the batch fails after its
		// files are written, and the index is put back.
		rows := &restore.Rows{Inserts: []restore.Insert{{Table: "t", Columns: []string{"a"}, Values: []any{int64(1)}}}}
		files = append(files, restore.NewRows(filepath.Join(root, "state.db"), "a", "a", restore.Foreign, "", rows))
		if err := writeBatch(context.Background(), []string{root}, nil, files, nil, now); err == nil {
			t.Fatal("the batch succeeded without a database writer")
		}
		if got := read(t, path); got != theirs {
			t.Errorf("the index was not put back:\n%s", got)
		}
	})
	t.Run("not-an-object", func(t *testing.T) {
		for _, index := range []string{"[1, 2]\n", "{\"a\": 1} {}", "not json"} {
			root, path := setup(t, index)
			if err := writeBatch(context.Background(), []string{root}, nil, plan(root, path, add), nil, now); err == nil {
				t.Errorf("merged into %q", index)
			}
			if got := read(t, path); got != index {
				t.Errorf("the index %q changed: %q", index, got)
			}
		}
	})
	t.Run("created", func(t *testing.T) {
		root, path := setup(t, "")
		if err := writeBatch(context.Background(), []string{root}, nil, plan(root, path, add), nil, now); err != nil {
			t.Fatal(err)
		}
		if got := read(t, path); got != string(add) {
			t.Errorf("index %q, want %q", got, add)
		}
	})
}
