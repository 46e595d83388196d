package lance

/*
#include <stdlib.h>
#include "pond_native.h"
*/
import "C"

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/lancedb/lancedb-go/pkg/contracts"
)

// Table is an open Lance table. Its methods are safe for concurrent use.
type Table struct {
	name    string
	loc     Location // the table's folder, <database>/<name>.lance
	goTable contracts.ITable
	mu      sync.RWMutex // guards native against use after Close
	native  *C.PondTable
	db      *DB         // opens the upkeep handles (useUpkeep)
	files   *tableFiles // makes each commit durable before the method returns (durable.go); nil in an object store
	writes  atomic.Uint64
}

// Writes counts the calls through this handle that may have changed rows (Append, MergeInsert,
// Update, Delete), each counted once it returns: a cheap way for a reader in the same process
// to know that what it read before may be out of date (Version asks the file system). Commits
// by other handles or processes are not counted.
func (t *Table) Writes() uint64 { return t.writes.Load() }

var errClosed = errors.New("lance: table is closed")

// Name is the table's name.
func (t *Table) Name() string { return t.name }

// Close releases the table.
func (t *Table) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.native != nil {
		C.pond_table_close(t.native)
		t.native = nil
	}
	return t.goTable.Close()
}

// durable syncs what the commit that just returned wrote.
func (t *Table) durable() error {
	if t.files == nil {
		return nil
	}
	if err := t.files.sync(); err != nil {
		return fmt.Errorf("lance: make the commit to %s durable: %w", t.name, err)
	}
	return nil
}

// use runs f with the native handle, refusing after Close.
func (t *Table) use(f func(*C.PondTable) error) error {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.native == nil {
		return errClosed
	}
	defer t.db.reads.begin()()
	return f(t.native)
}

// upkeepCalls counts the index builds and optimizes running in this process (useUpkeep).
var upkeepCalls atomic.Int32

// UpkeepRunning reports whether an index build or an optimize runs in this process. Its threads
// yield the CPU to everything else, but Lance's pool for CPU-heavy steps is one a process, and
// a query's steps there wait behind upkeep's: a full-text query on Lance's index took up to
// 250 ms during a compaction, against 10-15 ms before it.
func UpkeepRunning() bool { return upkeepCalls.Load() > 0 }

// useUpkeep runs f, an index build or an optimize, with a handle of its own on the same table,
// opened for the call and closed after it. Lance holds a handle's dataset lock for the whole of
// such a call (a text index over 500k messages: 50 s), and every read through that handle waits
// for it; through the table's own handle, reads go on and see the upkeep's commits as they land
// (the read-consistency interval). Opened per call, not kept: a second handle kept open cost a
// cold sync, which never runs upkeep, 40-50 MiB of peak RSS.
func (t *Table) useUpkeep(f func(*C.PondTable) error) error {
	upkeepCalls.Add(1)
	defer upkeepCalls.Add(-1)
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.native == nil {
		return errClosed
	}
	h, err := t.db.openNative(t.name)
	if err != nil {
		return err
	}
	defer C.pond_table_close(h)
	defer t.db.reads.begin()()
	return f(h)
}

// Schema is the table's Arrow schema as of its latest version (lancedb-go's handle would miss
// columns added through pond-native).
func (t *Table) Schema(ctx context.Context) (*arrow.Schema, error) {
	var data []byte
	err := t.use(func(nt *C.PondTable) error {
		var buf *C.uint8_t
		var n C.size_t
		if err := nativeErr(C.pond_table_schema(nt, &buf, &n)); err != nil {
			return err
		}
		data = C.GoBytes(unsafe.Pointer(buf), C.int(n))
		C.pond_bytes_free(buf, n)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("lance: schema of %s: %w", t.name, err)
	}
	r, err := ipc.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("lance: schema of %s: %w", t.name, err)
	}
	defer r.Release()
	return r.Schema(), nil
}

