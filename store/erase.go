package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/lance"
)

// Erase removes sessions from the archive for good: a delete alone would leave their bytes in
// the data files (Lance only marks rows deleted), in older table versions, in index segments,
// in the mirror's freed pages and in its full-text segments. So, under the store lock:
//
//  1. the sessions (and their sub-agent sessions, recursively) go on the denylist first, marked
//     pending, so a sync never brings them back and an interrupted erase is finished by the
//     next one;
//  2. in each Lance table the erased rows are deleted, and every fragment that held one is
//     rewritten by a compaction that materialises every deletion: the other sessions' rows go
//     to new files, and the compaction remaps each index without the erased rows (the vector
//     index keeps its trained centroids and codebook: no k-means again). When a fragment held
//     erased rows only, the delete drops it whole and no compaction would remap the indexes
//     from it: then the other sessions' rows sharing a fragment with an erased row are written
//     again elsewhere first (an update that sets a column to itself), so every affected
//     fragment is dropped, and step 3 builds every index again;
//  3. every index of a table that lost rows is built again from what is left (an index folds
//     new rows in, and a remap keeps the terms and values only the erased rows had in its
//     dictionary), but the vector index after a compaction's remap, which dropped their codes;
//  4. every older version is pruned, and each file the prune removes is overwritten with zeros
//     before its last link goes;
//  5. the mirror deletes the rows with secure_delete, merges its full-text indexes into one
//     segment, vacuums and truncates its log.
//
// What the filesystem or the drive keeps of overwritten blocks (copy-on-write filesystems,
// SSD wear levelling, snapshots, backups) is beyond what a program can reach.
func (s *Store) Erase(ctx context.Context, req view.EraseRequest, progress func(view.EraseProgress)) (*view.EraseReport, error) {
	start := time.Now()
	if progress == nil {
		progress = func(view.EraseProgress) {}
	}
	if len(req.Sessions) == 0 && req.Project == "" && req.Agent == "" && req.Before.IsZero() {
		return nil, errors.New("store: erase needs session ids or a filter (project, agent, before)")
	}
	lock, err := AcquireLock(ctx, s.opts.StateDir, s.opts.Command, func(h Holder) {
		s.log.Info("store: erase waiting for the store lock", "holder", h.String())
	})
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	if err := s.loadDenylist(); err != nil {
		return nil, err
	}
	if err := s.catchUp(ctx); err != nil {
		return nil, fmt.Errorf("store: catch up the mirror: %w", err)
	}
	if !req.DryRun {
		// One machine at a time rewrites and prunes a shared archive (lease.go).
		lease, err := s.acquireLease(ctx, LeaseUpkeep, upkeepLeaseTTL)
		if err != nil {
			return nil, err
		}
		defer lease.Release(context.WithoutCancel(ctx))
	}
	rep := &view.EraseReport{DryRun: req.DryRun, Sessions: []view.ErasedSession{}}
	found, notFound, err := s.eraseTargets(ctx, req)
	if err != nil {
		return nil, err
	}
	rep.Sessions, rep.NotFound = found, notFound
	for _, f := range found {
		rep.Removed.Sessions++
		rep.Removed.Messages += f.Messages
		rep.Removed.Parts += f.Parts
	}
	ids := make([]string, 0, len(found))
	agents := map[string]string{}
	for _, f := range found {
		ids = append(ids, f.ID)
		agents[f.ID] = f.Agent
	}
	if rep.Exports, err = exportsHolding(paths.ExportsDir(s.opts.DataDir), ids); err != nil {
		return nil, err
	}
	if req.DryRun {
		rep.Elapsed = time.Since(start)
		return rep, nil
	}
	// An erase that was interrupted is finished with this one.
	pending := s.pendingErases()
	for _, id := range pending {
		if _, ok := agents[id]; !ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		rep.Elapsed = time.Since(start)
		return rep, nil
	}
	slices.Sort(ids)
	if err := s.deny(agents); err != nil {
		return nil, err
	}
	// Logged in the archive before any row goes, so other machines sharing it learn of the
	// erase (erasures.go) even if this one stops half-way.
	logged := make([]erasure, 0, len(ids))
	now := time.Now().UTC()
	for _, id := range ids {
		logged = append(logged, erasure{SessionID: id, Agent: agents[id], At: now, Action: actionErased})
	}
	if err := s.logErasures(ctx, logged); err != nil {
		return nil, err
	}
	if err := s.purgeLocked(ctx, ids, progress, rep); err != nil {
		return nil, err
	}
	if len(rep.Exports) > 0 && req.Exports {
		progress(view.EraseProgress{Step: "exports"})
		for _, path := range rep.Exports {
			if err := shred(path); err != nil {
				return nil, err
			}
		}
		rep.ExportsRemoved = true
	}
	if err := s.settleDenied(ids); err != nil {
		return nil, err
	}
	rep.Denylisted = len(ids)
	if rep.BytesAfter, err = dirBytes(s.opts.DataDir); err != nil {
		return nil, err
	}
	rep.BytesReclaimed = rep.BytesBefore - rep.BytesAfter
	rep.Elapsed = time.Since(start)
	s.log.Info("store: erased sessions", "sessions", len(ids), "messages", rep.Removed.Messages,
		"rewritten", rep.Rewritten.Messages+rep.Rewritten.Parts, "reclaimed", rep.BytesReclaimed, "took", rep.Elapsed)
	return rep, nil
}

