package resume

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters/restore"
)

// existsError is a target file that already exists.
type existsError struct{ path string }

func (e *existsError) Error() string { return e.path + " already exists" }

// unsafeError is a file a restore refuses to write: it would land outside the agent's folder,
// or reach it through a link out of it or through another user's folder.
type unsafeError struct{ path, reason string }

func (e *unsafeError) Error() string { return fmt.Sprintf("%s: %s", e.path, e.reason) }

// writeBatch writes every file or none, each below one of roots and never outside it. Paths
// are planned from the archive, which is untrusted, so each is checked before anything is
// written: it must lie below a root (lexically), and the folders of it that exist must resolve
// below that root's resolved path (a link inside the agent's folder may point elsewhere inside
// it, never out). Then every final name is checked, so a collision writes nothing. guard, when
// set, checks a root before and after its missing folders are made (--out-dir: no links, no
// folder of another user).
//
// Files are then written through an os.Root per root, which refuses to follow a link out of it
// even if one appears after the checks: each file is created under a temporary name in its own
// folder, synced, given mtime now and linked to its final name (a link fails rather than replace
// an existing file, so a name taken in the meantime is never overwritten). On any failure the
// files and folders created so far are removed again.
//
// A merge (restore.Planned.Merge) adds members to a JSON object file that may exist, never
// replacing one (mergeOne).
//
// Rows for an agent's database (restore.Rows) are checked like files, except that the database
// may exist; they are written last, with rows, so that their one transaction failing undoes the
// files too.
func writeBatch(ctx context.Context, roots []string, guard func(dir string) error, files []restore.Planned, rows restore.RowWriter, now time.Time) (err error) {
	for _, r := range roots {
		if guard != nil {
			if err := guard(r); err != nil {
				return err
			}
		}
	}
	where := make([]int, len(files)) // the root of each file
	rels := make([]string, len(files))
	for i, f := range files {
		where[i], rels[i] = -1, ""
		for j, r := range roots {
			rel, err := filepath.Rel(r, f.Path)
			if err == nil && filepath.IsLocal(rel) && (where[i] < 0 || len(r) > len(roots[where[i]])) {
				where[i], rels[i] = j, rel
			}
		}
		if where[i] < 0 {
			return &unsafeError{f.Path, fmt.Sprintf("not below the agent's folder %s", roots[0])}
		}
		check := filepath.Dir(f.Path)
		if f.Rows != nil {
			check = f.Path // an existing database is written through whatever link it is
		}
		if err := resolvesBelow(roots[where[i]], check); err != nil {
			return err
		}
	}
	for _, f := range files {
		if f.Rows != nil {
			continue // a database: rows are added to it, and a taken key fails its transaction
		}
		if f.Merge {
			if err := checkMerge(f.Path, f.Data); err != nil {
				return err
			}
			continue // an index: its members are added to the file's, whose own are kept
		}
		if _, err := os.Lstat(f.Path); err == nil {
			return &existsError{f.Path}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("check %s: %w", f.Path, err)
		}
	}

	opened := make([]*os.Root, len(roots))
	defer func() {
		for _, r := range opened {
			if r != nil {
				r.Close()
			}
		}
	}()
	var undo []func() // removes what was created, in creation order
	defer func() {
		if err == nil {
			return
		}
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}()
	for i, f := range files {
		j := where[i]
		if opened[j] == nil {
			dirs, err := mkdirs(roots[j])
			for _, d := range dirs {
				undo = append(undo, func() { os.Remove(d) })
			}
			if err != nil {
				return fmt.Errorf("write %s: %w", f.Path, err)
			}
			if guard != nil {
				if err := guard(roots[j]); err != nil {
					return err
				}
			}
			if opened[j], err = os.OpenRoot(roots[j]); err != nil {
				return fmt.Errorf("write %s: %w", f.Path, err)
			}
		}
		r := opened[j]
		dirs, err := mkdirsIn(r, filepath.Dir(rels[i]))
		for _, d := range dirs {
			undo = append(undo, func() { r.Remove(d) })
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
		if f.Rows != nil {
			continue
		}
		if f.Merge {
			back, err := mergeOne(r, rels[i], f.Data, now)
			if err != nil {
				return fmt.Errorf("write %s: %w", f.Path, err)
			}
			undo = append(undo, back)
			continue
		}
		if err := writeOne(r, rels[i], f.Data, now); errors.Is(err, errTaken) {
			return &existsError{f.Path}
		} else if err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
		rel := rels[i]
		undo = append(undo, func() { r.Remove(rel) })
	}
	return writeRows(ctx, rows, files)
}

// writeRows inserts the rows of the batch's database plans (restore.Rows) with w, after its files:
// the plans of one database (a session and its sub-agents) in one transaction. Their paths were
// checked with the files'. A plan whose database lacks columns is downgraded for them. An
// encoder puts a batch in one database, so a failure leaves nothing behind.
func writeRows(ctx context.Context, w restore.RowWriter, files []restore.Planned) error {
	var order []string
	byPath := map[string][]int{}
	for i, f := range files {
		if f.Rows == nil {
			continue
		}
		if _, ok := byPath[f.Path]; !ok {
			order = append(order, f.Path)
		}
		byPath[f.Path] = append(byPath[f.Path], i)
	}
	for _, path := range order {
		if w == nil {
			return fmt.Errorf("write %s: this restore inserts rows into the agent's database, and no database writer was given", path)
		}
		idx := byPath[path]
		all := &restore.Rows{Create: files[idx[0]].Rows.Create, Renumber: map[string]string{}}
		var ids []string
		for _, i := range idx {
			r := files[i].Rows
			all.Inserts = append(all.Inserts, r.Inserts...)
			for t, c := range r.Renumber {
				all.Renumber[t] = c
			}
			ids = append(ids, files[i].ID)
		}
		left, err := w(ctx, path, all)
		if errors.Is(err, restore.ErrRowExists) {
			return &existsError{fmt.Sprintf("%s: session %s", path, strings.Join(ids, ", "))}
		}
		if err != nil {
			return err
		}
		if len(left) > 0 {
			for _, i := range idx {
				files[i].Downgrade(restore.LeftOutReason(left))
			}
		}
	}
	return nil
}

// resolvesBelow checks that the part of dir that exists resolves, links and all, below root's
// resolved path. A link that cannot be resolved (dangling) is left to os.Root, which refuses to
// follow it out.
func resolvesBelow(root, dir string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing below it exists either
	}
	if err != nil {
		return fmt.Errorf("check %s: %w", root, err)
	}
	d := dir
	for {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		if d == root || filepath.Dir(d) == d {
			return nil
		}
		d = filepath.Dir(d)
	}
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		return nil
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || !(rel == "." || filepath.IsLocal(rel)) {
		return &unsafeError{d, fmt.Sprintf("leads to %s, outside the agent's folder %s (Pond never follows a link out of it)", real, root)}
	}
	return nil
}