// Append adds records as new rows, in one commit.
func (t *Table) Append(ctx context.Context, recs ...arrow.Record) error {
	if len(recs) == 0 {
		return nil
	}
	data, err := encodeIPC(recs[0].Schema(), recs)
	if err != nil {
		return fmt.Errorf("lance: append to %s: %w", t.name, err)
	}
	defer data.free()
	defer t.writes.Add(1)
	err = t.use(func(nt *C.PondTable) error {
		return nativeErr(C.pond_table_append(nt, data.ptr(), data.size()))
	})
	if err != nil {
		return fmt.Errorf("lance: append to %s: %w", t.name, err)
	}
	return t.durable()
}

// Version is the table's latest version visible under the database's read consistency.
func (t *Table) Version(ctx context.Context) (uint64, error) {
	var v C.uint64_t
	err := t.use(func(n *C.PondTable) error { return nativeErr(C.pond_table_version(n, &v)) })
	if err != nil {
		return 0, fmt.Errorf("lance: version of %s: %w", t.name, err)
	}
	return uint64(v), nil
}

// Count counts the rows matching filter; an empty filter counts every row.
func (t *Table) Count(ctx context.Context, filter string) (int64, error) {
	var n C.uint64_t
	err := t.use(func(nt *C.PondTable) error {
		var cf *C.char
		if filter != "" {
			cf = cString(filter)
			defer freeCString(cf)
		}
		return nativeErr(C.pond_table_count(nt, cf, &n))
	})
	if err != nil {
		return 0, fmt.Errorf("lance: count %s: %w", t.name, err)
	}
	return int64(n), nil
}

// MergeSpec says how MergeInsert treats incoming rows.
type MergeSpec struct {
	On              []string `json:"on"`               // key columns
	UpdateMatched   bool     `json:"update_matched"`   // overwrite rows whose key exists
	InsertUnmatched bool     `json:"insert_unmatched"` // insert rows whose key is new
}

// MergeResult counts what a merge-insert did.
type MergeResult struct {
	Version  uint64 `json:"version"`
	Inserted uint64 `json:"inserted"`
	Updated  uint64 `json:"updated"`
	Deleted  uint64 `json:"deleted"`
}

// MergeInsert merges recs into the table by the key columns of spec, in one commit.
func (t *Table) MergeInsert(ctx context.Context, spec MergeSpec, recs ...arrow.Record) (MergeResult, error) {
	var res MergeResult
	if len(recs) == 0 {
		return res, nil
	}
	data, err := encodeIPC(recs[0].Schema(), recs)
	if err != nil {
		return res, fmt.Errorf("lance: merge into %s: %w", t.name, err)
	}
	defer data.free()
	defer t.writes.Add(1)
	err = t.use(func(nt *C.PondTable) error {
		var out *C.char
		err := callJSON(spec, func(cs *C.char) *C.char {
			return C.pond_table_merge_insert(nt, cs, data.ptr(), data.size(), &out)
		})
		if err != nil {
			return err
		}
		return json.Unmarshal([]byte(takeString(out)), &res)
	})
	if err != nil {
		return res, fmt.Errorf("lance: merge into %s: %w", t.name, err)
	}
	return res, t.durable()
}

// Update sets columns of the rows matching filter, in one commit: updates maps each column to
// an SQL expression (build literals with Quote). It returns the rows updated. Unlike lancedb-go's
// Update, values are never interpolated unescaped.
func (t *Table) Update(ctx context.Context, filter string, updates map[string]string) (int64, error) {
	var n C.uint64_t
	defer t.writes.Add(1)
	err := t.use(func(nt *C.PondTable) error {
		cf := cString(filter)
		defer freeCString(cf)
		return callJSON(updates, func(cs *C.char) *C.char { return C.pond_table_update(nt, cf, cs, &n) })
	})
	if err != nil {
		return 0, fmt.Errorf("lance: update %s: %w", t.name, err)
	}
	return int64(n), t.durable()
}