// purgeLocked takes the sessions ids out of Lance and the mirror with their bytes (steps 2 to 5
// of Erase), counting into rep what it rewrote, rebuilt and removed. The caller holds the
// store lock.
func (s *Store) purgeLocked(ctx context.Context, ids []string, progress func(view.EraseProgress), rep *view.EraseReport) error {
	if progress == nil {
		progress = func(view.EraseProgress) {}
	}
	var err error
	if rep.BytesBefore, err = dirBytes(s.opts.DataDir); err != nil {
		return err
	}
	// lancedb-go's handles (the deletes go through them) must stand on the latest versions.
	if err := s.db.Refresh(ctx, s.tables[TableSessions], s.tables[TableMessages], s.tables[TableParts]); err != nil {
		return err
	}
	s.appends = 0
	changed := map[string]bool{}
	remapped := map[string]bool{}
	for _, name := range []string{TableMessages, TableParts, TableSessions} {
		removed, moved, rm, err := s.eraseRows(ctx, name, ids, progress)
		if err != nil {
			return err
		}
		changed[name], remapped[name] = removed > 0 || moved > 0, rm
		switch name {
		case TableMessages:
			rep.Rewritten.Messages = int(moved)
		case TableParts:
			rep.Rewritten.Parts = int(moved)
		case TableSessions:
			rep.Rewritten.Sessions = int(moved)
		}
	}
	for _, name := range tableNames {
		if !changed[name] {
			continue
		}
		progress(view.EraseProgress{Step: "index", Table: name})
		rebuilt, err := s.rebuildIndexes(ctx, name, remapped[name])
		if err != nil {
			return err
		}
		rep.IndexesRebuilt = append(rep.IndexesRebuilt, rebuilt...)
	}
	for _, name := range tableNames {
		progress(view.EraseProgress{Step: "prune", Table: name})
		n, err := s.pruneAll(ctx, name)
		if err != nil {
			return err
		}
		rep.Files += n
	}
	progress(view.EraseProgress{Step: "mirror"})
	if err := s.closeSearchDB(); err != nil {
		s.log.Warn("store: close the search pool before erasing", "error", err)
	}
	if err := s.mirror.Erase(ctx, ids); err != nil {
		return err
	}
	// The next write's catch-up looks at Lance again: another machine may have committed to a
	// shared archive meanwhile.
	clear(s.versions)
	s.textIndex.checkedAt.Store(0)
	return nil
}

