package resume

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pondhq/pond/adapters/restore"
)

// TestWriteBatchStaysBelowItsRoots: the writer's own check, whatever an encoder planned: a
// file outside every root refuses the whole batch before anything is written, and a link out of
// the root that appears only after the checks is still not followed (os.Root).
func TestWriteBatchStaysBelowItsRoots(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	t.Run("outside", func(t *testing.T) {
		home := t.TempDir()
		root := filepath.Join(home, ".claude")
		files := []restore.Planned{
			restore.NewFile(filepath.Join(root, "projects", "a.jsonl"), "s1", "s1", restore.Native, "", []byte("{}\n")),
			restore.NewFile(filepath.Join(root, "projects", "..", "..", ".bash_profile"), "s2", "s2", restore.Native, "", []byte("touch PWNED\n")),
		}
		var unsafe *unsafeError
		if err := writeBatch(context.Background(), []string{root}, nil, files, nil, now); !errors.As(err, &unsafe) {
			t.Fatalf("got %v, want a refusal", err)
		}
		if entries, _ := os.ReadDir(home); len(entries) != 0 {
			t.Errorf("the refused batch wrote %v", entries)
		}
	})
	t.Run("link-after-the-checks", func(t *testing.T) {
		root, elsewhere := t.TempDir(), t.TempDir()
		// A relative link planted between the checks and the write: the first file's folder
		// is created, then replaced by a link out before the second file goes in.
		files := []restore.Planned{
			restore.NewFile(filepath.Join(root, "a", "one.jsonl"), "s1", "s1", restore.Native, "", []byte("{}\n")),
			restore.NewFile(filepath.Join(root, "b", "two.jsonl"), "s1", "s1", restore.Native, "", []byte("{}\n")),
		}
		rel, _ := filepath.Rel(root, elsewhere)
		if err := os.Symlink(rel, filepath.Join(root, "b")); err != nil {
			t.Fatal(err)
		}
		// The check sees the link leads out and refuses.
		var unsafe *unsafeError
		if err := writeBatch(context.Background(), []string{root}, nil, files, nil, now); !errors.As(err, &unsafe) {
			t.Fatalf("got %v, want a refusal", err)
		}
		// Without the check (as if the link came later), os.Root still refuses to follow it.
		r, err := os.OpenRoot(root)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if err := writeOne(r, filepath.Join("b", "two.jsonl"), []byte("{}\n"), now); err == nil {
			t.Error("a write through a link out of the root succeeded")
		}
		if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
			t.Errorf("written through the link: %v", entries)
		}
	})
}
