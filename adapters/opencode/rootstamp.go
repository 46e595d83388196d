package opencode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
)

// racyWindow is how long after its last write a file is too fresh to vouch for: a second write
// within the same tick of the file system's clock (milliseconds on most, a second or two on
// FAT and HFS+) may leave both size and modification time as they were.
const racyWindow = 2 * time.Second

// treeFolders are the legacy tree's folders that Scan reads.
var treeFolders = []string{"session", "message", "part", "project"}

// RootStamp implements adapters.Adapter, so that a warm sync need not stamp every session
// with a query over the whole database: the size and modification time of each database and of
// its write-ahead log, and a digest of the same for every file of the legacy tree's folders
// (everything Scan reads). Every commit OpenCode makes grows or rewrites the log, or the
// database file itself when it keeps no log. It returns "" when one of these files changed
// less than racyWindow ago, or when the tree links to a folder.
func (a Adapter) RootStamp(ctx context.Context, env adapters.Env, root string) (string, error) {
	dbs, err := databases(root, a.stem())
	if err != nil {
		return "", fmt.Errorf("opencode: stamp %s: %w", root, err)
	}
	s := rootStamp{tree: sha256.New()}
	for _, db := range dbs {
		fi, err := os.Stat(db)
		if err != nil {
			return "", fmt.Errorf("opencode: stamp %s: %w", root, err)
		}
		s.database(filepath.Base(db), fi)
		wal := db + "-wal"
		if target, err := filepath.EvalSymlinks(db); err == nil {
			wal = target + "-wal" // SQLite keeps the log next to the file a link points to
		}
		fi, err = os.Stat(wal)
		switch {
		case err == nil && fi.Size() > 0:
			s.database(filepath.Base(db)+"-wal", fi)
		case err == nil || errors.Is(err, fs.ErrNotExist):
			// An empty log holds nothing; it comes and goes as readers open the database.
		default:
			return "", fmt.Errorf("opencode: stamp %s: %w", root, err)
		}
	}
	storage := filepath.Join(root, "storage")
	for _, f := range treeFolders {
		if err := s.walkTree(ctx, storage, f); err != nil {
			return "", fmt.Errorf("opencode: stamp %s: %w", root, err)
		}
	}
	if s.linked || now().Sub(s.newest) < racyWindow {
		return "", nil
	}
	return s.String(), nil
}

// rootStamp collects a root's stamp: the databases by name, the tree as a digest.
type rootStamp struct {
	dbs    []byte
	tree   hash.Hash
	files  int
	newest time.Time
	linked bool // the tree links to a folder, which Scan may follow and the walk does not
}

func (s *rootStamp) database(name string, fi os.FileInfo) {
	s.dbs = fmt.Appendf(s.dbs, "%s %d@%d ", name, fi.Size(), fi.ModTime().UnixNano())
	s.saw(fi)
}

func (s *rootStamp) saw(fi os.FileInfo) {
	if fi.ModTime().After(s.newest) {
		s.newest = fi.ModTime()
	}
}

// walkTree adds every file under storage/folder; a missing folder adds nothing.
func (s *rootStamp) walkTree(ctx context.Context, storage, folder string) error {
	top := filepath.Join(storage, folder)
	return filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if p == top && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if d.IsDir() {
			return ctx.Err()
		}
		fi, err := os.Stat(p) // through a link, as Scan reads it
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed since listed, or a dangling link: Scan skips it too
		}
		if err != nil {
			return err
		}
		if fi.IsDir() {
			s.linked = true
			return nil
		}
		s.files++
		s.saw(fi)
		fmt.Fprintf(s.tree, "%s\x00%d\x00%d\n", rel(storage, p), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
}

func (s *rootStamp) String() string {
	var b strings.Builder
	b.Write(s.dbs)
	b.WriteString("storage ")
	b.WriteString(strconv.Itoa(s.files))
	if s.files > 0 {
		b.WriteString(" files/")
		b.WriteString(hex.EncodeToString(s.tree.Sum(nil))[:16])
	}
	return b.String()
}
