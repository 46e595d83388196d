package sqlite

/*
#include <stdlib.h>
#include "guard.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"time"
	"unsafe"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/pondhq/pond/paths"
)

// Bounds of the read-only SQL surface (Reader), per statement unless said otherwise. SQLite's
// heap limit would bound memory too, but it is process-wide: in the daemon it would fail the
// archive's own writes, so memory is bounded through its users instead (value length, temp
// files, steps).
var (
	// maxValueBytes is SQLITE_LIMIT_LENGTH: the largest string or blob a statement may build or
	// read (SQLite's default is 1 GB). Stored values are at most 8 MiB (the validator's cap);
	// search text joins a message's parts, so it gets room to spare.
	maxValueBytes = 64 << 20
	// maxSteps is how many virtual-machine instructions one statement may run, whatever its
	// timeout: about ten seconds of one core (55 million a second measured on a loaded 2-core
	// machine). Filtering and grouping a million-row table takes a few tens of millions.
	maxSteps int64 = 1_000_000_000
	// maxTempBytes caps the temporary files (sorts, DISTINCT, recursive queues, temporary
	// tables) of all the statements running over one mirror at once.
	maxTempBytes int64 = 256 << 20
	// agentQueryTimeout bounds one statement over an agent's database (OpenAgentDB), from its
	// first step until it finishes, including the time its caller spends between rows.
	agentQueryTimeout = 60 * time.Second
)

// handleOf is the sqlite3* behind a go-sqlite3 connection, which go-sqlite3 keeps unexported.
func handleOf(c *sqlite3.SQLiteConn) (*C.sqlite3, error) {
	f := reflect.ValueOf(c).Elem().FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return nil, errors.New("sqlite: cannot reach the connection's handle (go-sqlite3 changed)")
	}
	return (*C.sqlite3)(f.UnsafePointer()), nil
}

// guardLimits are the bounds installGuard sets on a connection.
type guardLimits struct {
	steps   int64         // virtual-machine instructions per statement (0: none)
	timeout time.Duration // wall time per statement (0: none)
}

// installGuard turns on defensive mode and trusted_schema=OFF (a crafted schema's views and
// triggers cannot call functions that are not innocuous, nor reach shadow tables), and bounds
// every top-level statement of c by lim. The bounds stop a statement with SQLITE_INTERRUPT.
func installGuard(c *sqlite3.SQLiteConn, lim guardLimits) error {
	h, err := handleOf(c)
	if err != nil {
		return err
	}
	g := (*C.pond_guard)(C.calloc(1, C.sizeof_pond_guard))
	if g == nil {
		return errors.New("sqlite: out of memory")
	}
	g.budget = C.sqlite3_int64(lim.steps)
	g.timeout_ns = C.sqlite3_int64(lim.timeout.Nanoseconds())
	if rc := C.pond_guard_install(h, g, 1); rc != 0 {
		C.free(unsafe.Pointer(g))
		return fmt.Errorf("sqlite: guard the connection: SQLite error %d", int(rc))
	}
	// The guard outlives the connection's last statement: the cleanup runs only once the
	// connection is closed (go-sqlite3's finalizer closes a forgotten one first) and unreachable.
	runtime.AddCleanup(c, func(p unsafe.Pointer) { C.free(p) }, unsafe.Pointer(g))
	return nil
}

// dbFlag reads one boolean SQLITE_DBCONFIG_* setting of c (tests).
func dbFlag(c *sqlite3.SQLiteConn, op int) (bool, error) {
	h, err := handleOf(c)
	if err != nil {
		return false, err
	}
	switch v := C.pond_db_flag(h, C.int(op)); v {
	case 0, 1:
		return v == 1, nil
	default:
		return false, fmt.Errorf("sqlite: read setting %d", op)
	}
}

// SQLite's codes for the settings installGuard changes.
const (
	dbconfigDefensive     = 1010
	dbconfigTrustedSchema = 1017
)

// tempVFS is a VFS whose temporary files live in one private directory under maxTempBytes.
type tempVFS struct {
	name string
	v    *C.pond_vfs
}

var (
	tempVFSMu sync.Mutex
	tempVFSes = map[string]*tempVFS{} // by directory; registered for the life of the process
)

// tempVFSFor returns the VFS keeping temporary files in dir (created 0700), registering it on
// first use. Every Reader over the same mirror shares it, and so its cap.
func tempVFSFor(dir string) (*tempVFS, error) {
	tempVFSMu.Lock()
	defer tempVFSMu.Unlock()
	if v, ok := tempVFSes[dir]; ok {
		return v, nil
	}
	if err := paths.MkdirPrivate(dir); err != nil {
		return nil, fmt.Errorf("sqlite: temporary directory: %w", err)
	}
	name := fmt.Sprintf("pond-temp-%d", len(tempVFSes)+1)
	cname, cdir := C.CString(name), C.CString(dir)
	defer C.free(unsafe.Pointer(cname))
	defer C.free(unsafe.Pointer(cdir))
	v := C.pond_vfs_register(cname, cdir, C.sqlite3_int64(maxTempBytes))
	if v == nil {
		return nil, errors.New("sqlite: register the temporary-file VFS")
	}
	t := &tempVFS{name: name, v: v}
	tempVFSes[dir] = t
	return t, nil
}

// used is the bytes the VFS's temporary files hold now.
func (t *tempVFS) used() int64 { return int64(C.pond_vfs_used(t.v)) }
