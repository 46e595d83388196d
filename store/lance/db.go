// Package lance is the only Go code that touches Lance. It uses lancedb-go for what lancedb-go
// covers well (connections, table creation, appends, scalar indexes, deletes) and Pond's own
// native module (store/lance/native, declared in pond_native.h) for the rest: filtered counts,
// merge-insert, full-text and vector queries streaming Arrow, indexes with parameters, optimize,
// schema evolution, read consistency and cache sizes. Both live in one static library,
// libpond_native.a, built by `make setup`.
package lance

/*
#include <stdlib.h>
#include "pond_native.h"
*/
import "C"

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/lancedb/lancedb-go/pkg/contracts"
	"github.com/lancedb/lancedb-go/pkg/lancedb"
)

// ErrTableNotFound is returned by OpenTable for a table the database does not hold.
var ErrTableNotFound = errors.New("lance: table not found")

// Options tune an open database.
type Options struct {
	// ReadConsistency bounds how stale reads may be: 0 checks for commits made by other handles
	// or processes on every read; a positive value checks at most that often; a negative value
	// never checks (fastest; only this handle's own commits are seen).
	ReadConsistency time.Duration
	// IndexCacheBytes and MetadataCacheBytes bound Lance's caches. 0 keeps Lance's index
	// default (6 GiB, which suits a server rather than a desktop daemon) and
	// defaultMetadataCacheBytes for metadata.
	IndexCacheBytes    int64
	MetadataCacheBytes int64
	// DiskCache keeps an object store's immutable files (manifests, index, deletion and data
	// files) on local disk, so they are read over the network once; local tables ignore it.
	DiskCache DiskCache
}

// DiskCache is a folder on local disk for one archive's files on an object store, and its
// bound. The zero DiskCache is none.
type DiskCache struct {
	Dir   string
	Bytes int64
}

// DiskCacheStats is what a database's disk cache has done since it was opened, and holds.
type DiskCacheStats struct {
	Hits       int64 `json:"hits"`
	Misses     int64 `json:"misses"`
	Bypassed   int64 `json:"bypassed"` // reads it may not answer: conditional, versioned, mutable files
	Stored     int64 `json:"stored"`
	Evicted    int64 `json:"evicted"`
	Errors     int64 `json:"errors"` // local failures, each answered by the store instead
	Files      int64 `json:"files"`
	Bytes      int64 `json:"bytes"`
	LimitBytes int64 `json:"limit_bytes"`
}

// DB is an open database of Lance tables, in a local directory or an object store.
type DB struct {
	loc    Location
	conn   contracts.IConnection
	mu     sync.RWMutex // guards native against use after Close
	native *C.PondDb
	reads  reads // the reads under way, which a prune must not cut off
}

// Open opens the database at loc, creating a local directory when it is missing (an object
// store has no directories to create).
func Open(ctx context.Context, loc Location, opts Options) (*DB, error) {
	if loc.Remote() {
		if err := loc.exportEnv(); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(loc.Dir(), 0o700); err != nil {
		return nil, fmt.Errorf("lance: create %s: %w", loc.Dir(), err)
	}
	uri := loc.URI()
	conn, err := lancedb.Connect(ctx, uri, nil)
	if err != nil {
		return nil, fmt.Errorf("lance: connect %s: %w", loc, err)
	}
	spec := map[string]any{}
	if opts.ReadConsistency >= 0 {
		spec["read_consistency_ms"] = opts.ReadConsistency.Milliseconds()
	}
	if opts.IndexCacheBytes > 0 {
		spec["index_cache_bytes"] = opts.IndexCacheBytes
	}
	// Lance's own metadata bound is 1 GiB, and every commit a writer makes through the handle
	// is cached up to it: unset, a 2,000-session cold sync held 403 MiB of anonymous memory at
	// its peak, against 239 MiB with a bound of 32 MiB (docs/benchmarks.md).
	spec["metadata_cache_bytes"] = cmp.Or(opts.MetadataCacheBytes, defaultMetadataCacheBytes)
	if loc.Remote() && opts.DiskCache.Dir != "" && opts.DiskCache.Bytes > 0 {
		spec["disk_cache_dir"] = opts.DiskCache.Dir
		spec["disk_cache_bytes"] = opts.DiskCache.Bytes
	}
	db := &DB{loc: loc, conn: conn}
	curi := cString(uri)
	defer freeCString(curi)
	err = callJSON(spec, func(cs *C.char) *C.char { return C.pond_db_open(curi, cs, &db.native) })
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("lance: open %s: %w", loc, err)
	}
	return db, nil
}

// DiskCacheStats reports the disk cache; ok is false when the database has none.
func (db *DB) DiskCacheStats() (stats DiskCacheStats, ok bool, err error) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.native == nil {
		return stats, false, errors.New("lance: database closed")
	}
	var raw *C.char
	if err := nativeErr(C.pond_db_disk_cache_stats(db.native, &raw)); err != nil {
		return stats, false, fmt.Errorf("lance: disk cache stats: %w", err)
	}
	js := takeString(raw)
	if js == "null" {
		return stats, false, nil
	}
	if err := json.Unmarshal([]byte(js), &stats); err != nil {
		return stats, false, fmt.Errorf("lance: disk cache stats: %w", err)
	}
	return stats, true, nil
}

// Location is where the database's tables live.
func (db *DB) Location() Location { return db.loc }

// Remote reports whether the database is on an object store.
func (db *DB) Remote() bool { return db.loc.Remote() }

// Close releases the database. Tables opened from it must be closed first.
func (db *DB) Close() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.native != nil {
		C.pond_db_close(db.native)
		db.native = nil
	}
	return db.conn.Close()
}

