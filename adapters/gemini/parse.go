package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/jsonl"
	"github.com/pondhq/pond/session"
)

// Read implements adapters.Adapter. A `.jsonl` file is read incrementally; a legacy `.json`
// file is read whole whenever it changes, and the cursor's state says what of it is archived.
func (*Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	if strings.HasSuffix(src.Path, ".jsonl") {
		return readJSONL(ctx, env.Limits, src, cur, out)
	}
	return readLegacy(ctx, env.Limits, src, cur, out)
}

// reader turns one source's records into events.
type reader struct {
	out     adapters.Emitter
	path    string
	lay     layout
	jsonl   bool
	mem     *memory
	sess    *session.Session // the source's session, once known
	emitted bool             // sess was emitted in this read
	// Times the metadata gives, for the session's created_at when it has no start time.
	start, lastUpdated, modTime time.Time
	last                        time.Time // the previous record's time
	reported                    map[string]bool
}

func newReader(out adapters.Emitter, src adapters.Source, st *state, isJSONL bool) *reader {
	rd := &reader{out: out, path: src.Path, lay: layoutOf(src.Path), jsonl: isJSONL,
		mem: openMemory(st), modTime: src.ModTime, reported: map[string]bool{}}
	if rd.modTime.IsZero() {
		if info, err := os.Stat(src.Path); err == nil {
			rd.modTime = info.ModTime()
		}
	}
	if st.Session != nil {
		s := *st.Session
		s.Options = s.Options.Clone()
		rd.sess = &s
	}
	rd.last, _ = time.Parse(time.RFC3339Nano, st.Last)
	return rd
}

func readJSONL(ctx context.Context, lim adapters.Limits, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	st := decodeState(cur.State)
	if st == nil {
		cur = adapters.Cursor{} // nothing to go on from
	}
	f, err := jsonl.Open(src.Path, cur, lim)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("gemini: read %s: %w", src.Path, err)
	}
	defer f.Close()
	if !f.Resumed() {
		st = &state{V: stateVersion}
	}
	rd := newReader(out, src, st, true)
	next, err := f.Lines(ctx, rd.line, out.Malformed)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("gemini: read %s: %w", src.Path, err)
	}
	// A fresh read of a file holding only its metadata still archives the session.
	if !f.Resumed() && rd.sess != nil {
		if err := rd.begin(time.Time{}); err != nil {
			return adapters.Cursor{}, err
		}
	}
	st.Session = rd.sess
	if !rd.last.IsZero() {
		st.Last = rd.last.Format(time.RFC3339Nano)
	}
	next.Stamp = src.Stamp
	if next.State, err = rd.mem.encode(); err != nil {
		return adapters.Cursor{}, fmt.Errorf("gemini: read %s: %w", src.Path, err)
	}
	return next, nil
}

// line maps one JSONL record, classified the way the CLI's loader does.
func (rd *reader) line(raw []byte, no int) error {
	n, err := readRecord(raw)
	if err != nil {
		rd.out.Malformed(adapters.Location{Path: rd.path, Line: no}, fmt.Errorf("malformed record: %w", err))
		return nil
	}
	rec := members(n)
	switch {
	case rec.IsStr("$rewindTo"):
		return rd.rewind(rec, raw, no)
	case rec.IsStr("id"):
		return rd.message(n, raw, origin{keep: true, line: no})
	case adapters.Kind(rec["$set"]) == '{':
		return rd.set(n, raw, no)
	case rec.IsStr("sessionId") && rd.sess == nil:
		rd.newSession(rec, raw, "jsonl", no)
		return nil
	}
	if !rec.IsStr("sessionId") {
		rd.unknown(no, "record without id, $set, $rewindTo or sessionId")
	}
	// A second metadata record (a legacy session migrated into this file), or an unknown one.
	ts := rd.recordTime(rec.Time("lastUpdated"))
	rd.last = ts
	return rd.system(raw, ts, kv{"line", jsonInt(no)})
}

// rewind keeps a `$rewindTo` record. The CLI drops the named message and all after it; the
// archive keeps them and says so.
func (rd *reader) rewind(rec record, raw []byte, no int) error {
	for _, k := range rec.Keys() {
		if k != "$rewindTo" {
			rd.unknown(no, fmt.Sprintf("$rewindTo record key %q", k))
		}
	}
	return rd.system(raw, rd.recordTime(time.Time{}), kv{"line", jsonInt(no)}, kv{"rewind_to", adapters.OptString(rec.Str("$rewindTo"))})
}

