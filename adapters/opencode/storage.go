package opencode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
)

// The legacy tree (OpenCode ≤1.1), under <data dir>/storage:
//
//	session/<project id>/<session id>.json
//	message/<session id>/<message id>.json
//	part/<message id>/<part id>.json   (older trees: part/<part id>.json naming its messageID)
//	project/<project id>.json
//
// OpenCode names every file by its object's id; the id inside a file is preferred when the two
// differ (hand-made trees), and the file name is tried too.

// treeSession is one session of the tree: its files, read except for the parts.
type treeSession struct {
	file     string
	id, base string // the id inside the file (else the file name), and the file name
	raw      []byte
	data     doc
	err      error // the session file is not a JSON object
	project  string
	messages []treeMessage
}

// treeMessage is a message file and the part files of the message.
type treeMessage struct {
	record
	parts []string // in OpenCode's order (by id, which is the file name)
}

// scanStorage lists the sessions of the tree in dir; a session a database holds is listed as
// superseded.
func scanStorage(ctx context.Context, dir string, inDB map[string]string) ([]adapters.Source, error) {
	var files []string
	projects, _ := os.ReadDir(filepath.Join(dir, "session"))
	for _, p := range projects {
		if p.IsDir() {
			files = append(files, jsonFiles(filepath.Join(dir, "session", p.Name()))...)
		}
	}
	flat := flatParts(dir)
	seen := map[string]bool{}
	var srcs []adapters.Source
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ts, err := loadTreeSession(dir, f, flat)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since listed
		}
		id := strings.TrimSuffix(filepath.Base(f), ".json")
		if err == nil {
			id = ts.id
		}
		if seen[id] {
			continue // the same session filed under two projects: the first is read
		}
		seen[id] = true
		read := []string{f}
		if err == nil {
			read = ts.files()
		}
		st, size, mod := treeStamp(dir, read)
		src := adapters.Source{Key: storageKeyPrefix + id, Path: f, Stamp: st, Size: size, ModTime: mod, Hint: id}
		db, ok := inDB[id]
		if !ok && ts != nil {
			db, ok = inDB[ts.base]
		}
		if ok {
			src.Hint = supersededHint + db + "#" + id
			src.Skip = adapters.SkipSuperseded
			src.Stamp = supersededHint + src.Stamp // a session leaving the database is read again
		}
		srcs = append(srcs, src)
	}
	return srcs, nil
}

// readStorage reads one session of the tree.
func readStorage(ctx context.Context, src adapters.Source, out adapters.Emitter) (adapters.Cursor, error) {
	cur := adapters.Cursor{Stamp: src.Stamp}
	if _, ok := Superseded(src); ok {
		return cur, nil
	}
	dir := filepath.Dir(filepath.Dir(filepath.Dir(src.Path))) // storage/session/<project>/<file>
	if cur.Stamp == "" {
		cur.Stamp, _, _ = treeStamp(dir, []string{src.Path})
	}
	ts, err := loadTreeSession(dir, src.Path, flatParts(dir))
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("opencode: read %s: %w", src.Path, err)
	}
	if ts.err != nil {
		out.Malformed(adapters.Location{Path: ts.file}, ts.err)
		return cur, nil
	}
	project, _ := os.ReadFile(filepath.Join(dir, "project", ts.project+".json"))
	s := ts.record(dir, project)
	msgs := make([]messageRecord, 0, len(ts.messages))
	for _, tm := range ts.messages {
		m := messageRecord{record: tm.record}
		for _, pf := range tm.parts {
			raw, err := adapters.ReadFile(pf, adapters.Limits{}.Line())
			m.parts = append(m.parts, fileRecord(dir, pf, raw, err))
		}
		msgs = append(msgs, m)
	}
	held, err := emitSession(ctx, s, msgs, nil, out)
	if err != nil {
		return adapters.Cursor{}, err
	}
	cur.Stamp = pendingStamp(cur.Stamp, held)
	return cur, nil
}

// record is the session of a parsed session file, with its project file (nil when absent).
func (ts *treeSession) record(dir string, project []byte) sessionRecord {
	s := sessionRecord{
		id:         ts.id,
		parentID:   ts.data.str("parentID"),
		directory:  ts.data.str("directory"),
		projectID:  ts.project,
		created:    ts.data.obj("time").num("created"),
		hasCreated: ts.data.obj("time").has("created"),
		updated:    ts.data.obj("time").num("updated"),
		loc:        adapters.Location{Path: ts.file},
	}
	var extra []any
	if p, err := readDoc(project); err == nil {
		if wt := p.str("worktree"); wt != "/" { // the "global" project's
			s.worktree = wt
		}
		extra = append(extra, "project", json.RawMessage(project))
	}
	s.source = sourceJSON("file", rel(dir, ts.file), json.RawMessage(ts.raw), extra...)
	return s
}

