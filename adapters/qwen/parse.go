package qwen

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/jsonl"
	"github.com/pondhq/pond/session"
)

// The shapes of what the mapping reads of a record: its message's parts, with the members of
// a part that hold text or a call.
var (
	partShape = &adapters.Shape{Members: map[string]*adapters.Shape{
		"text": {Text: true}, "functionCall": {}, "inlineData": {}, "fileData": {},
		"functionResponse": {Members: map[string]*adapters.Shape{"response": {}}},
	}}
	recordShape = &adapters.Shape{Members: map[string]*adapters.Shape{
		"message":        {Members: map[string]*adapters.Shape{"parts": partShape}},
		"systemPayload":  {},
		"toolCallResult": {},
	}}
)

// recordKeys are the ChatRecord keys of the 0.24 bundle (chatRecordingService, the sub-agent
// transcript writer). Others are reported through Emitter.Unknown and kept all the same.
var recordKeys = keySet("uuid", "parentUuid", "sessionId", "timestamp", "type", "subtype", "provenance",
	"cwd", "version", "gitBranch", "message", "model", "usageMetadata", "contextWindowSize", "toolCallResult",
	"systemPayload", "goalContext", "backgroundTurn", "daemonPromptId", "agentId", "agentName", "agentColor",
	"isSidechain", "agentRunId", "agentRound", "externalInputKind", adapters.RestoreMarkKey)

// subtypes are the record subtypes Qwen knows (KNOWN_RECORD_SUBTYPES in the 0.24 bundle).
var subtypes = keySet("chat_compression", "slash_command", "ui_telemetry", "at_command", "attribution_snapshot",
	"notification", "background_task_completed", "cron", "mid_turn_user_message", "realtime_message",
	"custom_title", "parent_session", "rewind", "agent_bootstrap", "agent_launch_prompt", "agent_retry",
	"agent_session_ready", "file_history_snapshot", "session_source", "session_model", "omni_recall",
	"session_sources_snapshot", "branch_checkpoint", "goal_state", "goal_runtime", "goal_turn_end", "turn_result",
	"session_artifact_event", "session_artifact_snapshot", "managed_session_header_v1",
	"managed_session_event_v1", "managed_session_commit_v1")

// injectedSubtypes are user records the harness wrote, not the user: notices of background
// work, cron prompts, Goal runtime turns.
var injectedSubtypes = keySet("notification", "cron", "goal_runtime", "background_task_completed")

// partKeys are the Gemini Part keys the mapping knows.
var partKeys = keySet("text", "thought", "thoughtSignature", "functionCall", "functionResponse", "inlineData", "fileData")