// set keeps a `$set` metadata update; messages of a `messages` checkpoint are read as records
// kept by the update.
func (rd *reader) set(n *node, raw []byte, no int) error {
	rec, upd := members(n), members(n.Kid("$set"))
	for _, k := range upd.Keys() {
		if !metaKeys[k] {
			rd.unknown(no, fmt.Sprintf("$set key %q", k))
		}
	}
	for _, k := range rec.Keys() {
		if k != "$set" {
			rd.unknown(no, fmt.Sprintf("$set record key %q", k))
		}
	}
	ts := rd.recordTime(upd.Time("lastUpdated"))
	rd.last = ts
	if err := rd.system(raw, ts, kv{"line", jsonInt(no)}); err != nil {
		return err
	}
	for _, el := range n.Kid("$set").Kid("messages").List() {
		if m := members(el); m == nil || !m.IsStr("id") {
			continue // kept in the $set record all the same
		}
		if err := rd.message(el, el.Raw, origin{line: no, checkpoint: no}); err != nil {
			return err
		}
	}
	rd.last = ts
	return nil
}

func readLegacy(ctx context.Context, lim adapters.Limits, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	next := adapters.Cursor{Stamp: src.Stamp, State: cur.State}
	data, err := adapters.ReadFile(src.Path, lim.Line())
	if errors.Is(err, adapters.ErrTooLarge) {
		out.Malformed(adapters.Location{Path: src.Path}, fmt.Errorf("gemini: not read: %w", err))
		return next, nil // read again when it changes
	}
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("gemini: read %s: %w", src.Path, err)
	}
	fields, at, err := topLevel(data)
	if err != nil {
		out.Malformed(adapters.Location{Path: src.Path, Line: lineAt(data, at)}, err)
		return next, nil
	}
	msgs := -1
	for i, f := range fields {
		if f.key == "messages" && adapters.Kind(f.val) == '[' {
			msgs = i
		}
	}
	drift := false
	if msgs < 0 {
		for i, f := range fields {
			if f.key == "history" && adapters.Kind(f.val) == '[' {
				msgs, drift = i, true
			}
		}
	}
	var meta []kv
	for i, f := range fields {
		if i != msgs {
			meta = append(meta, kv{f.key, f.val})
		}
	}
	metaRaw := object(meta...)
	metaRec := parseRecord(metaRaw)

	st := decodeState(cur.State)
	id := metaRec.Str("sessionId")
	if id == "" {
		id = stem(src.Path)
	}
	if st == nil || st.Session == nil || st.Session.ID != id {
		st = &state{V: stateVersion}
	}
	st.Recs = adapters.SeenIDs{} // ids of id-less records are numbered within one read
	rd := newReader(out, src, st, false)
	if drift {
		rd.unknown(0, `top-level key "history" (read as messages)`)
	}
	var elems []element
	if msgs >= 0 {
		elems = elements(fields[msgs].val, fields[msgs].at)
	}
	fresh := rd.sess == nil
	if fresh {
		rd.newSession(metaRec, metaRaw, "json", 0)
		if rd.sess.CreatedAt.IsZero() {
			for _, el := range elems {
				if t := parseRecord(el.raw).Time("timestamp"); !t.IsZero() {
					rd.sess.CreatedAt = t
					break
				}
			}
		}
	} else if sum := adapters.Digest(metaRaw); st.Meta != sum {
		ts := rd.recordTime(metaRec.Time("lastUpdated"))
		if err := rd.system(metaRaw, ts, kv{"metadata", jsonTrue}); err != nil {
			return adapters.Cursor{}, err
		}
	}
	st.Meta = adapters.Digest(metaRaw)
	for _, el := range elems {
		if err := ctx.Err(); err != nil {
			return adapters.Cursor{}, err
		}
		rec, err := readRecord(el.raw)
		if err != nil {
			out.Malformed(adapters.Location{Path: src.Path, Line: lineAt(data, el.at)}, errors.New("message is not a JSON object"))
			continue
		}
		if err := rd.message(rec, el.raw, origin{keep: true}); err != nil {
			return adapters.Cursor{}, err
		}
	}
	if fresh { // a session without messages is archived all the same
		if err := rd.begin(time.Time{}); err != nil {
			return adapters.Cursor{}, err
		}
	}
	st.Session, st.Recs = rd.sess, adapters.SeenIDs{}
	if next.State, err = rd.mem.encode(); err != nil {
		return adapters.Cursor{}, fmt.Errorf("gemini: read %s: %w", src.Path, err)
	}
	return next, nil
}

// origin says where a message record came from.
type origin struct {
	keep       bool // the record is kept with what it produces (false inside a $set checkpoint)
	line       int  // JSONL line
	checkpoint int  // line of the $set checkpoint that carried it
}

