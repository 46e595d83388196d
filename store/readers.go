package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/paths"
)

// A read-only store on a local archive (pond copy's source, while the archive's own daemon
// runs) reads table versions that the writer's upkeep may replace and prune. So it says it
// reads: before it opens a table it creates a reader file in the archive's Lance folder and
// holds an exclusive lock on it until it closes. The writer's prune keeps every version
// replaced after the oldest live reader file was made (Store.pruneCutoff). A local archive
// therefore needs no keep time for other processes' reads, and the versions a compaction
// replaced leave the disk in the same upkeep that replaced them.
//
// A reader that dies leaves its file unlocked (the kernel drops the lock), and the next prune
// removes it. A file is created before it is locked, so an unlocked file younger than
// readerFileGrace is taken for one being set up, and kept.

// readersFolder is the folder of the reader files, inside the Lance folder; Lance lists only
// the folders named *.lance as tables.
const readersFolder = ".readers"

// readerFileGrace is how long an unlocked reader file counts as live: far above the
// microseconds between creating and locking it.
const readerFileGrace = 10 * time.Second

// readerFile is a read-only store's claim on a local archive's versions.
type readerFile struct {
	f    *os.File
	path string
}

// readersDir is the folder of the reader files of the Lance folder lanceDir.
func readersDir(lanceDir string) string { return filepath.Join(lanceDir, readersFolder) }

// registerReader creates and locks a reader file in lanceDir.
func registerReader(lanceDir string) (*readerFile, error) {
	dir := readersDir(lanceDir)
	if err := paths.MkdirPrivate(dir); err != nil {
		return nil, fmt.Errorf("store: readers: %w", err)
	}
	for attempt := 0; ; attempt++ {
		path := filepath.Join(dir, strconv.Itoa(os.Getpid())+"-"+strconv.FormatInt(time.Now().UnixNano(), 36)+".reader")
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_RDWR, paths.FileMode)
		if errors.Is(err, fs.ErrExist) && attempt < 3 {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("store: readers: %w", err)
		}
		ok, err := tryFlock(f)
		if err == nil && !ok {
			err = errors.New("locked by another process")
		}
		if err != nil {
			f.Close()
			os.Remove(path)
			return nil, fmt.Errorf("store: lock reader file %s: %w", path, err)
		}
		return &readerFile{f: f, path: path}, nil
	}
}

// Close releases the claim.
func (r *readerFile) Close() error {
	unflock(r.f)
	err := r.f.Close()
	// A prune that finds the file unlocked before it is gone removes it itself.
	if rmErr := os.Remove(r.path); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
		err = errors.Join(err, rmErr)
	}
	return err
}

// oldestReader is when the oldest live reader file in lanceDir was made; ok is false when
// there is none. It removes the files of readers that died.
func oldestReader(lanceDir string) (oldest time.Time, ok bool) {
	dir := readersDir(lanceDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return time.Time{}, false // no folder: no reader ever registered
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".reader") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		info, err := e.Info()
		if err != nil {
			continue // closed meanwhile
		}
		if !readerLive(path, info.ModTime()) {
			os.Remove(path)
			continue
		}
		if !ok || info.ModTime().Before(oldest) {
			oldest, ok = info.ModTime(), true
		}
	}
	return oldest, ok
}

// readerLive reports whether the reader file at path belongs to a running reader: its lock is
// held, it is too young to have been locked yet, or whether it is cannot be told (a failure
// to check keeps the versions, never loses a read).
func readerLive(path string, made time.Time) bool {
	if time.Since(made) < readerFileGrace {
		return true
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	defer f.Close()
	locked, err := tryFlock(f)
	if err != nil {
		return true
	}
	if locked {
		unflock(f)
		return false
	}
	return true
}
