package cursor

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pondhq/pond/adapters"
)

// The IDE's files under its user-data folder.
const (
	globalDBRel  = "User/globalStorage/state.vscdb"
	workspaceRel = "User/workspaceStorage"
	ideKey       = globalDBRel // the IDE source's key: one source for the whole global database
)

// Key prefixes of cursorDiskKV. A range over the key's unique index ([prefix, prefix with the
// colon's successor)) reads the index alone, never a value.
const (
	composerPrefix = "composerData:"
	bubblePrefix   = "bubbleId:"
)

func keyRange(prefix string) (lo, hi string) {
	return prefix, prefix[:len(prefix)-1] + string(rune(prefix[len(prefix)-1]+1))
}

func openDB(env adapters.Env, path string) (*sql.DB, error) {
	if env.OpenSQLite == nil {
		return nil, fmt.Errorf("cursor: open %s: no SQLite reader in this environment", path)
	}
	db, err := env.OpenSQLite(path)
	if err != nil {
		return nil, fmt.Errorf("cursor: open %s: %w", path, err)
	}
	return db, nil
}

// workspace is one folder of workspaceStorage: a window's workspace, its state database and the
// folder (or .code-workspace file, or remote URI) it was opened on.
type workspace struct {
	hash   string
	db     string // "" when the folder has no state.vscdb
	folder string // "" when workspace.json names none
	stamp  string
}

// workspaces lists userDir's workspaceStorage folders in name order, each stamped with its
// database's SQLiteStamp and workspace.json's size and time.
func workspaces(userDir string) ([]workspace, error) {
	dir := filepath.Join(userDir, filepath.FromSlash(workspaceRel))
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []workspace
	for _, e := range ents {
		w := workspace{hash: e.Name()}
		base := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
			continue
		}
		var stamp strings.Builder
		if fi, err := os.Stat(filepath.Join(base, "workspace.json")); err == nil && fi.Mode().IsRegular() {
			stamp.WriteString("json:" + adapters.FileStamp(fi))
			if b, err := adapters.ReadFile(filepath.Join(base, "workspace.json"), 1<<20); err == nil {
				w.folder = workspaceFolder(b)
			}
		}
		db := filepath.Join(base, "state.vscdb")
		if s, err := adapters.SQLiteStamp(db); err == nil {
			w.db = db
			stamp.WriteString(" db:" + s)
		}
		if stamp.Len() == 0 {
			continue
		}
		w.stamp = stamp.String()
		out = append(out, w)
	}
	return out, nil
}

// workspaceFolder is the folder a workspace.json names: its "folder" URI (a file: URI as a
// path, any other URI as written), else its "workspace" file's.
func workspaceFolder(b []byte) string {
	n, err := adapters.ReadObject(b, nil)
	if err != nil {
		return ""
	}
	uri := n.Str("folder")
	if uri == "" {
		uri = n.Str("workspace")
	}
	return uriPath(uri)
}

// uriPath is a file: URI's path (with a Windows drive letter's leading slash dropped); any other
// string as it is.
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	p := u.Path
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	if u.Host != "" { // a UNC share
		p = "//" + u.Host + p
	}
	return p
}