// Delete removes the rows matching filter, in one commit (build literals with Quote), and
// returns how many it removed. Lance marks them deleted in their fragments' deletion files:
// their bytes stay in the data files, and in older versions, until the fragments are rewritten
// and old versions pruned (store.Erase does both).
func (t *Table) Delete(ctx context.Context, filter string) (int64, error) {
	n, err := t.Count(ctx, filter)
	if err != nil || n == 0 {
		return 0, err
	}
	defer t.writes.Add(1)
	err = t.use(func(nt *C.PondTable) error {
		cf := cString(filter)
		defer freeCString(cf)
		return nativeErr(C.pond_table_delete(nt, cf))
	})
	if err != nil {
		return 0, fmt.Errorf("lance: delete from %s: %w", t.name, err)
	}
	return n, t.durable()
}

// Dir is the table's local directory; empty when the table is in an object store.
func (t *Table) Dir() string { return t.loc.Dir() }

// Location is where the table's files live.
func (t *Table) Location() Location { return t.loc }

// AddNullColumns adds fields as new columns holding nulls: the additive schema migration.
func (t *Table) AddNullColumns(ctx context.Context, fields ...arrow.Field) error {
	if len(fields) == 0 {
		return nil
	}
	data, err := encodeIPC(arrow.NewSchema(fields, nil), nil)
	if err != nil {
		return err
	}
	defer data.free()
	err = t.use(func(nt *C.PondTable) error {
		return nativeErr(C.pond_table_add_null_columns(nt, data.ptr(), data.size()))
	})
	if err != nil {
		return fmt.Errorf("lance: add columns to %s: %w", t.name, err)
	}
	return t.durable()
}

// IndexKind names a Lance index type.
type IndexKind string

// Index kinds.
const (
	IndexFTS       IndexKind = "fts"
	IndexBTree     IndexKind = "btree"
	IndexBitmap    IndexKind = "bitmap"
	IndexIVFPQ     IndexKind = "ivf_pq"
	IndexIVFFlat   IndexKind = "ivf_flat"
	IndexIVFHNSWSQ IndexKind = "ivf_hnsw_sq"
)

// FTSParams are Lance's inverted-index parameters; nil fields keep Lance's defaults.
type FTSParams struct {
	BaseTokenizer   string `json:"base_tokenizer,omitempty"` // simple, whitespace, raw, ngram, …
	Language        string `json:"language,omitempty"`       // stemming and stop-word language, e.g. English
	WithPosition    *bool  `json:"with_position,omitempty"`
	MaxTokenLength  *int   `json:"max_token_length,omitempty"`
	LowerCase       *bool  `json:"lower_case,omitempty"`
	Stem            *bool  `json:"stem,omitempty"`
	RemoveStopWords *bool  `json:"remove_stop_words,omitempty"`
	ASCIIFolding    *bool  `json:"ascii_folding,omitempty"`
	MinNgramLength  *int   `json:"min_ngram_length,omitempty"`
	MaxNgramLength  *int   `json:"max_ngram_length,omitempty"`
	PrefixOnly      *bool  `json:"prefix_only,omitempty"`
}

// IndexSpec describes an index to build.
type IndexSpec struct {
	Column  string     `json:"column"`
	Kind    IndexKind  `json:"kind"`
	Name    string     `json:"name,omitempty"`
	Replace bool       `json:"replace,omitempty"`
	FTS     *FTSParams `json:"fts,omitempty"`
	// Vector indexes: distance (cosine, l2, dot) and IVF/PQ shape; zero keeps Lance's choice.
	Distance      string `json:"distance,omitempty"`
	NumPartitions int    `json:"num_partitions,omitempty"`
	NumSubVectors int    `json:"num_sub_vectors,omitempty"`
	SampleRate    int    `json:"sample_rate,omitempty"`
	MaxIterations int    `json:"max_iterations,omitempty"`
}

