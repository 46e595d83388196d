package lance

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// Lance (0.37, on a local disk) writes a commit's files — data files, deletion files, index
// files, the transaction file and the version's manifest — and renames them into place without
// fsync. A write that returned could then vanish in a power loss, after the caller moved on (the
// capture engine saves its cursors after a write: incremental sources are never read again below
// a cursor). Pond's native module cannot change that in this release, so every Table method that
// commits ends with tableFiles.sync: the files the commit added, then the directories that gained
// them, deepest first, are synced before the method returns.
//
// The Go side cannot order Lance's own steps: a crash inside a commit may still leave a manifest
// whose data files are not on disk. The window shrinks from the kernel's writeback delay (about
// 30 s) to the commit itself.

// settledAge is how old a file found by a process's first sync of a table must be to be taken
// as on disk already. The kernel writes dirty pages back within dirty_expire_centisecs (30 s by
// default); files younger than this may be a killed writer's unsynced commit, and are synced.
const settledAge = 10 * time.Minute

// tableFiles tracks which entries under a table's directory are known to be on disk.
type tableFiles struct {
	mu    sync.Mutex
	root  string
	known map[string]bool // paths relative to root, "." for root itself
	// synced counts the files and directories synced so far and took the time spent syncing
	// (tests and benchmarks).
	synced int
	took   time.Duration
}

func newTableFiles(root string) *tableFiles { return &tableFiles{root: root} }

// sync makes every entry added under root since the last sync durable: new files first, then
// each directory that gained an entry (and, for a new table, the database directory holding it).
// Files are also narrowed to 0600 and directories to 0700: Lance creates them 0644 and 0755
// under the usual umask.
func (tf *tableFiles) sync() error {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	t0 := time.Now()
	defer func() { tf.took += time.Since(t0) }()
	first := tf.known == nil
	settled := time.Now().Add(-settledAge)
	seen := map[string]bool{}
	var files []string
	dirs := map[string]bool{}
	err := filepath.WalkDir(tf.root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path != tf.root {
				return nil // a temporary file renamed meanwhile
			}
			return err
		}
		rel, _ := filepath.Rel(tf.root, path)
		if !e.IsDir() && !e.Type().IsRegular() {
			return nil
		}
		if tf.known[rel] {
			seen[rel] = true
			return nil
		}
		if first && rel != "." {
			// Before this process wrote anything: only recent entries may be a killed
			// writer's, not yet on disk.
			info, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			if info.ModTime().Before(settled) {
				seen[rel] = true
				return nil
			}
		}
		seen[rel] = true
		if e.IsDir() {
			dirs[path] = true
		} else {
			files = append(files, path)
		}
		dirs[filepath.Dir(path)] = true
		return nil
	})
	if err != nil {
		return fmt.Errorf("lance: list %s: %w", tf.root, err)
	}
	// The files first, then the directories by depth, deepest first, so a new directory's own
	// entries are on disk before its name is. Syncs of one step run together: the file system
	// commits them in one journal transaction rather than one each.
	errs := syncAll(files, func(f string) error { return syncFile(f, 0o600) })
	for i, err := range errs {
		switch {
		case err == nil:
			tf.synced++
		case errors.Is(err, fs.ErrNotExist):
			delete(seen, mustRel(tf.root, files[i])) // a temporary file renamed meanwhile
		default:
			return fmt.Errorf("lance: sync %s: %w", files[i], err)
		}
	}
	byDepth := map[int][]string{}
	depths := []int{}
	for d := range dirs {
		n := strings.Count(d, string(filepath.Separator))
		if byDepth[n] == nil {
			depths = append(depths, n)
		}
		byDepth[n] = append(byDepth[n], d)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(depths)))
	for _, n := range depths {
		for i, err := range syncAll(byDepth[n], syncDir) {
			if err != nil {
				return fmt.Errorf("lance: sync %s: %w", byDepth[n][i], err)
			}
			tf.synced++
		}
	}
	tf.known = seen
	return nil
}

// syncAll runs do on every path, a few at a time, and returns each one's error.
func syncAll(paths []string, do func(string) error) []error {
	errs := make([]error, len(paths))
	slots := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			errs[i] = do(p)
			<-slots
		}()
	}
	wg.Wait()
	return errs
}

func mustRel(root, path string) string {
	rel, _ := filepath.Rel(root, path)
	return rel
}

// syncFile narrows path to at most perm and syncs it.
func syncFile(path string, perm fs.FileMode) error {
	flag := os.O_RDONLY // enough for fsync
	if runtime.GOOS == "windows" {
		flag = os.O_RDWR // FlushFileBuffers needs a handle that may write
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := narrow(f, perm); err != nil {
		return err
	}
	return f.Sync()
}

// syncDir narrows the directory to 0700 and syncs it, which makes the names in it durable.
// Windows cannot sync a directory (its names are durable with the file system's journal).
func syncDir(path string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(path)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := narrow(d, 0o700); err != nil {
		return err
	}
	return d.Sync()
}

// narrow removes the bits of f's mode outside perm, where modes mean something.
func narrow(f *os.File, perm fs.FileMode) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Mode().Perm()&^perm == 0 {
		return nil
	}
	return f.Chmod(st.Mode().Perm() & perm)
}