// Refresh replaces lancedb-go's connection, and the handles tables hold from it, with new ones.
// That connection caches the metadata of every table version it commits, without a bound it
// lets us set; a long ingest of many small appends grows it by the square of the versions
// (docs/benchmarks.md). A writer calls Refresh now and then to drop that cache.
func (db *DB) Refresh(ctx context.Context, tables ...*Table) error {
	conn, err := lancedb.Connect(ctx, db.loc.URI(), nil)
	if err != nil {
		return fmt.Errorf("lance: reconnect %s: %w", db.loc, err)
	}
	// Every table is reopened before any handle is swapped, so a failure leaves all of them on
	// the old connection.
	handles := make([]contracts.ITable, len(tables))
	for i, t := range tables {
		if handles[i], err = conn.OpenTable(ctx, t.name); err != nil {
			for _, h := range handles[:i] {
				h.Close()
			}
			conn.Close()
			return fmt.Errorf("lance: reopen table %s: %w", t.name, err)
		}
	}
	for i, t := range tables {
		t.mu.Lock()
		old := t.goTable
		t.goTable = handles[i]
		t.mu.Unlock()
		old.Close()
	}
	db.mu.Lock()
	old := db.conn
	db.conn = conn
	db.mu.Unlock()
	err = old.Close()
	releaseFreedMemory()
	return err
}

// openNative opens another native handle on the table name; the caller closes it.
func (db *DB) openNative(name string) (*C.PondTable, error) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.native == nil {
		return nil, errors.New("lance: database is closed")
	}
	cname := cString(name)
	defer freeCString(cname)
	var h *C.PondTable
	if err := nativeErr(C.pond_table_open(db.native, cname, &h)); err != nil {
		return nil, fmt.Errorf("lance: open table %s: %w", name, err)
	}
	return h, nil
}

// ReleaseMemory hands the memory the native code has freed back to the system. Lance's
// compaction and index builds allocate hundreds of megabytes in short-lived buffers; glibc keeps
// them in its heaps once freed, so without this a daemon stays at its upkeep's peak while idle
// (docs/benchmarks.md).
func ReleaseMemory() { releaseFreedMemory() }

// TableNames lists the tables of the database.
func (db *DB) TableNames(ctx context.Context) ([]string, error) {
	db.mu.RLock()
	names, err := db.conn.TableNames(ctx)
	db.mu.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("lance: list tables: %w", err)
	}
	return names, nil
}

// CreateTable creates an empty table with schema.
func (db *DB) CreateTable(ctx context.Context, name string, schema *arrow.Schema) (*Table, error) {
	s, err := lancedb.NewSchema(schema)
	if err != nil {
		return nil, fmt.Errorf("lance: schema of %s: %w", name, err)
	}
	db.mu.RLock()
	gt, err := db.conn.CreateTable(ctx, name, s)
	db.mu.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("lance: create table %s: %w", name, err)
	}
	t, err := db.wrap(name, gt)
	if err != nil {
		return nil, err
	}
	if err := t.durable(); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// OpenTable opens an existing table; ErrTableNotFound when there is none. A local table whose
// folder holds no committed version is none either: a creation killed before its first commit
// leaves such a folder, which Lance lists among the tables but cannot open, and creating the
// table again writes into it.
func (db *DB) OpenTable(ctx context.Context, name string) (*Table, error) {
	names, err := db.TableNames(ctx)
	if err != nil {
		return nil, err
	}
	found := false
	for _, n := range names {
		found = found || n == name
	}
	if !found {
		return nil, fmt.Errorf("%w: %s in %s", ErrTableNotFound, name, db.loc)
	}
	db.mu.RLock()
	gt, err := db.conn.OpenTable(ctx, name)
	db.mu.RUnlock()
	if err != nil {
		if !db.loc.Remote() && !committed(db.loc.Join(name+".lance").Dir()) {
			return nil, fmt.Errorf("%w: %s in %s (its folder holds no committed version)", ErrTableNotFound, name, db.loc)
		}
		return nil, fmt.Errorf("lance: open table %s: %w", name, err)
	}
	return db.wrap(name, gt)
}

// committed reports whether a local table folder holds a version's manifest.
func committed(dir string) bool {
	manifests, _ := filepath.Glob(filepath.Join(dir, "_versions", "*.manifest"))
	return len(manifests) > 0
}

func (db *DB) wrap(name string, gt contracts.ITable) (*Table, error) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.native == nil {
		gt.Close()
		return nil, errors.New("lance: database is closed")
	}
	loc := db.loc.Join(name + ".lance")
	t := &Table{name: name, loc: loc, goTable: gt, db: db}
	if !loc.Remote() {
		// An object store's put is durable when it returns; a local disk's write is not.
		t.files = newTableFiles(loc.Dir())
	}
	cname := cString(name)
	defer freeCString(cname)
	if err := nativeErr(C.pond_table_open(db.native, cname, &t.native)); err != nil {
		gt.Close()
		return nil, fmt.Errorf("lance: open table %s: %w", name, err)
	}
	return t, nil
}

// defaultMetadataCacheBytes bounds Lance's metadata cache when Options leave it unset, as in
// the command-line tools (the daemon sets its own). A cold sync commits a version and a data
// file per batch, and Lance caches what each commit wrote up to this bound: at 32 MiB the
// 2,000-session sync peaked at 326–335 MiB, at 8 MiB at 289–290 MiB, in the same CPU time
// (docs/benchmarks.md, 2026-12-06).
const defaultMetadataCacheBytes = 8 << 20
