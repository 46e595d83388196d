package opencode

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// sessionRecord is a session as either store holds it.
type sessionRecord struct {
	id, parentID        string
	directory, worktree string
	projectID           string
	created, updated    int64 // ms since the epoch; 0 when absent
	// hasCreated is set when the record holds a creation time, even 0: OpenCode takes a session
	// created at the epoch (a restore of a session that recorded no time at all writes one).
	hasCreated bool
	source     json.RawMessage // options.source
	loc        adapters.Location
}

// record is one message or part: a database row or a legacy JSON file.
type record struct {
	id      string
	created int64           // ms since the epoch; 0 when the record has none
	data    doc             // OpenCode's message info or part, empty when err is set
	err     error           // why the record could not be parsed
	source  json.RawMessage // options.source
	loc     adapters.Location
}

// messageRecord is a message with its parts in OpenCode's order (by part id).
type messageRecord struct {
	record
	parts []record
}

// extraRecord is a row kept raw as a system message of its own (session_message rows).
type extraRecord struct {
	record
	what string // the Unknown report naming it
}

// emitter maps one session's records to canonical events.
type emitter struct {
	out      adapters.Emitter
	sid      string
	last     time.Time // the previous record's time, for records without one
	reported map[string]bool
}

// inProgressGrace bounds how long an assistant message that is still being written (no
// time.completed, no error) is held back. OpenCode rewrites such a message and its parts in place
// until the turn ends, while the archive keeps the first version of every row it stores; so
// the message and those after it wait for a later sync. A session untouched for longer (the
// agent died mid-turn) is captured as it is.
const inProgressGrace = 10 * time.Minute

// now is the clock inProgressGrace is measured on.
var now = time.Now

// pendingStamp marks the cursor of a session read while a turn was in progress, so that the
// next sync reads it again even if OpenCode has not touched it since.
func pendingStamp(stamp string, held bool) string {
	if held {
		return "pending/" + stamp
	}
	return stamp
}

// inProgress reports an assistant message OpenCode is still writing.
func inProgress(m messageRecord) bool {
	if m.err != nil || m.data.str("role") != "assistant" {
		return false
	}
	_, failed := m.data.fields()["error"]
	return m.data.obj("time").num("completed") == 0 && !failed
}

// emitSession emits a session, its messages in the order given (OpenCode's) and their parts.
// held reports messages left for a later sync because the turn is still being written.
func emitSession(ctx context.Context, s sessionRecord, msgs []messageRecord, extra []extraRecord, out adapters.Emitter) (held bool, err error) {
	if now().Sub(time.UnixMilli(s.updated)) < inProgressGrace {
		for i, m := range msgs {
			if inProgress(m) {
				msgs, held = msgs[:i], true
				break
			}
		}
	}
	created, known := s.created, s.hasCreated
	if created == 0 && !known {
		for _, m := range msgs {
			if m.err == nil && m.created != 0 {
				created = m.created
				break
			}
		}
	}
	if created == 0 && !known {
		created = s.updated
	}
	known = known || created != 0
	project := firstNonEmpty(s.directory, s.worktree, s.projectID)
	switch {
	case s.id == "":
		out.Malformed(s.loc, errors.New("session without an id"))
		return held, nil
	case !known:
		out.Malformed(s.loc, errors.New("session without a creation time"))
		return held, nil
	case project == "":
		out.Malformed(s.loc, errors.New("session without a directory or project"))
		return held, nil
	}
	sess := &session.Session{
		ID:          s.id,
		SourceAgent: Name,
		Project:     project,
		CreatedAt:   time.UnixMilli(created),
		Options:     session.Options{"source": s.source},
	}
	if s.parentID != "" && s.parentID != s.id {
		sess.ParentSessionID = s.parentID
		sess.SourceAgent = SubagentKind
	}
	if len(msgs) > 0 && len(msgs[0].parts) > 0 {
		// A session Pond restored from another agent says so in its first text's metadata.
		adapters.ApplyRestoreMark(sess, msgs[0].parts[0].data.obj("metadata").fields()[adapters.RestoreMarkKey])
	}
	e := &emitter{out: out, sid: s.id, last: sess.CreatedAt, reported: map[string]bool{}}
	if err := e.event(session.Event{Session: sess}); err != nil {
		return held, err
	}
	for _, m := range msgs {
		if err := ctx.Err(); err != nil {
			return held, err
		}
		if err := e.message(m); err != nil {
			return held, err
		}
	}
	for _, x := range extra {
		if err := x.problem(); err != nil {
			out.Malformed(x.loc, err)
			continue
		}
		e.unknown(x.loc, x.what)
		if err := e.system(x.record); err != nil {
			return held, err
		}
	}
	return held, nil
}

