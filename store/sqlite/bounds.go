package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/pondhq/pond/paths"
)

// Bounds of the read-only SQL surface beyond its timeout. SQLite's heap limit would bound
// memory too, but it is process-wide: in the daemon it would fail the archive's own writes, so
// memory is bounded through what grows it (value length, temporary files) instead. A budget of
// virtual-machine steps would need SQLite's progress handler, which go-sqlite3 does not expose;
// the timeout stands in for it.
var (
	// maxValueBytes is SQLITE_LIMIT_LENGTH: the largest string or blob a statement may build or
	// read (SQLite's default is 1 GB). Stored values are at most 8 MiB (the validator's cap);
	// search text joins a message's parts, so it gets room to spare.
	maxValueBytes = 64 << 20
	// maxTempBytes caps the temporary files (sorts, DISTINCT, recursive queues, temporary
	// tables) that the statements running over one mirror hold at once.
	maxTempBytes int64 = 256 << 20
	// tempPoll is how often a running statement's temporary space is measured: at the 70 MB/s
	// an endless DISTINCT writes, the cap is overshot by a few MB.
	tempPoll = 100 * time.Millisecond
)

// tempDirName is the directory, beside the mirror, that holds SQLite's temporary files (each
// unlinked as soon as it is opened, so the directory looks empty).
const tempDirName = "sql-tmp"

// errTempSpace stops the statements over a mirror whose temporary files outgrew maxTempBytes.
var errTempSpace = errors.New("sqlite: temporary space exhausted")

var tempDirMu sync.Mutex

// useTempDir creates dir (0700) and points SQLite's temporary files there. SQLite keeps that
// directory for the whole process (PRAGMA temp_store_directory), so every temporary file the
// process's SQLite makes, the mirror writer's included, lands beside the archive, private to
// its user, on the archive's disk rather than in a shared or memory-backed /tmp.
func useTempDir(dir string) error {
	if err := paths.MkdirPrivate(dir); err != nil {
		return fmt.Errorf("sqlite: temporary directory: %w", err)
	}
	tempDirMu.Lock()
	defer tempDirMu.Unlock()
	db, err := sql.Open("sqlite3", "file::memory:")
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec(`PRAGMA temp_store_directory = ` + quoteSQL(dir)); err != nil {
		return fmt.Errorf("sqlite: temporary directory %s: %w", dir, err)
	}
	return nil
}

func quoteSQL(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, '\'')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}

// tempWatch measures, while statements of a Reader run, the temporary files in its directory,
// and stops every one of them once those exceed maxTempBytes: a file cannot be told apart by
// the statement that made it, and the cap is on the surface as a whole.
type tempWatch struct {
	mu       sync.Mutex
	running  map[*statement]bool
	watching bool
}

func (w *tempWatch) start(dir string, st *statement) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running == nil {
		w.running = map[*statement]bool{}
	}
	w.running[st] = true
	if !w.watching && tempMeasurable {
		w.watching = true
		go w.loop(dir)
	}
}

func (w *tempWatch) done(st *statement) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.running, st)
}

func (w *tempWatch) loop(dir string) {
	t := time.NewTicker(tempPoll)
	defer t.Stop()
	for range t.C {
		w.mu.Lock()
		if len(w.running) == 0 {
			w.watching = false
			w.mu.Unlock()
			return
		}
		var sts []*statement
		for st := range w.running {
			sts = append(sts, st)
		}
		w.mu.Unlock()
		if tempBytes(dir) > maxTempBytes {
			for _, st := range sts {
				st.stop(errTempSpace)
			}
		}
	}
}