// unknownKeys are the keys of m that known lacks, sorted; nil (and nothing sorted or
// allocated) in the usual case of none.
func unknownKeys(m adapters.Members, known map[string]bool) []string {
	var out []string
	for k := range m {
		if !known[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func keySet(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// holdBack bounds the records held back before the session is emitted, waiting for the
// first conversation record (a parent_session record comes before it).
const holdBack = 32

// Read implements adapters.Adapter. A fresh read holds the first records back until it meets
// a conversation record (or holdBack records, or the end of what is written), so that a
// parent_session record near the start names the session's parent; then it emits the session
// and goes on.
func (Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	p := &parser{src: src, out: out, lay: classify(src.Key)}
	st, ok := decodeState(cur.State)
	if !ok || st.Session.ID != p.lay.sessionID() {
		cur = adapters.Cursor{} // a state that does not fit this file: start over
	}
	jf, err := jsonl.Open(src.Path, cur, env.Limits)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("qwen-code: read %s: %w", src.Key, err)
	}
	defer jf.Close()
	if jf.Resumed() {
		p.sess, p.last, p.seen = st.Session, st.Last, st.Seen
	}
	next, err := jf.Lines(ctx, p.line, out.Malformed)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("qwen-code: read %s: %w", src.Key, err)
	}
	if p.sess == nil {
		if len(p.pending) == 0 {
			return adapters.Cursor{Stamp: src.Stamp}, nil // nothing written yet
		}
		if err := p.start(); err != nil {
			return adapters.Cursor{}, fmt.Errorf("qwen-code: read %s: %w", src.Key, err)
		}
	}
	next.Stamp = src.Stamp
	next.State, err = json.Marshal(cursorState{V: stateVersion, Session: p.sess, Last: p.last, Seen: p.seen})
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("qwen-code: read %s: %w", src.Key, err)
	}
	return next, nil
}

// parser turns one source's lines into events.
type parser struct {
	src adapters.Source
	out adapters.Emitter
	lay layout

	sess        *session.Session // nil until known
	sessEmitted bool             // in this read
	pending     []chatRecord     // held back until the session is known

	last time.Time // the previous record's time
	seen adapters.SeenIDs
}

// chatRecord is one record of a source: a line, or one of several JSON objects written on one line.
type chatRecord struct {
	n   *adapters.Node
	raw []byte // the bytes of the record, kept under options.source.record
	no  int
	// piece numbers the objects of a line that holds several, from 1; 0 for a line of one.
	piece int
}

func (p *parser) at(no int) adapters.Location { return adapters.Location{Path: p.src.Path, Line: no} }

func (p *parser) unknown(no int, what string) { p.out.Unknown(p.at(no), what) }

func (p *parser) line(raw []byte, no int) error {
	n, err := adapters.ReadObject(raw, recordShape)
	if err == nil {
		return p.take(chatRecord{n: n, raw: raw, no: no})
	}
	pieces := glued(raw)
	if pieces == nil {
		p.out.Malformed(p.at(no), fmt.Errorf("malformed record: %w", err))
		return nil
	}
	// Objects glued on one line (an append that lost its line break): Qwen's reader recovers
	// each (_recoverObjectsFromLine), and so does Pond. Each is kept with its piece number, so
	// that a native restore glues them again (restore.ReplayLines).
	for i, piece := range pieces {
		if err := p.take(chatRecord{n: piece, raw: piece.Raw, no: no, piece: i + 1}); err != nil {
			return err
		}
	}
	return nil
}

// glued splits a line into the JSON objects written one after another on it; nil when it is
// not two or more objects and nothing else.
func glued(raw []byte) []*adapters.Node {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var out []*adapters.Node
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			return nil
		}
		n, err := adapters.ReadObject(v, recordShape)
		if err != nil {
			return nil
		}
		out = append(out, n)
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// take maps a record, or holds it back while the session is not known yet.
func (p *parser) take(l chatRecord) error {
	if p.sess != nil {
		return p.record(l)
	}
	p.pending = append(p.pending, l)
	switch l.n.Object().Str("type") {
	case "user", "assistant", "tool_result":
		return p.start()
	}
	if len(p.pending) >= holdBack {
		return p.start()
	}
	return nil
}

// start settles the session from the records held back, emits it, then those records.
func (p *parser) start() error {
	first := p.pending[0].n.Object()
	s := &session.Session{ID: p.lay.sessionID(), SourceAgent: Name}
	src := []adapters.Field{
		{Key: "path", Value: adapters.OptString(p.src.Key)},
		{Key: "kind", Value: adapters.OptString(p.lay.kind.String())},
		{Key: "version", Value: adapters.OptString(first.Str("version"))},
	}
	for _, l := range p.pending {
		r := l.n.Object()
		if s.Project == "" && strings.TrimSpace(r.Str("cwd")) != "" {
			s.Project = r.Str("cwd")
		}
		if s.CreatedAt.IsZero() {
			s.CreatedAt = r.Time("timestamp")
		}
	}
	if line := first.Str("sessionId"); line != "" && line != s.ID && p.lay.kind != kindSubagent {
		src = append(src, adapters.Field{Key: "line_session_id", Value: adapters.OptString(line)})
	}
	if p.lay.kind == kindSubagent {
		// Every sub-agent is a child of the session whose folder holds it, a sub-agent launched
		// by another too (its sidecar's parentAgentId, kept in meta, says which): Qwen keeps
		// them all there, and a restore takes a session with its direct children.
		s.SourceAgent, s.ParentSessionID = SubagentAgent, p.lay.parent
		src = append(src, adapters.Field{Key: "agent_id", Value: adapters.OptString(p.lay.agentID)}, adapters.Field{Key: "meta", Value: p.meta()})
	}
	var sourced bool
	for _, l := range p.pending {
		r := l.n.Object()
		if r.Str("type") != "system" {
			continue
		}
		payload := l.n.Kid("systemPayload").Object()
		switch r.Str("subtype") {
		case "parent_session":
			if parent := payload.Str("parentSessionId"); parent != "" && parent != s.ID && s.ParentSessionID == "" {
				s.ParentSessionID = parent
				src = append(src, adapters.Field{Key: "parent_from", Value: adapters.OptString("parent_session")})
			}
		case "session_source":
			// What created the session (a cron job, a daemon, …): marked, never filtered.
			if !sourced {
				sourced = true
				src = append(src, adapters.Field{Key: "session_source", Value: adapters.Value(r["systemPayload"])})
			}
		}
	}
	if s.Project == "" {
		// No record says where the session ran: the sanitized folder name is the project key.
		s.Project = p.lay.projectDir
		if s.Project == "" || s.Project == "." {
			s.Project = "unknown"
		}
	}
	if s.CreatedAt.IsZero() {
		// No record says when: the epoch, not the file's time, which a restore changes.
		s.CreatedAt = time.Unix(0, 0).UTC()
	}
	s.Options = session.Options{"source": adapters.Object(src...)}
	adapters.ApplyRestoreMark(s, first[adapters.RestoreMarkKey])
	p.sess, p.last = s, s.CreatedAt
	pending := p.pending
	p.pending = nil
	if err := p.ensureSession(); err != nil {
		return err
	}
	for _, l := range pending {
		if err := p.record(l); err != nil {
			return err
		}
	}
	return nil
}

// meta is the sub-agent's agent-<id>.meta.json: as written when it is JSON, else as a string.
func (p *parser) meta() json.RawMessage {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(p.src.Path), "agent-"+p.lay.agentID+".meta.json"))
	if err != nil {
		return nil
	}
	if b = bytes.TrimSpace(b); json.Valid(b) {
		return b
	}
	return adapters.OptString(string(b))
}