// message maps a MessageRecord: a first sight emits the message and its parts; a changed record
// with a known id emits only what it adds (see the package doc).
func (rd *reader) message(n *node, raw []byte, o origin) error {
	m := rd.readMessage(n, o.line)
	if m.id == "" {
		m.id = rd.mem.recID(raw)
	}
	ts := rd.recordTime(m.timestamp)
	rd.last = ts
	r, known := role(m.typ)
	switch {
	case !known:
		rd.unknown(o.line, fmt.Sprintf("message type %q", m.typ))
	case m.typ == "model":
		rd.unknown(o.line, `message type "model" (read as gemini)`)
	}
	msg := session.Message{SessionID: rd.sessionID(), ID: m.id, Role: r, Timestamp: ts}
	var parts []slotPart
	if r == session.RoleSystem {
		msg.Content = text(m.content)
	} else {
		prov := session.Conversational
		if o.checkpoint > 0 {
			prov = session.Injected // a turn the CLI made up (e.g. a compression summary)
		}
		parts = rd.parts(msg.SessionID, m, prov, o.line)
	}
	sum := adapters.Digest(raw)
	slots := make([]int, len(parts))
	for i, sp := range parts {
		slots[i] = sp.slot
	}

	tr := rd.mem.tracks[m.id]
	switch {
	case tr == nil && !rd.mem.isOlder(m.id): // first sight
		if o.keep {
			msg.Options = session.Options{"source": object(kv{"record", raw}, kv{"line", jsonInt(o.line)})}
		} else {
			msg.Options = session.Options{"source": object(kv{"checkpoint", jsonInt(o.checkpoint)})}
		}
		if err := rd.emitMessage(&msg); err != nil {
			return err
		}
		rd.mem.touch(&track{ID: m.id, Sum: sum, Slots: slots})
		return rd.emitParts(parts, nil)
	case tr != nil && tr.Sum == sum: // nothing new
		rd.mem.touch(tr)
		return nil
	case tr == nil && !rd.jsonl:
		// A legacy file rewrites old messages unchanged; beyond the remembered ones they are
		// taken as archived.
		rd.mem.touch(&track{ID: m.id, Sum: sum, Slots: slots})
		return nil
	}

	// A replacement. Only parts in new slots can be stored; the record goes with the first of
	// them, or, when it adds none (or its earlier slots are forgotten), into a system message.
	var fresh []slotPart
	for _, sp := range parts {
		if tr == nil || !slices.Contains(tr.Slots, sp.slot) {
			fresh = append(fresh, sp)
		}
	}
	separate := tr == nil || len(fresh) == 0
	if len(fresh) > 0 {
		if err := rd.emitMessage(&msg); err != nil {
			return err
		}
		var first []kv
		if o.keep && !separate {
			first = []kv{{"record", raw}, {"line", jsonInt(o.line)}, {"replaces", adapters.OptString(m.id)}}
		}
		if err := rd.emitParts(fresh, first); err != nil {
			return err
		}
	}
	if o.keep && separate {
		if err := rd.system(raw, ts, kv{"line", jsonInt(o.line)}, kv{"replaces", adapters.OptString(m.id)}); err != nil {
			return err
		}
	}
	if tr == nil {
		tr = &track{ID: m.id}
	}
	tr.Sum, tr.Slots = sum, addSlots(tr.Slots, slots...)
	rd.mem.touch(tr)
	return nil
}

// system emits a part-less system message keeping raw: a record with no conversation content.
// source adds fields to its options.source.
func (rd *reader) system(raw []byte, ts time.Time, source ...kv) error {
	opts := session.Options{"source": object(append([]kv{{"record", raw}}, source...)...)}
	return rd.emitMessage(&session.Message{SessionID: rd.sessionID(), ID: rd.mem.recID(raw), Role: session.RoleSystem,
		Timestamp: ts, Options: opts})
}

// newSession builds the source's session from its metadata record (not emitted yet: its
// created_at may wait for the first record's time).
func (rd *reader) newSession(meta record, raw []byte, format string, line int) {
	for _, k := range meta.Keys() {
		if !metaKeys[k] && k != "history" {
			rd.unknown(line, fmt.Sprintf("metadata key %q", k))
		}
	}
	id := meta.Str("sessionId")
	if id == "" {
		id = stem(rd.path)
		rd.unknown(line, "metadata without sessionId (session id taken from the file name)")
	}
	s := &session.Session{ID: id, SourceAgent: Name,
		Project: resolveProject(rd.path, rd.lay, meta.Str("projectHash"), strs(meta["directories"]))}
	switch kind := meta.Str("kind"); kind {
	case "", "main", "subagent":
	default:
		rd.unknown(line, fmt.Sprintf("session kind %q", kind))
	}
	if meta.Str("kind") == "subagent" || rd.lay.parent != "" {
		s.SourceAgent = SubagentAgent
	}
	if rd.lay.parent != "" && rd.lay.parent != id {
		s.ParentSessionID = rd.lay.parent
	}
	s.Options = session.Options{"source": object(kv{"record", raw}, kv{"line", jsonInt(line)},
		kv{"format", adapters.OptString(format)}, kv{"file", adapters.OptString(filepath.Base(rd.path))},
		kv{"project_dir", adapters.OptString(rd.lay.projectID)})}
	adapters.ApplyRestoreMark(s, meta[adapters.RestoreMarkKey])
	rd.start, rd.lastUpdated = meta.Time("startTime"), meta.Time("lastUpdated")
	s.CreatedAt = rd.start
	rd.sess = s
}