// fileRecord is the record of a message or part file; raw and err are what reading it gave.
func fileRecord(dir, path string, raw []byte, err error) record {
	r := record{id: strings.TrimSuffix(filepath.Base(path), ".json"), loc: adapters.Location{Path: path}, err: err}
	if err != nil {
		return r
	}
	if r.id == "" {
		r.id = adapters.RecordID(raw)
	}
	if r.data, r.err = readDoc(raw); r.err != nil {
		r.err = notObject(r.err)
		return r
	}
	if id := r.data.str("id"); id != "" {
		r.id = id
	}
	r.created = r.data.obj("time").num("created")
	r.source = sourceJSON("file", rel(dir, path), json.RawMessage(raw))
	return r
}

// parseSessionFile parses a session file; ts.err says why it could not be.
func parseSessionFile(file string, raw []byte) *treeSession {
	ts := &treeSession{file: file, raw: raw, base: strings.TrimSuffix(filepath.Base(file), ".json")}
	ts.id, ts.project = ts.base, filepath.Base(filepath.Dir(file))
	if ts.data, ts.err = readDoc(raw); ts.err != nil {
		ts.err = notObject(ts.err)
		return ts
	}
	if id := ts.data.str("id"); id != "" {
		ts.id = id
	}
	if p := ts.data.str("projectID"); pathElem(p) {
		ts.project = p
	}
	return ts
}

// loadTreeSession reads a session file and its message files and lists its part files. Only
// an unreadable session file is an error; what cannot be parsed is recorded for the read to
// report.
func loadTreeSession(dir, file string, flat map[string][]string) (*treeSession, error) {
	raw, err := adapters.ReadFile(file, adapters.Limits{}.Line())
	if err != nil {
		return nil, err
	}
	ts := parseSessionFile(file, raw)
	if ts.err != nil {
		return ts, nil
	}
	var mfiles []string
	for _, sid := range dirNames(ts.id, ts.base) {
		mfiles = append(mfiles, jsonFiles(filepath.Join(dir, "message", sid))...)
	}
	sort.Strings(mfiles) // by id: OpenCode's message ids ascend in time
	for _, mf := range mfiles {
		raw, err := adapters.ReadFile(mf, adapters.Limits{}.Line())
		tm := treeMessage{record: fileRecord(dir, mf, raw, err)}
		for _, mid := range dirNames(tm.id, strings.TrimSuffix(filepath.Base(mf), ".json")) {
			tm.parts = append(tm.parts, jsonFiles(filepath.Join(dir, "part", mid))...)
			tm.parts = append(tm.parts, flat[mid]...)
		}
		sort.Slice(tm.parts, func(i, j int) bool {
			a, b := filepath.Base(tm.parts[i]), filepath.Base(tm.parts[j])
			if a != b {
				return a < b
			}
			return tm.parts[i] < tm.parts[j]
		})
		tm.parts = slices.Compact(tm.parts)
		ts.messages = append(ts.messages, tm)
	}
	return ts, nil
}

// files are every file the session is read from.
func (ts *treeSession) files() []string {
	out := []string{ts.file, filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(ts.file))), "project", ts.project+".json")}
	for _, m := range ts.messages {
		out = append(out, m.loc.Path)
		out = append(out, m.parts...)
	}
	return out
}

// flatParts indexes the part files of an older tree, kept directly in part/, by the messageID
// they name.
func flatParts(dir string) map[string][]string {
	ents, err := os.ReadDir(filepath.Join(dir, "part"))
	if err != nil {
		return nil
	}
	out := map[string][]string{}
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, "part", e.Name())
		raw, err := adapters.ReadFile(path, adapters.Limits{}.Line())
		if err != nil {
			continue
		}
		f, err := adapters.ReadObject(raw, nil)
		if err != nil {
			continue // names no message; no session reads it
		}
		if mid := f.Str("messageID"); mid != "" {
			out[mid] = append(out[mid], path)
		}
	}
	return out
}

// treeStamp digests the names, sizes and modification times of files (missing ones skipped).
func treeStamp(dir string, files []string) (stamp string, size int64, mod time.Time) {
	h := sha256.New()
	n := 0
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			continue
		}
		n++
		size += fi.Size()
		if fi.ModTime().After(mod) {
			mod = fi.ModTime()
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", rel(dir, f), fi.Size(), fi.ModTime().UnixNano())
	}
	return strconv.Itoa(n) + " files/" + strconv.FormatInt(size, 10) + "/" + hex.EncodeToString(h.Sum(nil))[:16], size, mod
}

func rel(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil {
		return filepath.ToSlash(r)
	}
	return path
}

// dirNames are the folder names an object's files may sit under: its id (when it can be a
// folder name) and its file's name.
func dirNames(id, base string) []string {
	if id == base || !pathElem(id) {
		return []string{base}
	}
	return []string{id, base}
}

// pathElem reports whether s names one folder inside another (an id read from a file must not
// lead the reader elsewhere).
func pathElem(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`) && filepath.Base(s) == s
}

// jsonFiles lists the .json files in dir by name; none when dir cannot be read.
func jsonFiles(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}