// wsDigest digests the workspaces' stamps: when it is as it was, no composer's workspace
// changed.
func wsDigest(ws []workspace) string {
	h := sha256.New()
	for _, w := range ws {
		fmt.Fprintf(h, "%s\x00%s\n", w.hash, w.stamp)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// ideStamp is the IDE source's stamp: the global database's SQLiteStamp and the workspaces'
// digest (a window opened on a new folder links composers to it).
func ideStamp(userDir string) (string, []workspace, error) {
	s, err := adapters.SQLiteStamp(filepath.Join(userDir, filepath.FromSlash(globalDBRel)))
	if err != nil {
		return "", nil, err
	}
	ws, err := workspaces(userDir)
	if err != nil {
		return "", nil, err
	}
	return s + " ws:" + wsDigest(ws), ws, nil
}

// scanIDE lists the IDE source of root, when root holds a global database.
func scanIDE(root string) (*adapters.Source, error) {
	path := filepath.Join(root, filepath.FromSlash(globalDBRel))
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	stamp, _, err := ideStamp(root)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return nil, nil // a database Cursor is creating: listed at the next scan
	}
	if err != nil {
		return nil, err
	}
	return &adapters.Source{Key: ideKey, Path: path, Stamp: stamp, Size: fi.Size(), ModTime: fi.ModTime()}, nil
}

// composerIDs lists the composers of the global database at path from its key index alone
// (the ids the CLI's copies of a chat give way to).
func composerIDs(ctx context.Context, env adapters.Env, path string) (map[string]bool, error) {
	db, err := openDB(env, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if ok, err := hasTable(ctx, db, "cursorDiskKV"); err != nil || !ok {
		return nil, err
	}
	lo, hi := keyRange(composerPrefix)
	rows, err := db.QueryContext(ctx, "SELECT key FROM cursorDiskKV WHERE key >= ? AND key < ?", lo, hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		out[strings.TrimPrefix(k, composerPrefix)] = true
	}
	return out, rows.Err()
}

func hasTable(ctx context.Context, q queryer, name string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", name).Scan(&n)
	return n > 0, err
}

// queryer is a *sql.DB or a *sql.Tx.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// ideState is the IDE source's cursor state: what each composer looked like when it was last
// emitted, so that a pass reads only the composers that changed. A composer is 20 bytes
// (its id's digest, the signature of its rows, the signature of its links), so the cursor of a
// database of 5000 chats stays near 130 KB; no content is kept.
type ideState struct {
	V int `json:"v"`
	// WS is the workspaces' digest the link signatures were taken with.
	WS string `json:"ws,omitempty"`
	// C are the composers' entries, sorted by id digest.
	C []byte `json:"c,omitempty"`
	// P maps a sub-agent's composer to its parent's, as the parent's subComposerIds (or the
	// 3.x headers) said when it was read: a child's record does not name its parent, and a
	// child changes without its parent being read again.
	P map[string]string `json:"p,omitempty"`
}

const (
	ideStateVersion = 1
	entryLen        = 20
)

type entry struct {
	rec  [8]byte
	link [4]byte
}

func idDigest(id string) [8]byte {
	s := sha256.Sum256([]byte(id))
	return [8]byte(s[:8])
}

func decodeIDEState(raw json.RawMessage) (ideState, map[[8]byte]entry) {
	var st ideState
	if len(raw) == 0 || json.Unmarshal(raw, &st) != nil || st.V != ideStateVersion || len(st.C)%entryLen != 0 {
		return ideState{V: ideStateVersion}, map[[8]byte]entry{}
	}
	m := make(map[[8]byte]entry, len(st.C)/entryLen)
	for i := 0; i+entryLen <= len(st.C); i += entryLen {
		var e entry
		copy(e.rec[:], st.C[i+8:i+16])
		copy(e.link[:], st.C[i+16:i+20])
		m[[8]byte(st.C[i:i+8])] = e
	}
	return st, m
}

func encodeIDEState(ws string, entries map[[8]byte]entry, parents map[string]string) json.RawMessage {
	keys := make([][8]byte, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return string(keys[i][:]) < string(keys[j][:]) })
	c := make([]byte, 0, len(keys)*entryLen)
	for _, k := range keys {
		e := entries[k]
		c = append(append(append(c, k[:]...), e.rec[:]...), e.link[:]...)
	}
	b, _ := json.Marshal(ideState{V: ideStateVersion, WS: ws, C: c, P: parents})
	return b
}

// rowFacts is what one pass learns of a composer without reading its bubbles: a digest of its
// record (the composerData value, which Cursor rewrites with a new lastUpdatedAt, status and
// headers whenever the chat changes), and, from the key index alone, its bubbles' count,
// rowid sum and highest rowid. cursorDiskKV's key is UNIQUE ON CONFLICT REPLACE, so a bubble
// written with INSERT gets a new rowid: a new, rewritten or deleted bubble moves these.
type rowFacts struct {
	record                 [8]byte
	bubbles, sum, maxRowid int64
	hasRecord              bool
}

func (f rowFacts) sig() [8]byte {
	var b [33]byte
	copy(b[:8], f.record[:])
	binary.LittleEndian.PutUint64(b[8:], uint64(f.bubbles))
	binary.LittleEndian.PutUint64(b[16:], uint64(f.sum))
	binary.LittleEndian.PutUint64(b[24:], uint64(f.maxRowid))
	if f.hasRecord {
		b[32] = 1
	}
	s := sha256.Sum256(b[:])
	return [8]byte(s[:8])
}

func linkSig(project, parent string, sub bool) [4]byte {
	s := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%v", project, parent, sub))
	return [4]byte(s[:4])
}

// listComposers reads every composer's rowFacts: the records, digested one at a time (they are
// a small part of the database: the bubbles, which hold the conversation, are not read), and
// the bubbles' keys and rowids from the key index.
func listComposers(ctx context.Context, q queryer) (map[string]*rowFacts, error) {
	out := map[string]*rowFacts{}
	get := func(id string) *rowFacts {
		f := out[id]
		if f == nil {
			f = &rowFacts{}
			out[id] = f
		}
		return f
	}
	lo, hi := keyRange(composerPrefix)
	rows, err := q.QueryContext(ctx, "SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?", lo, hi)
	if err != nil {
		return nil, err
	}
	var value sql.RawBytes
	for rows.Next() {
		var k string
		if err := rows.Scan(&k, &value); err != nil {
			rows.Close()
			return nil, err
		}
		f := get(strings.TrimPrefix(k, composerPrefix))
		sum := sha256.Sum256(value)
		f.record, f.hasRecord = [8]byte(sum[:8]), true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	lo, hi = keyRange(bubblePrefix)
	rows, err = q.QueryContext(ctx, "SELECT key, rowid FROM cursorDiskKV WHERE key >= ? AND key < ?", lo, hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var rowid int64
		if err := rows.Scan(&k, &rowid); err != nil {
			return nil, err
		}
		id, _, ok := strings.Cut(strings.TrimPrefix(k, bubblePrefix), ":")
		if !ok {
			continue // not a bubble key Cursor writes; the composer's read reports it
		}
		f := get(id)
		f.bubbles++
		f.sum += rowid
		f.maxRowid = max(f.maxRowid, rowid)
	}
	return out, rows.Err()
}