// eraseTargets resolves the request to stored sessions, each with its sub-agent sessions.
func (s *Store) eraseTargets(ctx context.Context, req view.EraseRequest) ([]view.ErasedSession, []string, error) {
	db := s.mirror.DB()
	seeds := map[string]bool{}
	var notFound []string
	if len(req.Sessions) > 0 {
		stored, err := s.mirror.Sessions(ctx, req.Sessions)
		if err != nil {
			return nil, nil, err
		}
		for _, id := range req.Sessions {
			if _, ok := stored[id]; ok {
				seeds[id] = true
			} else if !slices.Contains(notFound, id) {
				notFound = append(notFound, id)
			}
		}
	}
	if req.Project != "" || req.Agent != "" || !req.Before.IsZero() {
		var where []string
		var args []any
		if req.Project != "" && strings.ContainsAny(req.Project, "*?[") {
			where = append(where, `pond_project_glob(project)`)
		} else if req.Project != "" {
			p := strings.TrimRight(req.Project, "/")
			if p == "" {
				p = "/"
			}
			where = append(where, `(project = ? OR substr(project, 1, ?) = ?)`)
			args = append(args, p, len(p)+1, strings.TrimSuffix(p, "/")+"/")
		}
		if req.Agent != "" {
			where = append(where, `source_agent = ?`)
			args = append(args, req.Agent)
		}
		if !req.Before.IsZero() {
			where = append(where, `created_at < ?`)
			args = append(args, isoTime(req.Before))
		}
		query := `SELECT session_id FROM sessions WHERE ` + strings.Join(where, " AND ")
		glob := ""
		if strings.Contains(query, "pond_project_glob(project)") {
			// A glob is matched here, against the project and the folders above it.
			query = strings.Replace(query, "pond_project_glob(project)", "1", 1)
			query = strings.Replace(query, "SELECT session_id", "SELECT session_id, project", 1)
			glob = filepath.Clean(req.Project)
			if _, err := filepath.Match(glob, ""); err != nil {
				return nil, nil, fmt.Errorf("store: erase --project %q: %w", req.Project, err)
			}
		}
		rows, err := db.QueryContext(ctx, query, args...)
		if err != nil {
			return nil, nil, fmt.Errorf("store: select sessions to erase: %w", err)
		}
		for rows.Next() {
			var id, project string
			dest := []any{&id}
			if glob != "" {
				dest = append(dest, &project)
			}
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return nil, nil, err
			}
			if glob == "" || underGlob(glob, project) {
				seeds[id] = true
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, nil, err
		}
	}
	// Sub-agent sessions, however deep.
	all := map[string]bool{}
	frontier := slices.Sorted(maps.Keys(seeds))
	for len(frontier) > 0 {
		var next []string
		for _, id := range frontier {
			all[id] = true
		}
		for i := 0; i < len(frontier); i += 500 {
			chunk := frontier[i:min(i+500, len(frontier))]
			rows, err := db.QueryContext(ctx, `SELECT session_id FROM sessions WHERE parent_session_id IN (`+placeholders(len(chunk))+`)`, anys(chunk)...)
			if err != nil {
				return nil, nil, err
			}
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return nil, nil, err
				}
				if !all[id] {
					next = append(next, id)
				}
			}
			rows.Close()
		}
		frontier = next
	}
	ids := slices.Sorted(maps.Keys(all))
	out := make([]view.ErasedSession, 0, len(ids))
	for i := 0; i < len(ids); i += 500 {
		chunk := ids[i:min(i+500, len(ids))]
		rows, err := db.QueryContext(ctx, `SELECT s.session_id, s.source_agent, s.project, s.created_at, coalesce(s.parent_session_id, ''),
			(SELECT count(*) FROM messages m WHERE m.session_id = s.session_id),
			(SELECT count(*) FROM parts p WHERE p.session_id = s.session_id)
			FROM sessions s WHERE s.session_id IN (`+placeholders(len(chunk))+`) ORDER BY s.session_id`, anys(chunk)...)
		if err != nil {
			return nil, nil, err
		}
		for rows.Next() {
			var e view.ErasedSession
			var created string
			if err := rows.Scan(&e.ID, &e.Agent, &e.Project, &created, &e.Parent, &e.Messages, &e.Parts); err != nil {
				rows.Close()
				return nil, nil, err
			}
			e.CreatedAt, _ = time.Parse(isoMicro, created)
			out = append(out, e)
		}
		rows.Close()
	}
	return out, notFound, nil
}