// sessionID is the session's id, making one up from the file name when records come before any
// metadata.
func (rd *reader) sessionID() string {
	if rd.sess == nil {
		rd.newSession(record{}, nil, "jsonl", 0)
	}
	return rd.sess.ID
}

// begin emits the session once per read, before anything else.
func (rd *reader) begin(ts time.Time) error {
	if rd.emitted {
		return nil
	}
	rd.sessionID()
	if rd.sess.CreatedAt.IsZero() {
		rd.sess.CreatedAt = firstTime(rd.start, ts, rd.lastUpdated, rd.modTime)
	}
	s := *rd.sess
	s.Options = s.Options.Clone()
	rd.emitted = true
	return rd.out.Event(session.Event{Session: &s})
}

func (rd *reader) emitMessage(m *session.Message) error {
	if err := rd.begin(m.Timestamp); err != nil {
		return err
	}
	return rd.out.Event(session.Event{Message: m})
}

// emitParts emits parts in order; first (when set) goes into the first part's options.source.
func (rd *reader) emitParts(parts []slotPart, first []kv) error {
	for i, sp := range parts {
		p := sp.part
		var source []kv
		if i == 0 {
			source = append(source, first...)
		}
		if sp.status != "" {
			source = append(source, kv{"status", adapters.OptString(sp.status)})
		}
		if len(source) > 0 {
			p.Options = session.Options{"source": object(source...)}
		}
		if err := rd.out.Event(session.Event{Part: &p}); err != nil {
			return err
		}
	}
	return nil
}

// recordTime is a record's own time, else the previous record's, else the session's start.
func (rd *reader) recordTime(own time.Time) time.Time {
	switch {
	case !own.IsZero():
		return own
	case !rd.last.IsZero():
		return rd.last
	case rd.sess != nil && !rd.sess.CreatedAt.IsZero():
		return rd.sess.CreatedAt
	}
	return firstTime(rd.start, rd.lastUpdated, rd.modTime)
}

func firstTime(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Unix(0, 0).UTC()
}

// unknown reports drift once per read.
func (rd *reader) unknown(line int, what string) {
	if rd.reported[what] {
		return
	}
	rd.reported[what] = true
	rd.out.Unknown(adapters.Location{Path: rd.path, Line: line}, what)
}

// stem is a file's name without its extension.
func stem(path string) string {
	base := filepath.Base(path)
	if s := strings.TrimSuffix(base, filepath.Ext(base)); s != "" {
		return s
	}
	return adapters.RecordID([]byte(path))
}

// field is one top-level key of a JSON object, its verbatim value and where the value starts.
type field struct {
	key string
	val json.RawMessage
	at  int
}

// topLevel splits a JSON object into its fields, keeping values byte for byte. On error it
// returns the offset where reading stopped.
func topLevel(data []byte) ([]field, int, error) {
	var out []field
	err := adapters.EachMember(data, func(key string, val json.RawMessage, at int) error {
		out = append(out, field{key, val, at})
		return nil
	})
	switch {
	case err == nil:
		return out, 0, nil
	case errors.Is(err, adapters.ErrNotObject):
		return nil, 0, err
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, len(data), io.ErrUnexpectedEOF // cut short: the file is still being written
	}
	// encoding/json says why, and where, as it always has.
	var v json.RawMessage
	var se *json.SyntaxError
	if uerr := json.Unmarshal(data, &v); errors.As(uerr, &se) {
		return nil, int(se.Offset), uerr
	}
	return nil, 0, err
}

// element is one value of a JSON array and its offset in the file.
type element struct {
	raw json.RawMessage
	at  int
}

// elements splits a (valid) JSON array that starts at offset base of its file.
func elements(arr json.RawMessage, base int) []element {
	var out []element
	_ = adapters.EachElem(arr, func(v json.RawMessage, at int) error {
		out = append(out, element{v, base + at})
		return nil
	})
	return out
}

// lineAt is the 1-based line of offset off in data.
func lineAt(data []byte, off int) int {
	off = min(max(off, 0), len(data))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}