// CreateIndex builds an index. Scalar indexes without parameters go through lancedb-go; full-
// text and vector indexes, which need parameters, through pond-native.
func (t *Table) CreateIndex(ctx context.Context, spec IndexSpec) error {
	var err error
	goIndex := func(kind contracts.IndexType) error {
		t.mu.RLock()
		defer t.mu.RUnlock()
		return t.goTable.CreateIndexWithName(ctx, []string{spec.Column}, kind, spec.Name)
	}
	switch {
	case spec.Kind == IndexBTree && spec.Name != "" && !spec.Replace:
		err = goIndex(contracts.IndexTypeBTree)
	case spec.Kind == IndexBitmap && spec.Name != "" && !spec.Replace:
		err = goIndex(contracts.IndexTypeBitmap)
	default:
		err = t.useUpkeep(func(nt *C.PondTable) error {
			return callJSON(spec, func(cs *C.char) *C.char { return C.pond_table_create_index(nt, cs) })
		})
	}
	if err != nil {
		return fmt.Errorf("lance: create %s index on %s.%s: %w", spec.Kind, t.name, spec.Column, err)
	}
	return t.durable()
}

// IndexInfo describes an index and how much of the table it covers.
type IndexInfo struct {
	Name          string   `json:"name"`
	Kind          string   `json:"kind"`
	Columns       []string `json:"columns"`
	IndexedRows   *int64   `json:"indexed_rows"`
	UnindexedRows *int64   `json:"unindexed_rows"`
}

// Indexes lists the table's indexes, one entry a name, with the rows they cover, from the
// manifest. Only a vector index is opened, for its kind (stats.rs).
func (t *Table) Indexes(ctx context.Context) ([]IndexInfo, error) {
	var list []IndexInfo
	err := t.use(func(nt *C.PondTable) error {
		var out *C.char
		if err := nativeErr(C.pond_table_indexes(nt, &out)); err != nil {
			return err
		}
		return json.Unmarshal([]byte(takeString(out)), &list)
	})
	if err != nil {
		return nil, fmt.Errorf("lance: indexes of %s: %w", t.name, err)
	}
	return list, nil
}

// OptimizeSpec selects the parts of optimize to run, in this order: compact small fragments,
// fold new rows into existing indexes, prune old versions (PruneReplacedBefore or
// PruneOlderThanSecs).
type OptimizeSpec struct {
	Compact               bool `json:"compact,omitempty"`
	TargetRowsPerFragment int  `json:"target_rows_per_fragment,omitempty"`
	// RoundRows, when set, compacts one round only: the groups of fragments Lance plans, in
	// order while their rows stay within it (at least one group). The result's
	// CompactionGroupsLeft says how many are left for later rounds; local tables only.
	RoundRows int `json:"round_rows,omitempty"`
	// MaterializeDeletionsAbove, when set, has the compaction rewrite every fragment whose
	// share of deleted rows is above it (Lance's default: 0.1); at 0 any deleted row's fragment
	// is rewritten, so the row leaves its files and every index is remapped without it.
	MaterializeDeletionsAbove *float64 `json:"materialize_deletions_threshold,omitempty"`
	Index                     bool     `json:"index,omitempty"`
	// IndexNames limits Index to the indexes named (empty: every index).
	IndexNames []string `json:"index_names,omitempty"`
	// PruneReplacedBefore removes the versions replaced before it (a local table's; see
	// Versions), which Optimize turns into PruneBeforeVersion; PruneOlderThanSecs removes the
	// versions committed more than that long ago.
	PruneReplacedBefore time.Time `json:"-"`
	PruneBeforeVersion  *uint64   `json:"prune_before_version,omitempty"`
	PruneOlderThanSecs  *int64    `json:"prune_older_than_secs,omitempty"`
	DeleteUnverified    bool      `json:"delete_unverified,omitempty"`
}

// OptimizeResult reports what optimize did.
type OptimizeResult struct {
	Compaction *Compaction `json:"compaction,omitempty"`
	// CompactionGroupsLeft is how many groups of fragments a round of compaction left.
	CompactionGroupsLeft int    `json:"compaction_groups_left,omitempty"`
	IndexesFolded        bool   `json:"indexes_folded,omitempty"`
	Prune                *Prune `json:"prune,omitempty"`
}

