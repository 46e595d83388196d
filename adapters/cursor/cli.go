package cursor

import (
	"context"
	"crypto/md5"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/jsonl"
	"github.com/pondhq/pond/session"
)

// scanCLI lists cursor-agent's files under root: every transcript under
// projects/<slug>/agent-transcripts/ (<chat>/<chat>.jsonl, <chat>/subagents/<sub>.jsonl, and
// older builds' flat <chat>.jsonl) and every chat store chats/<md5 of the folder>/<chat>/store.db.
// Hint is the chat's id.
func scanCLI(ctx context.Context, root string) ([]adapters.Source, error) {
	var out []adapters.Source
	add := func(rel, id string, stamp func(string, os.FileInfo) (string, error)) error {
		path := filepath.Join(root, filepath.FromSlash(rel))
		fi, err := os.Stat(path)
		if err != nil || !fi.Mode().IsRegular() {
			return nil // gone since listed, or not a file
		}
		s, err := stamp(path, fi)
		if err != nil {
			return nil // a database being created: listed at the next scan
		}
		out = append(out, adapters.Source{Key: rel, Path: path, Stamp: s, Size: fi.Size(), ModTime: fi.ModTime(), Hint: id})
		return nil
	}
	fileStamp := func(_ string, fi os.FileInfo) (string, error) { return adapters.FileStamp(fi), nil }
	dbStamp := func(p string, _ os.FileInfo) (string, error) { return adapters.SQLiteStamp(p) }

	for _, slug := range dirs(filepath.Join(root, "projects")) {
		base := "projects/" + slug + "/agent-transcripts"
		dir := filepath.Join(root, filepath.FromSlash(base))
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			name := e.Name()
			if stem, ok := strings.CutSuffix(name, ".jsonl"); ok {
				add(base+"/"+name, stem, fileStamp)
				continue
			}
			if !isDir(filepath.Join(dir, name)) {
				continue
			}
			add(base+"/"+name+"/"+name+".jsonl", name, fileStamp)
			subs, _ := os.ReadDir(filepath.Join(dir, name, "subagents"))
			for _, s := range subs {
				if stem, ok := strings.CutSuffix(s.Name(), ".jsonl"); ok {
					add(base+"/"+name+"/subagents/"+s.Name(), stem, fileStamp)
				}
			}
		}
	}
	for _, hash := range dirs(filepath.Join(root, "chats")) {
		for _, chat := range dirs(filepath.Join(root, "chats", hash)) {
			add("chats/"+hash+"/"+chat+"/store.db", chat, dbStamp)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// dirs lists the folders in dir by name (none when dir is missing).
func dirs(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if isDir(filepath.Join(dir, e.Name())) {
			out = append(out, e.Name())
		}
	}
	return out
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// chatID is id when it passes session.CheckID, else a digest of the source's key.
func chatID(id, key string) string {
	if session.CheckID(id) == nil {
		return id
	}
	return adapters.RecordID([]byte(key))
}

// chat is what a CLI chat's session says, built the same from its transcript and from its
// store, so that both sources emit one session.
type chat struct {
	id, parent string
	slug       string // projects/<slug>, when a transcript of the chat (or its parent) is there
	hash       string // chats/<hash>, when a store of the chat is there
	meta       json.RawMessage
	created    time.Time
}

// findChat finds the chat's transcript folder (slug) and store (hash) under root, when the
// source being read does not name them, and reads the store's meta (createdAt, name, …).
func findChat(ctx context.Context, env adapters.Env, root, id, parent, slug, hash string) *chat {
	c := &chat{id: id, parent: parent, slug: slug, hash: hash}
	top := id
	if parent != "" {
		top = parent
	}
	if c.slug == "" {
		for _, slug := range dirs(filepath.Join(root, "projects")) {
			dir := filepath.Join(root, "projects", slug, "agent-transcripts")
			if isDir(filepath.Join(dir, top)) || fileExists(filepath.Join(dir, top+".jsonl")) {
				c.slug = slug
				break
			}
		}
	}
	if c.hash == "" {
		for _, hash := range dirs(filepath.Join(root, "chats")) {
			if fileExists(filepath.Join(root, "chats", hash, top, "store.db")) {
				c.hash = hash
				break
			}
		}
	}
	if c.hash != "" && parent == "" {
		c.meta = storeMeta(ctx, env, filepath.Join(root, "chats", c.hash, top, "store.db"))
		if n, err := adapters.ReadObject(c.meta, nil); err == nil {
			if ms, ok := n.Object().Int("createdAt"); ok && ms > 0 {
				c.created = time.UnixMilli(ms)
			}
		}
	}
	return c
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// storeMeta is a chat store's meta row "0": hex-encoded JSON ({agentId, name, mode, createdAt,
// lastUsedModel, latestRootBlobId}); nil when it is not there or not that.
func storeMeta(ctx context.Context, env adapters.Env, path string) json.RawMessage {
	if env.OpenSQLite == nil {
		return nil
	}
	db, err := env.OpenSQLite(path)
	if err != nil {
		return nil
	}
	defer db.Close()
	var v string
	if db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = '0'").Scan(&v) != nil {
		return nil
	}
	b, err := hex.DecodeString(strings.TrimSpace(v))
	if err != nil || !json.Valid(b) {
		return nil
	}
	return b
}

// project is the chat's folder: the transcript folder's slug decoded against the folders that
// exist (the slug is the path with every character but letters and digits made "-", so several
// paths give one slug), checked against the store's md5 when there is one; else the slug; else
// the store's folder name.
func (c *chat) project(goos string) string {
	if c.slug != "" {
		if p := decodeSlug(c.slug, goos, c.hash); p != "" {
			return p
		}
		return c.slug
	}
	if c.hash != "" {
		return "cursor-chats:" + c.hash
	}
	return "cursor:no-workspace"
}

func (c *chat) session(goos string, fallback time.Time) session.Session {
	s := session.Session{ID: c.id, SourceAgent: Name, Project: c.project(goos), CreatedAt: c.created}
	if c.parent != "" {
		s.ParentSessionID, s.SourceAgent = c.parent, SubagentKind
	}
	if s.CreatedAt.IsZero() {
		s.CreatedAt = fallback
	}
	s.Options = session.Options{"source": adapters.Object(
		adapters.Field{Key: "chat", Value: adapters.String(c.id)},
		adapters.Field{Key: "project_dir", Value: adapters.OptString(c.slug)},
		adapters.Field{Key: "chat_dir", Value: adapters.OptString(c.hash)},
		adapters.Field{Key: "meta", Value: c.meta},
	)}
	return s
}

// decodeSlug finds the folder a projects/ slug stands for: the slug is the folder's path
// without its leading separator, every character but ASCII letters and digits made "-", so it
// is matched from the file system's root down against the names of the folders there, made a
// slug the same way (at most slugBudget folders listed). When hash is set, a folder whose md5
// is not hash is passed over. "" when none is found.
func decodeSlug(slug, goos, hash string) string {
	start, rest := "/", strings.TrimPrefix(slug, "-")
	if goos == "windows" {
		drive, after, ok := strings.Cut(rest, "-")
		if !ok || len(drive) != 1 {
			return ""
		}
		start, rest = strings.ToUpper(drive)+`:\`, after
	}
	budget := slugBudget
	var walk func(dir, rest string) string
	walk = func(dir, rest string) string {
		if rest == "" {
			if hash != "" {
				sum := md5.Sum([]byte(dir))
				if hex.EncodeToString(sum[:]) != hash {
					return ""
				}
			}
			return dir
		}
		if budget--; budget < 0 {
			return ""
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return ""
		}
		for _, e := range ents {
			s := slugOf(e.Name())
			after, ok := strings.CutPrefix(rest, s)
			if !ok || after != "" && after[0] != '-' {
				continue
			}
			next := filepath.Join(dir, e.Name())
			if !isDir(next) {
				continue
			}
			if p := walk(next, strings.TrimPrefix(after, "-")); p != "" {
				return p
			}
		}
		return ""
	}
	return walk(start, rest)
}

// slugOf is a name as cursor-agent writes it in a slug.
func slugOf(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

const slugBudget = 2000

// transcriptState is a transcript's cursor state.
type transcriptState struct {
	V     int              `json:"v"`
	Start time.Time        `json:"start"`
	IDs   adapters.SeenIDs `json:"ids,omitzero"`
	// Open are the tool calls without a result yet, oldest first (at most maxOpen): a result
	// whose tool_use_id names no call (cursor-agent writes calls without ids) answers the
	// oldest.
	Open []string `json:"open,omitempty"`
}

const maxOpen = 64

const transcriptStateVersion = 1

// readTranscript reads a cursor-agent transcript from where cur stopped. Lines carry no id,
// time or folder: a message's id is its line's rec- digest, and its time the chat's start
// (the store's createdAt, else the file's time when first read) plus its line number in
// microseconds, which keeps the file's order.
func readTranscript(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	root, id, parent, slug := transcriptIDs(src)
	jf, err := jsonl.Open(src.Path, cur, env.Limits)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("cursor: %w", err)
	}
	var st transcriptState
	if jf.Resumed() && (json.Unmarshal(cur.State, &st) != nil || st.V != transcriptStateVersion || st.Start.IsZero()) {
		jf.Close()
		st = transcriptState{}
		if jf, err = jsonl.Open(src.Path, adapters.Cursor{}, env.Limits); err != nil {
			return adapters.Cursor{}, fmt.Errorf("cursor: %w", err)
		}
	}
	defer jf.Close()
	c := findChat(ctx, env, root, id, parent, slug, "")
	if st.Start.IsZero() {
		st.Start = c.created
		if st.Start.IsZero() {
			st.Start = src.ModTime
		}
		if st.Start.IsZero() {
			st.Start = time.Now()
		}
		st.Start = st.Start.UTC().Truncate(time.Millisecond)
	}
	s := c.session(env.GOOS, st.Start)
	if err := out.Event(session.Event{Session: &s}); err != nil {
		return adapters.Cursor{}, err
	}
	st.V = transcriptStateVersion
	jf.Checkpoints(out, func() (json.RawMessage, bool) {
		b, err := json.Marshal(st)
		return b, err == nil
	})
	drift := map[string]bool{}
	next, err := jf.Lines(ctx, func(line []byte, no int) error {
		return transcriptLine(&s, &st, src.Path, line, no, drift, out)
	}, out.Malformed)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("cursor: %w", err)
	}
	next.Stamp = src.Stamp
	if next.State, err = json.Marshal(st); err != nil {
		return adapters.Cursor{}, err
	}
	return next, nil
}

// transcriptIDs are the root a transcript source lies under, its chat's id, its parent's (for
// a sub-agent's transcript) and its projects/ folder.
func transcriptIDs(src adapters.Source) (root, id, parent, slug string) {
	parts := strings.Split(src.Key, "/") // projects/<slug>/agent-transcripts/…
	root = src.Path
	for range parts {
		root = filepath.Dir(root)
	}
	stem := strings.TrimSuffix(parts[len(parts)-1], ".jsonl")
	id = chatID(stem, src.Key)
	if len(parts) == 6 && parts[4] == "subagents" {
		parent = chatID(parts[3], strings.Join(parts[:4], "/"))
	}
	if len(parts) >= 4 && parts[0] == "projects" && parts[2] == "agent-transcripts" {
		slug = parts[1]
	}
	return root, id, parent, slug
}

var lineShape = &adapters.Shape{Members: map[string]*adapters.Shape{"message": {Members: map[string]*adapters.Shape{"content": {}}}}}

// transcriptLine maps one transcript line: {"role": "user"|"assistant", "message": {"content":
// [blocks] | "text"}} with Anthropic-style blocks (text, thinking, tool_use, tool_result);
// lines without a role ({"type": "turn_ended"}, …) become system messages holding the line.
func transcriptLine(s *session.Session, st *transcriptState, path string, line []byte, no int, drift map[string]bool, out adapters.Emitter) error {
	at := adapters.Location{Path: path, Line: no}
	n, err := adapters.ReadObject(line, lineShape)
	if err != nil {
		out.Malformed(at, fmt.Errorf("cursor: transcript line: %w", err))
		return nil
	}
	id := st.IDs.Next(adapters.RecordID(line))
	m := session.Message{SessionID: s.ID, ID: id, Timestamp: st.Start.Add(time.Duration(no) * time.Microsecond),
		Options: session.Options{"source": adapters.Object(
			adapters.Field{Key: "line", Value: json.RawMessage(strconv.Itoa(no))},
			adapters.Field{Key: "record", Value: line},
		)}}
	unknown := func(what string) {
		if !drift[what] {
			drift[what] = true
			out.Unknown(at, what)
		}
	}
	var parts []session.Part
	add := func(p session.Part) {
		p.SessionID, p.MessageID, p.Ordinal, p.ID = s.ID, id, len(parts), id+":"+strconv.Itoa(len(parts))
		if p.Provenance == "" {
			p.Provenance = session.Conversational
		}
		parts = append(parts, p)
	}
	switch role := n.Str("role"); role {
	case "user", "assistant":
		m.Role = session.Role(role)
		content := n.Kid("message").Kid("content")
		if content != nil && content.Kind() == '"' {
			if t := adapters.Str(content.Raw); t != "" {
				add(session.Part{Type: session.PartText, Text: t, Provenance: provenance(m.Role, t)})
			}
		}
		for i, b := range content.List() {
			o := b.Object()
			switch typ := o.Str("type"); typ {
			case "text":
				if t := o.Str("text"); t != "" {
					add(session.Part{Type: session.PartText, Text: t, Provenance: provenance(m.Role, t)})
				}
			case "thinking":
				if t := o.Str("thinking"); t != "" {
					add(session.Part{Type: session.PartReasoning, Text: t})
				}
			case "tool_use":
				call := o.Str("id")
				if call == "" {
					call = id + ":" + strconv.Itoa(i)
				}
				if st.Open = append(st.Open, call); len(st.Open) > maxOpen {
					st.Open = st.Open[1:]
				}
				add(session.Part{Type: session.PartToolCall, CallID: call, Name: o.Str("name"), Params: adapters.Value(o["input"])})
			case "tool_result":
				failed, _ := o.Bool("is_error")
				call := o.Str("tool_use_id")
				if k := slices.Index(st.Open, call); k >= 0 {
					st.Open = slices.Delete(st.Open, k, k+1)
				} else if len(st.Open) > 0 {
					call, st.Open = st.Open[0], st.Open[1:]
				}
				add(session.Part{Type: session.PartToolResult, CallID: call, Result: adapters.Value(o["content"]), IsFailure: failed})
			default:
				unknown("content block " + strconv.Quote(typ) + " (kept in the record)")
			}
		}
		if len(parts) == 0 {
			m.Role, parts = session.RoleSystem, nil
		}
	case "":
		m.Role = session.RoleSystem
		if typ := n.Str("type"); typ != "turn_ended" {
			unknown("line type " + strconv.Quote(typ) + " (kept as a system message)")
		}
	default:
		m.Role = session.RoleSystem
		unknown("role " + strconv.Quote(role) + " (kept as a system message)")
	}
	if err := out.Event(session.Event{Message: &m}); err != nil {
		return err
	}
	for i := range parts {
		if err := out.Event(session.Event{Part: &parts[i]}); err != nil {
			return err
		}
	}
	return nil
}

// provenance marks what cursor-agent wraps around the user's words (<user_info>,
// <attached_files>, …: a user text block that is one tag other than <user_query>) injected.
func provenance(r session.Role, t string) session.Provenance {
	t = strings.TrimSpace(t)
	if r == session.RoleUser && strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") && !strings.HasPrefix(t, "<user_query>") {
		return session.Injected
	}
	return session.Conversational
}

// readStore reads a cursor-agent chat store whole (its stamp moves with every commit): the
// session from its meta, and every blob, kept raw as a system message of its own ("blob:<id>",
// its data as a string when it is UTF-8, else {"base64": …}). The blobs are cursor-agent's own
// conversation state, content-addressed protobuf and JSON that no public description covers:
// kept, not mapped.
func readStore(ctx context.Context, env adapters.Env, src adapters.Source, out adapters.Emitter) (adapters.Cursor, error) {
	parts := strings.Split(src.Key, "/") // chats/<hash>/<chat>/store.db
	root := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(src.Path))))
	id := chatID(parts[2], src.Key)
	c := findChat(ctx, env, root, id, "", "", parts[1])
	db, err := openDB(env, src.Path)
	if err != nil {
		return adapters.Cursor{}, err
	}
	defer db.Close()
	fallback := src.ModTime
	if fallback.IsZero() {
		fallback = time.Now()
	}
	s := c.session(env.GOOS, fallback.UTC().Truncate(time.Millisecond))
	if err := out.Event(session.Event{Session: &s}); err != nil {
		return adapters.Cursor{}, err
	}
	ok, err := hasTable(ctx, db, "blobs")
	if err != nil || !ok {
		return adapters.Cursor{Stamp: src.Stamp}, err
	}
	rows, err := db.QueryContext(ctx, "SELECT rowid, id, data FROM blobs ORDER BY rowid")
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("cursor: read %s: %w", src.Path, err)
	}
	defer rows.Close()
	reported := false
	seen := adapters.SeenIDs{}
	for rows.Next() {
		var rowid int64
		var bid sql.NullString
		var data []byte
		if err := rows.Scan(&rowid, &bid, &data); err != nil {
			return adapters.Cursor{}, fmt.Errorf("cursor: read %s: %w", src.Path, err)
		}
		if !reported {
			reported = true
			out.Unknown(adapters.Location{Path: src.Path}, "chat store blobs (kept raw, not mapped)")
		}
		name := bid.String
		if name == "" {
			name = strconv.FormatInt(rowid, 10)
		}
		var v json.RawMessage
		if utf8.Valid(data) {
			v = adapters.String(string(data))
		} else {
			v = adapters.Object(adapters.Field{Key: "base64", Value: adapters.String(base64.StdEncoding.EncodeToString(data))})
		}
		m := session.Message{SessionID: s.ID, ID: seen.Next("blob:" + name), Role: session.RoleSystem,
			Timestamp: s.CreatedAt.Add(time.Duration(rowid) * time.Microsecond),
			Options: session.Options{"source": adapters.Object(
				adapters.Field{Key: "table", Value: adapters.String("blobs")},
				adapters.Field{Key: "id", Value: adapters.String(name)},
				adapters.Field{Key: "record", Value: v},
			)}}
		if err := out.Event(session.Event{Message: &m}); err != nil {
			return adapters.Cursor{}, err
		}
	}
	if err := rows.Err(); err != nil {
		return adapters.Cursor{}, fmt.Errorf("cursor: read %s: %w", src.Path, err)
	}
	return adapters.Cursor{Stamp: src.Stamp}, nil
}