// ensureSession emits the session once per read, before anything else.
func (p *parser) ensureSession() error {
	if p.sessEmitted {
		return nil
	}
	p.sessEmitted = true
	s := *p.sess
	s.Options = s.Options.Clone()
	return p.out.Event(session.Event{Session: &s})
}

func (p *parser) emit(e session.Event) error {
	if err := p.ensureSession(); err != nil {
		return err
	}
	return p.out.Event(e)
}

// record maps one record once the session is known.
func (p *parser) record(l chatRecord) error {
	n, no := l.n, l.no
	r := n.Object()
	for _, k := range unknownKeys(r, recordKeys) {
		p.unknown(no, fmt.Sprintf("record key %q", k))
	}
	typ, subtype := r.Str("type"), r.Str("subtype")
	if subtype != "" && !subtypes[subtype] {
		p.unknown(no, fmt.Sprintf("record subtype %q", subtype))
	}
	t := r.Time("timestamp")
	if t.IsZero() {
		t = p.last
	} else {
		p.last = t
	}
	id := r.Str("uuid")
	if id == "" {
		id = adapters.RecordID(l.raw)
	}
	id = p.seen.Next(id)
	m := &session.Message{SessionID: p.sess.ID, ID: id, Role: session.RoleSystem, Timestamp: t}
	fields := []adapters.Field{{Key: "line", Value: json.RawMessage(strconv.Itoa(no))}}
	if l.piece > 0 {
		fields = append(fields, adapters.Field{Key: "piece", Value: json.RawMessage(strconv.Itoa(l.piece))})
	}
	fields = append(fields, adapters.Field{Key: "record", Value: l.raw})
	prov := session.Conversational
	switch typ {
	case "user":
		m.Role = session.RoleUser
		if injectedSubtypes[subtype] || (r.IsStr("provenance") && r.Str("provenance") != "real_user") {
			prov = session.Injected
		}
	case "assistant":
		m.Role = session.RoleAssistant
		if model := r.Str("model"); model != "" {
			m.Options = session.Options{"model": adapters.Object(adapters.Field{Key: "model", Value: adapters.String(model)})}
		}
	case "tool_result":
		m.Role = session.RoleTool
	case "system":
	default:
		p.unknown(no, fmt.Sprintf("record type %q", typ))
	}
	if m.Options == nil {
		m.Options = session.Options{}
	}
	m.Options["source"] = adapters.Object(fields...)
	if err := p.emit(session.Event{Message: m}); err != nil {
		return err
	}
	if m.Role == session.RoleSystem {
		return nil // its payload stays in the record
	}
	status := n.Kid("toolCallResult").Object().Str("status")
	msg := n.Kid("message")
	if msg != nil && msg.Kind() != '{' {
		p.unknown(no, "message that is not an object")
	}
	ord := 0
	for _, el := range msg.Kid("parts").List() {
		pt, ok := p.part(el, no, status)
		if !ok {
			continue
		}
		pt.SessionID, pt.MessageID, pt.ID, pt.Ordinal = p.sess.ID, id, fmt.Sprintf("%s:%d", id, ord), ord
		if pt.Provenance == "" {
			pt.Provenance = prov
		}
		ord++
		if err := p.emit(session.Event{Part: &pt}); err != nil {
			return err
		}
	}
	return nil
}