// Compaction is what compacting a table did.
type Compaction struct {
	FragmentsRemoved int `json:"fragments_removed"`
	FragmentsAdded   int `json:"fragments_added"`
	FilesRemoved     int `json:"files_removed"`
	FilesAdded       int `json:"files_added"`
}

// Prune is what removing old versions did.
type Prune struct {
	BytesRemoved uint64 `json:"bytes_removed"`
	OldVersions  uint64 `json:"old_versions"`
}

// Optimize runs the parts of optimize that spec selects.
func (t *Table) Optimize(ctx context.Context, spec OptimizeSpec) (OptimizeResult, error) {
	var res OptimizeResult
	err := t.useUpkeep(func(nt *C.PondTable) error {
		if !spec.PruneReplacedBefore.IsZero() && !t.loc.Remote() {
			// The manifests are listed here, once the table is ours, not before the wait.
			v, ok, err := t.replacedBefore(spec.PruneReplacedBefore)
			if err != nil {
				return err
			}
			spec.PruneOlderThanSecs, spec.PruneBeforeVersion = nil, nil
			if ok {
				spec.PruneBeforeVersion = &v
			}
			if !ok && !spec.Compact && !spec.Index {
				res.Prune = &Prune{}
				return nil
			}
		}
		var out *C.char
		err := callJSON(spec, func(cs *C.char) *C.char { return C.pond_table_optimize(nt, cs, &out) })
		if err != nil {
			return err
		}
		return json.Unmarshal([]byte(takeString(out)), &res)
	})
	if err != nil {
		return res, fmt.Errorf("lance: optimize %s: %w", t.name, err)
	}
	return res, t.durable()
}

// VersionCount is how many versions of a table are kept on disk, and how many of them a prune
// would remove.
type VersionCount struct {
	Kept  int `json:"kept"`
	Older int `json:"older"` // replaced before the cut-off
}

// manifest is one version's manifest file: its version and when it was committed.
type manifest struct {
	version   uint64
	committed time.Time
}

// manifests lists the table's version manifests, oldest version first, without opening any.
// A manifest's modification time is its commit's: Lance writes it once, as the commit's last
// step.
func (t *Table) manifests() ([]manifest, error) {
	entries, err := os.ReadDir(filepath.Join(t.loc.Dir(), "_versions"))
	if err != nil {
		return nil, fmt.Errorf("lance: versions of %s: %w", t.name, err)
	}
	var out []manifest
	for _, e := range entries {
		v, ok := manifestVersion(e.Name())
		if !ok {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed by a concurrent prune
		}
		out = append(out, manifest{version: v, committed: info.ModTime()})
	}
	slices.SortFunc(out, func(a, b manifest) int { return cmp.Compare(a.version, b.version) })
	return out, nil
}

// manifestVersion is the version a file in _versions is the manifest of (ok false: it is no
// manifest). Lance names manifests in one of two schemes: the version ("12.manifest"), or,
// so that a listing in name order starts with the newest, u64::MAX less the version in 20
// zero-padded digits ("18446744073709551603.manifest").
func manifestVersion(name string) (uint64, bool) {
	digits, ok := strings.CutSuffix(name, ".manifest")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	if len(digits) == 20 && v > math.MaxUint64/2 {
		v = math.MaxUint64 - v
	}
	return v, true
}

// Versions counts the table's versions, and those replaced before the cut-off: a version is
// replaced when the next one is committed, and from then on only reads that began before that
// can be on it. Lance never removes the latest version.
func (t *Table) Versions(ctx context.Context, replacedBefore time.Time) (VersionCount, error) {
	var c VersionCount
	if t.loc.Remote() {
		// Listing an object store's manifests costs a request per thousand versions and their
		// times come from the server's clock: the store counts commits instead (its
		// commitsSincePrune).
		return c, nil
	}
	ms, err := t.manifests()
	if err != nil {
		return c, err
	}
	c.Kept = len(ms)
	for i := 1; i < len(ms); i++ {
		if ms[i].committed.Before(replacedBefore) {
			c.Older++
		}
	}
	return c, nil
}