// underGlob reports whether glob matches project or a folder above it.
func underGlob(glob, project string) bool {
	if project == "" {
		return false
	}
	for p := filepath.Clean(project); ; {
		if ok, _ := filepath.Match(glob, p); ok {
			return true
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		p = parent
	}
}

func anys(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// eraseChunk bounds the ids in one Lance filter.
const eraseChunk = 500

// eraseRows takes the sessions' rows out of one table so that no fragment that held one stays:
// the erased rows are deleted and a compaction rewrites those fragments, remapping the
// table's indexes (remapped); or, when a fragment held erased rows only (the delete drops it
// and no compaction sees it), the other sessions' rows in those fragments are written again
// first, then the erased rows deleted, which leaves each such fragment empty and drops it. It
// returns the rows deleted and the other sessions' rows rewritten.
func (s *Store) eraseRows(ctx context.Context, name string, ids []string, progress func(view.EraseProgress)) (removed, moved int64, remapped bool, err error) {
	t := s.tables[name]
	col := "session_id"
	if name == TableSessions {
		col = "id"
	}
	erased := map[string]bool{}
	for _, id := range ids {
		erased[id] = true
	}
	// Which fragments hold an erased row, and which other sessions share them: the row id's
	// high half is the fragment's id.
	affected := map[uint64]bool{}
	sessionsIn := map[uint64]map[string]bool{}
	others := map[uint64]int64{} // rows of other sessions, by fragment
	err = t.Scan(ctx, lance.Query{Columns: []string{col}, WithRowID: true, BatchRows: 8192}, func(r arrow.Record) error {
		keys, ok := r.Column(r.Schema().FieldIndices(col)[0]).(*array.String)
		if !ok {
			return fmt.Errorf("store: %s.%s is not a string column", name, col)
		}
		rowIDs, ok := r.Column(r.Schema().FieldIndices("_rowid")[0]).(*array.Uint64)
		if !ok {
			return fmt.Errorf("store: %s: no row ids in the scan", name)
		}
		for i := 0; i < int(r.NumRows()); i++ {
			frag := rowIDs.Value(i) >> 32
			k := keys.Value(i)
			if erased[k] {
				affected[frag] = true
				continue
			}
			if sessionsIn[frag] == nil {
				sessionsIn[frag] = map[string]bool{}
			}
			sessionsIn[frag][k] = true
			others[frag]++
		}
		return nil
	})
	if err != nil {
		return 0, 0, false, fmt.Errorf("store: erase from %s: find fragments: %w", name, err)
	}
	if len(affected) == 0 {
		return 0, 0, false, nil
	}
	alone := false // a fragment holds erased rows only: the delete drops it whole, uncompacted
	for frag := range affected {
		alone = alone || others[frag] == 0
	}
	if !alone {
		// Delete, then compact every fragment with a deleted row: the other sessions' rows are
		// written to new files, and every index is remapped without the erased rows (the
		// vector index keeps its trained centroids and codebook, docs/benchmarks.md).
		if removed, err = s.deleteRows(ctx, t, name, col, ids, progress); err != nil {
			return 0, 0, false, err
		}
		progress(view.EraseProgress{Step: "rewrite", Table: name})
		zero := 0.0
		if _, err := t.Optimize(ctx, lance.OptimizeSpec{Compact: true, TargetRowsPerFragment: fragmentRows, MaterializeDeletionsAbove: &zero}); err != nil {
			return 0, 0, false, fmt.Errorf("store: erase from %s: rewrite the fragments that held erased rows: %w", name, err)
		}
		for frag := range affected {
			moved += others[frag]
		}
		return removed, moved, true, nil
	}
	neighbours := map[string]bool{}
	for frag := range affected {
		for k := range sessionsIn[frag] {
			neighbours[k] = true
		}
	}
	if len(neighbours) > 0 {
		progress(view.EraseProgress{Step: "rewrite", Table: name})
		list := slices.Sorted(maps.Keys(neighbours))
		for i := 0; i < len(list); i += eraseChunk {
			chunk := list[i:min(i+eraseChunk, len(list))]
			n, err := t.Update(ctx, inFilter(col, chunk), map[string]string{col: col})
			if err != nil {
				return 0, 0, false, fmt.Errorf("store: erase from %s: rewrite rows sharing a fragment: %w", name, err)
			}
			moved += n
		}
	}
	removed, err = s.deleteRows(ctx, t, name, col, ids, progress)
	return removed, moved, false, err
}

// deleteRows deletes the rows whose col is one of ids.
func (s *Store) deleteRows(ctx context.Context, t *lance.Table, name, col string, ids []string, progress func(view.EraseProgress)) (int64, error) {
	progress(view.EraseProgress{Step: "delete", Table: name})
	var removed int64
	for i := 0; i < len(ids); i += eraseChunk {
		chunk := ids[i:min(i+eraseChunk, len(ids))]
		n, err := t.Delete(ctx, inFilter(col, chunk))
		if err != nil {
			return removed, fmt.Errorf("store: erase from %s: %w", name, err)
		}
		removed += n
	}
	return removed, nil
}

func inFilter(col string, values []string) string {
	var b strings.Builder
	b.WriteString(col + " IN (")
	for i, v := range values {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(lance.Quote(v))
	}
	b.WriteString(")")
	return b.String()
}

// rebuildIndexes builds every index of the table again from its current rows and returns the
// names built. The messages table's indexes are built from their own specs; an index of
// another kind is folded (Lance drops the rows of removed fragments from it). After a
// compaction remapped the table's indexes (remapped), the vector index is left as the remap
// made it, without the erased rows' codes; the others are built again all the same, since a
// remap keeps the terms and values only the erased rows had in their dictionaries.
func (s *Store) rebuildIndexes(ctx context.Context, name string, remapped bool) ([]string, error) {
	t := s.tables[name]
	ixs, err := t.Indexes(ctx)
	if err != nil {
		return nil, err
	}
	var done []string
	for _, ix := range ixs {
		if remapped && isVectorIndex(ix) {
			continue
		}
		var spec *lance.IndexSpec
		switch {
		case name != TableMessages:
		case ix.Name == textIndexName:
			sp := textIndexSpec()
			spec = &sp
		case isVectorIndex(ix):
			sp := vectorIndexSpec()
			sp.Name = ix.Name
			spec = &sp
		default:
			for _, f := range filterIndexes {
				if f.Name == ix.Name {
					sp := f
					spec = &sp
				}
			}
		}
		if spec == nil {
			if _, err := t.Optimize(ctx, lance.OptimizeSpec{Index: true, IndexNames: []string{ix.Name}}); err != nil {
				return nil, err
			}
			continue
		}
		if err := t.CreateIndex(ctx, *spec); err != nil {
			return nil, fmt.Errorf("store: erase: rebuild index %s: %w", ix.Name, err)
		}
		done = append(done, ix.Name)
	}
	return done, nil
}

// pruneAll removes every version of the table but the latest, and every file no longer
// referenced, overwriting each removed file with zeros: before the prune every file of the
// table gets a second link in a folder beside it, and after it each file whose first link is
// gone is overwritten through the second and removed. It returns the files removed.
func (s *Store) pruneAll(ctx context.Context, name string) (int, error) {
	t := s.tables[name]
	zero := int64(0)
	if t.Location().Remote() {
		// In an object store a removed object is gone from the API at once; what the provider
		// keeps (versioning, replicas) is the bucket's policy, beyond Pond's reach. Nothing to
		// overwrite from here. Files no version names are left alone: another machine sharing
		// the archive may be writing them for a commit to come (the erased rows' files are
		// named by the older versions, so they go).
		_, err := t.Optimize(ctx, lance.OptimizeSpec{PruneOlderThanSecs: &zero})
		return 0, err
	}
	shadow := filepath.Join(s.opts.DataDir, ".erase-"+name)
	if err := os.RemoveAll(shadow); err != nil {
		return 0, err
	}
	if err := os.Mkdir(shadow, 0o700); err != nil {
		return 0, fmt.Errorf("store: erase: %w", err)
	}
	defer os.RemoveAll(shadow)
	links := map[string]string{}
	n := 0
	err := filepath.WalkDir(t.Dir(), func(path string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		link := filepath.Join(shadow, fmt.Sprint(n))
		n++
		if err := os.Link(path, link); err != nil {
			return err
		}
		links[path] = link
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: erase: link the files of %s: %w", name, err)
	}
	if _, err := t.Optimize(ctx, lance.OptimizeSpec{PruneOlderThanSecs: &zero, DeleteUnverified: true}); err != nil {
		return 0, err
	}
	removed := 0
	for path, link := range links {
		if _, err := os.Lstat(path); err == nil {
			continue
		}
		if err := shred(link); err != nil {
			return removed, err
		}
		removed++
	}
	return removed, nil
}

// shred overwrites a file with zeros, syncs it and removes it.
func shred(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("store: erase: %w", err)
	}
	info, err := f.Stat()
	if err == nil {
		zeros := make([]byte, 1<<20)
		for left := info.Size(); left > 0 && err == nil; left -= int64(len(zeros)) {
			_, err = f.Write(zeros[:min(left, int64(len(zeros)))])
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Remove(path)
	}
	if err != nil {
		return fmt.Errorf("store: erase: overwrite %s: %w", path, err)
	}
	return nil
}

// dirBytes is the size of the files under dir.
func dirBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if e.Type().IsRegular() {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n, err
}

// exportsHolding lists the files under dir (the exports Pond wrote) that name one of ids.
func exportsHolding(dir string, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var out []string
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !e.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if bytes.Contains(b, []byte(`"`+id+`"`)) {
				out = append(out, path)
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: look for exports holding erased sessions: %w", err)
	}
	return out, nil
}