// mkdirs creates dir and its missing parents, returning those it created (outermost first).
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		err := os.Mkdir(missing[i], 0o700)
		if errors.Is(err, fs.ErrExist) {
			continue // made meanwhile, or a dangling link: not ours to remove
		}
		if err != nil {
			return created, err
		}
		created = append(created, missing[i])
	}
	return created, nil
}

// mkdirsIn is mkdirs for a folder relative to r.
func mkdirsIn(r *os.Root, dir string) ([]string, error) {
	var missing []string
	for d := dir; d != "."; d = filepath.Dir(d) {
		if _, err := r.Stat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		err := r.Mkdir(missing[i], 0o700)
		if errors.Is(err, fs.ErrExist) {
			continue // made meanwhile, or a dangling link: not ours to remove
		}
		if err != nil {
			return created, err
		}
		created = append(created, missing[i])
	}
	return created, nil
}

// errTaken is a final name that was taken between the checks and the write.
var errTaken = errors.New("taken meanwhile")

// writeOne writes data to rel below r, which must not exist, without a partial file ever being
// visible under that name.
func writeOne(r *os.Root, rel string, data []byte, now time.Time) error {
	var nonce [8]byte
	rand.Read(nonce[:])
	tmp := filepath.Join(filepath.Dir(rel), ".pond-restore-"+hex.EncodeToString(nonce[:]))
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer r.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	// Agents purge sessions by mtime: a restored file is new.
	if err := r.Chtimes(tmp, now, now); err != nil {
		return err
	}
	if err := r.Link(tmp, rel); errors.Is(err, fs.ErrExist) {
		return errTaken
	} else if err != nil {
		return err
	}
	if d, err := r.Open(filepath.Dir(rel)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