func (e *emitter) event(ev session.Event) error {
	if err := e.out.Event(ev); err != nil {
		return fmt.Errorf("opencode: emit %s: %w", ev.Key(), err)
	}
	return nil
}

// unknown reports format drift once per read.
func (e *emitter) unknown(at adapters.Location, what string) {
	if !e.reported[what] {
		e.reported[what] = true
		e.out.Unknown(at, what)
	}
}

// stamp is the record's time, else the previous record's.
func (e *emitter) stamp(ms int64) time.Time {
	if ms != 0 {
		e.last = time.UnixMilli(ms)
	}
	return e.last
}

// problem is why a record cannot be mapped, nil when it can.
func (r record) problem() error {
	switch {
	case r.err != nil:
		return r.err
	case r.id == "":
		return errors.New("record without an id")
	}
	return nil
}

func (e *emitter) message(m messageRecord) error {
	if err := m.problem(); err != nil {
		if n := len(m.parts); n > 0 {
			err = fmt.Errorf("%w (its %d parts skipped)", err, n)
		}
		e.out.Malformed(m.loc, err)
		return nil
	}
	for _, k := range slices.Sorted(maps.Keys(m.data.fields())) {
		if !slices.Contains(messageKeys, k) {
			e.unknown(m.loc, fmt.Sprintf("message key %q", k))
		}
	}
	msg := &session.Message{
		SessionID: e.sid,
		ID:        m.id,
		Timestamp: e.stamp(firstNonZero(m.created, m.data.obj("time").num("created"))),
		Options:   session.Options{"source": m.source},
	}
	switch role := m.data.str("role"); role {
	case "user":
		msg.Role = session.RoleUser
	case "assistant":
		msg.Role = session.RoleAssistant
	default:
		msg.Role = session.RoleSystem
		e.unknown(m.loc, fmt.Sprintf("message role %q", role))
	}
	if err := e.event(session.Event{Message: msg}); err != nil {
		return err
	}
	// A compaction summary is what the harness asked the model for, not the conversation.
	summary := msg.Role == session.RoleAssistant && m.data.bool("summary")
	ordinal := 0
	for _, p := range m.parts {
		if err := p.problem(); err != nil {
			e.out.Malformed(p.loc, err)
			continue
		}
		typ := p.data.str("type")
		if msg.Role == session.RoleSystem {
			typ = "" // parts of a message that is not conversation are kept raw too
		} else {
			e.checkKeys(p, typ)
		}
		var parts []session.Part
		switch typ {
		case "text":
			prov := session.Conversational
			if p.data.bool("synthetic") || summary {
				prov = session.Injected
			}
			parts = []session.Part{{ID: p.id, Type: session.PartText, Provenance: prov, Text: p.data.str("text")}}
		case "reasoning":
			parts = []session.Part{{ID: p.id, Type: session.PartReasoning, Provenance: session.Conversational, Text: p.data.str("text")}}
		case "file":
			f, err := filePart(p)
			if err != nil {
				e.out.Malformed(p.loc, err)
				continue
			}
			parts = []session.Part{f}
		case "tool":
			parts = e.toolParts(p)
		default:
			if !slices.Contains(rawPartTypes, typ) && msg.Role != session.RoleSystem {
				e.unknown(p.loc, fmt.Sprintf("part type %q", typ))
			}
			if err := e.system(p); err != nil {
				return err
			}
			continue
		}
		for i := range parts {
			pt := &parts[i]
			pt.SessionID, pt.MessageID = e.sid, m.id
			pt.Ordinal = ordinal + i
			if i == 0 {
				pt.Options = partOptions(p)
			}
			if err := e.event(session.Event{Part: pt}); err != nil {
				return err
			}
		}
		ordinal += len(parts)
		if typ == "tool" && len(parts) == 1 {
			ordinal++ // the result's place, so that later parts keep their ordinals once it comes
		}
	}
	return nil
}