// replacedBefore is the version before which every version was replaced before cut: the
// newest one committed before it (ok false: no version was replaced before cut).
func (t *Table) replacedBefore(cut time.Time) (version uint64, ok bool, err error) {
	ms, err := t.manifests()
	if err != nil {
		return 0, false, err
	}
	for i := 1; i < len(ms); i++ {
		if ms[i].committed.Before(cut) {
			version, ok = ms[i].version, true
		}
	}
	return version, ok, nil
}

// Stats describes the table's size and layout.
type Stats struct {
	Rows           int64 `json:"rows"`
	Bytes          int64 `json:"bytes"`
	Indexes        int   `json:"indexes"`
	Fragments      int   `json:"fragments"`
	SmallFragments int   `json:"small_fragments"`
}

// Stats reports the table's live rows, the bytes of its data files and its fragments, from its
// manifest: no data file is opened, so none of their metadata lands in the session's caches
// (stats.rs).
func (t *Table) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	err := t.use(func(nt *C.PondTable) error {
		var out *C.char
		if err := nativeErr(C.pond_table_stats(nt, &out)); err != nil {
			return err
		}
		return json.Unmarshal([]byte(takeString(out)), &s)
	})
	if err != nil {
		return s, fmt.Errorf("lance: stats of %s: %w", t.name, err)
	}
	return s, nil
}

// encodeIPC writes recs (possibly none) as an Arrow IPC stream, in C memory the caller frees.
func encodeIPC(schema *arrow.Schema, recs []arrow.Record) (*cBuffer, error) {
	buf := &cBuffer{}
	w := ipc.NewWriter(buf, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			w.Close()
			buf.free()
			return nil, fmt.Errorf("encode Arrow IPC: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		buf.free()
		return nil, fmt.Errorf("encode Arrow IPC: %w", err)
	}
	return buf, nil
}

// cBuffer is an io.Writer into malloc'd memory. A write hands Lance a stream as large as the
// records it carries (up to store's 32 MB chunks): in the Go heap, that copy, and a
// bytes.Buffer's doublings on the way to it, would raise the garbage collector's goal by twice
// as much, for bytes that live only until the call returns. realloc moves a large block by
// remapping its pages, so growing it copies nothing.
type cBuffer struct {
	p   unsafe.Pointer
	len int
	cap int
}

func (b *cBuffer) Write(p []byte) (int, error) {
	if need := b.len + len(p); need > b.cap {
		c := max(2*b.cap, need, 64<<10)
		q := C.realloc(b.p, C.size_t(c))
		if q == nil {
			return 0, fmt.Errorf("allocate %d bytes for Arrow IPC", c)
		}
		b.p, b.cap = q, c
	}
	copy(unsafe.Slice((*byte)(b.p), b.cap)[b.len:], p)
	b.len += len(p)
	return len(p), nil
}

func (b *cBuffer) ptr() *C.uint8_t { return (*C.uint8_t)(b.p) }

func (b *cBuffer) size() C.size_t { return C.size_t(b.len) }

func (b *cBuffer) free() {
	C.free(b.p)
	b.p, b.len, b.cap = nil, 0, 0
}

// decodeIPC reads the one record of a self-contained Arrow IPC stream from pond_stream_next.
func decodeIPC(b []byte) (arrow.Record, error) {
	r, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("decode Arrow IPC: %w", err)
	}
	defer r.Release()
	if !r.Next() {
		if err := r.Err(); err != nil {
			return nil, fmt.Errorf("decode Arrow IPC: %w", err)
		}
		return nil, errors.New("decode Arrow IPC: stream holds no batch")
	}
	rec := r.Record()
	rec.Retain()
	return rec, nil
}