// harnessPrefixes open text Qwen itself puts in a user turn: hook context, reminders.
var harnessPrefixes = []string{"<qwen:user-prompt-submit-context>", "<system-reminder>"}

func harnessText(s string) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	for _, h := range harnessPrefixes {
		if strings.HasPrefix(s, h) {
			return true
		}
	}
	return false
}

// part maps one Gemini Part; ok is false for one that holds nothing the model keeps (an empty
// text, a part of an unknown kind). status is the record's toolCallResult.status.
func (p *parser) part(n *adapters.Node, no int, status string) (session.Part, bool) {
	m := n.Object()
	if m == nil {
		p.unknown(no, "part that is not an object")
		return session.Part{}, false
	}
	for _, k := range unknownKeys(m, partKeys) {
		p.unknown(no, fmt.Sprintf("part key %q", k))
	}
	switch {
	case m.IsStr("text"):
		text := n.Str("text")
		if text == "" {
			return session.Part{}, false
		}
		if string(m["thought"]) == "true" {
			return session.Part{Type: session.PartReasoning, Text: text}, true
		}
		pt := session.Part{Type: session.PartText, Text: text}
		if harnessText(text) {
			pt.Provenance = session.Injected
		}
		return pt, true
	case m.Has("functionCall"):
		c := n.Kid("functionCall").Object()
		return session.Part{Type: session.PartToolCall, CallID: c.Str("id"), Name: c.Str("name"), Params: adapters.Value(c["args"])}, true
	case m.Has("functionResponse"):
		fr := n.Kid("functionResponse")
		r, resp := fr.Object(), fr.Kid("response").Object()
		failed := resp.Has("error") || status == "error" || status == "cancelled"
		return session.Part{Type: session.PartToolResult, CallID: r.Str("id"), Name: r.Str("name"), IsFailure: failed,
			Result: resultOf(r["response"], resp)}, true
	case m.Has("inlineData"):
		d := n.Kid("inlineData").Object()
		data := d.Str("data")
		fd := &session.FileData{Kind: session.FileBytes}
		if b, err := base64.StdEncoding.DecodeString(data); err == nil {
			fd.Bytes = b
		} else {
			fd.Kind, fd.Value = session.FileString, data
		}
		return session.Part{Type: session.PartFile, MediaType: d.Str("mimeType"), FileName: d.Str("displayName"), Data: fd}, true
	case m.Has("fileData"):
		d := n.Kid("fileData").Object()
		return session.Part{Type: session.PartFile, MediaType: d.Str("mimeType"), FileName: d.Str("displayName"),
			Data: &session.FileData{Kind: session.FileURL, Value: d.Str("fileUri")}}, true
	}
	if !m.Has("text") {
		p.unknown(no, "part without text, call, response or data")
	}
	return session.Part{}, false
}

// resultOf is a functionResponse's response as a tool result: its output (or error) text when
// that is all it says, else the response as written.
func resultOf(raw json.RawMessage, resp adapters.Members) json.RawMessage {
	if len(resp) == 1 {
		for _, k := range []string{"output", "error"} {
			if resp.IsStr(k) {
				return resp[k]
			}
		}
	}
	return adapters.Value(raw)
}