// system emits a record that carries no conversation as a system message holding it raw.
func (e *emitter) system(r record) error {
	ms := r.created
	if ms == 0 && r.data.Node != nil {
		t := r.data.obj("time")
		ms = firstNonZero(t.num("start"), t.num("created"), r.data.obj("state").obj("time").num("start"))
	}
	return e.event(session.Event{Message: &session.Message{
		SessionID: e.sid,
		ID:        r.id,
		Role:      session.RoleSystem,
		Timestamp: e.stamp(ms),
		Options:   session.Options{"source": r.source},
	}})
}

// checkKeys reports keys a part of this type is not known to have.
func (e *emitter) checkKeys(p record, typ string) {
	known, ok := partKeys[typ]
	if !ok {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(p.data.fields())) {
		if !slices.Contains(commonPartKeys, k) && !slices.Contains(known, k) {
			e.unknown(p.loc, fmt.Sprintf("%s part key %q", typ, k))
		}
	}
}

// toolParts are a tool part's call and, once it finished, its result.
func (e *emitter) toolParts(p record) []session.Part {
	state := p.data.obj("state")
	name := p.data.str("tool")
	call := session.Part{
		ID:         p.id + ":0",
		Type:       session.PartToolCall,
		Provenance: session.Conversational,
		CallID:     p.data.str("callID"),
		Name:       name,
		Params:     jsonValue(state.fields()["input"]),
		// AI SDK providers that run a tool themselves mark the call.
		ProviderExecuted: p.data.obj("metadata").bool("providerExecuted"),
	}
	result := session.Part{
		ID:         p.id + ":1",
		Type:       session.PartToolResult,
		Provenance: session.Conversational,
		CallID:     call.CallID,
		Name:       name,
	}
	switch status := state.str("status"); status {
	case "pending", "running":
		return []session.Part{call}
	case "completed":
		result.Result = jsonValue(state.fields()["output"])
	case "error":
		result.Result, result.IsFailure = jsonValue(state.fields()["error"]), true
	default:
		e.unknown(p.loc, fmt.Sprintf("tool status %q", status))
		switch {
		case state.fields()["error"] != nil:
			result.Result, result.IsFailure = jsonValue(state.fields()["error"]), true
		case state.fields()["output"] != nil:
			result.Result = jsonValue(state.fields()["output"])
		default:
			return []session.Part{call}
		}
	}
	return []session.Part{call, result}
}

// filePart maps a file part; its url is a data: URL (inline content) or a link.
func filePart(p record) (session.Part, error) {
	u := p.data.str("url")
	if u == "" {
		return session.Part{}, errors.New("file part without a url")
	}
	part := session.Part{
		ID:         p.id,
		Type:       session.PartFile,
		Provenance: session.Conversational,
		MediaType:  p.data.str("mime"),
		FileName:   p.data.str("filename"),
		Data:       &session.FileData{Kind: session.FileURL, Value: u},
	}
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return part, nil
	}
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return part, nil
	}
	if part.MediaType == "" {
		part.MediaType, _, _ = strings.Cut(meta, ";")
	}
	if strings.HasSuffix(meta, ";base64") {
		b, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			if b, err = base64.RawStdEncoding.DecodeString(payload); err != nil {
				return part, nil // kept as the URL it is
			}
		}
		part.Data = &session.FileData{Kind: session.FileBytes, Bytes: b}
		return part, nil
	}
	if s, err := url.PathUnescape(payload); err == nil {
		part.Data = &session.FileData{Kind: session.FileString, Value: s}
	}
	return part, nil
}

// partOptions are the raw record and the provider metadata (OpenCode's `metadata`, keyed by
// provider like the AI SDK's providerMetadata) of a part.
func partOptions(p record) session.Options {
	o := session.Options{"source": p.source}
	for k, v := range p.data.obj("metadata").fields() {
		if k == "source" || k == "pond" || len(v) == 0 || v[0] != '{' {
			continue
		}
		o[k] = v
	}
	return o
}

// Keys OpenCode's message and part schemas define (message-v2.ts); others are reported.
var (
	messageKeys = []string{"id", "sessionID", "role", "time", "format", "summary", "agent", "model",
		"fallbackModels", "system", "tools", "parentID", "modelID", "providerID", "mode", "path",
		"cost", "tokens", "structured", "variant", "finish", "error"}
	commonPartKeys = []string{"id", "sessionID", "messageID", "type", "time", "metadata"}
	partKeys       = map[string][]string{
		"text":        {"text", "synthetic", "ignored"},
		"reasoning":   {"text"},
		"file":        {"mime", "filename", "url", "source"},
		"tool":        {"callID", "tool", "state"},
		"step-start":  {"snapshot"},
		"step-finish": {"reason", "snapshot", "cost", "tokens"},
		"snapshot":    {"snapshot"},
		"patch":       {"hash", "files"},
		"agent":       {"name", "source"},
		"subtask":     {"prompt", "description", "agent", "model", "command"},
		"retry":       {"attempt", "error"},
		"compaction":  {"auto", "overflow", "tail_start_id"},
	}
	// rawPartTypes carry no conversation; each becomes a system message holding the raw record.
	rawPartTypes = []string{"step-start", "step-finish", "snapshot", "patch", "agent", "subtask", "retry", "compaction"}
)

// doc is a session's, message's or part's JSON, read in one pass (adapters.Node) with the
// objects the mapping reads (dataShape) and its text. Its accessors read leniently: a value of
// an unexpected type reads as absent.
type doc struct{ *adapters.Node }

var dataShape = &adapters.Shape{Members: map[string]*adapters.Shape{
	"text": {Text: true}, "time": {}, "metadata": {}, "state": {Members: map[string]*adapters.Shape{"time": {}}},
}}

// readDoc reads a JSON object; an error says why it is not one.
func readDoc(b []byte) (doc, error) {
	n, err := adapters.ReadObject(b, dataShape)
	if err != nil {
		return doc{}, err
	}
	return doc{n}, nil
}

// notObject words why a file is not a JSON object.
func notObject(err error) error {
	if errors.Is(err, adapters.ErrNotObject) {
		return err
	}
	return fmt.Errorf("not a JSON object: %w", err)
}

func (d doc) fields() adapters.Members { return d.Object() }

func (d doc) str(k string) string { return d.Str(k) }

func (d doc) bool(k string) bool {
	v, _ := d.Object().Bool(k)
	return v
}

func (d doc) num(k string) int64 {
	n, _ := d.Object().Int(k)
	return n
}

// has reports whether member k is a number.
func (d doc) has(k string) bool {
	_, ok := d.Object().Int(k)
	return ok
}

// obj is the member k, one of those dataShape reads along.
func (d doc) obj(k string) doc { return doc{d.Kid(k)} }

// jsonValue is v compacted (legacy files are indented), nil when absent or null.
func jsonValue(v json.RawMessage) json.RawMessage {
	if len(v) > 0 && v[0] == '"' {
		return v // a string has nothing to compact
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil || b.Len() == 0 || b.String() == "null" {
		return nil
	}
	return b.Bytes()
}

// sourceJSON is an options.source value: where the record came from and the record itself (a
// file as read, or a row as row.json wrote it).
func sourceJSON[R json.RawMessage | ownJSON](where, name string, rec R, extra ...any) json.RawMessage {
	var b bytes.Buffer
	b.Grow(len(rec) + len(where) + len(name) + 32)
	b.WriteByte('{')
	writeMember(&b, where, name)
	for i := 0; i+1 < len(extra); i += 2 {
		b.WriteByte(',')
		writeMember(&b, extra[i].(string), extra[i+1])
	}
	b.WriteByte(',')
	writeMember(&b, "record", rec)
	b.WriteByte('}')
	return b.Bytes()
}

// ownJSON is JSON this adapter wrote (a row as an object): valid and compact already.
type ownJSON []byte

// writeMember writes "key":value, keeping <, > and & as they are.
func writeMember(b *bytes.Buffer, key string, v any) {
	writeJSON(b, key)
	b.WriteByte(':')
	writeJSON(b, v)
}

func writeJSON(b *bytes.Buffer, v any) {
	if own, ok := v.(ownJSON); ok {
		b.Write(own)
		return
	}
	if raw, ok := v.(json.RawMessage); ok {
		if len(raw) == 0 {
			b.WriteString("null")
			return
		}
		if !json.Valid(raw) {
			writeJSON(b, string(raw))
			return
		}
		_ = json.Compact(b, raw) // valid, so it cannot fail
		return
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		b.WriteString("null")
		return
	}
	b.Truncate(b.Len() - 1) // Encode's newline
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

func firstNonZero(n ...int64) int64 {
	for _, x := range n {
		if x != 0 {
			return x
		}
	}
	return 0
}
