package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/jsonl"
	"github.com/pondhq/pond/session"
)

// Read implements adapters.Adapter.
//
// A fresh read holds records back until it has seen the session's working directory and start
// time (the first lines are often cwd-less metadata), then emits the session and goes on. A file
// that so far has neither a cwd nor a single user or assistant line is a session still being
// created: nothing is emitted and the whole file is read again once it changes, so that its
// project is never guessed from the folder name while the cwd is a moment away.
func (Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	p := &parser{src: src, out: out, lay: classify(src.Key)}
	st, ok := decodeState(cur.State)
	if !ok || !p.fits(st.Session.ID) {
		cur = adapters.Cursor{} // a state that does not fit this file: start over
	}
	jf, err := jsonl.Open(src.Path, cur, env.Limits)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("claude-code: read %s: %w", src.Key, err)
	}
	defer jf.Close()
	if jf.Resumed() {
		p.sess, p.last, p.open, p.tools, p.seen = st.Session, st.Last, st.Open, st.Tools, st.Seen
	}
	jf.Checkpoints(out, func() (json.RawMessage, bool) {
		if p.sess == nil {
			return nil, false // lines held back until the session is known
		}
		st, err := p.state()
		return st, err == nil
	})
	next, err := jf.Lines(ctx, p.line, out.Malformed)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("claude-code: read %s: %w", src.Key, err)
	}
	if p.sess == nil {
		if len(p.pending) == 0 || (p.cwd == "" && !p.conversation) {
			return adapters.Cursor{Stamp: src.Stamp}, nil
		}
		if err := p.start(); err != nil {
			return adapters.Cursor{}, fmt.Errorf("claude-code: read %s: %w", src.Key, err)
		}
	}
	next.Stamp = src.Stamp
	if next.State, err = p.state(); err != nil {
		return adapters.Cursor{}, fmt.Errorf("claude-code: read %s: %w", src.Key, err)
	}
	return next, nil
}

// state is the parse state a read resumed from here needs.
func (p *parser) state() (json.RawMessage, error) {
	return json.Marshal(cursorState{
		V:       stateVersion,
		Session: p.sess,
		Last:    p.last,
		Open:    p.open,
		Tools:   p.tools,
		Seen:    p.seen,
	})
}

// parser turns one source's lines into events.
type parser struct {
	src adapters.Source
	out adapters.Emitter
	lay layout

	sess        *session.Session // nil until known
	sessEmitted bool             // in this read

	// Before the session is known: the lines held back and what they told.
	pending      []pendingLine
	cwd, version string
	lineSession  string          // the first sessionId of the lines
	forkedFrom   string          // the first forkedFrom.sessionId
	restoreMark  json.RawMessage // the first line's Pond restore mark
	first        time.Time       // the first record time
	conversation bool            // a user or assistant line was seen

	last        time.Time // the previous record's time
	open        *openMessage
	openEmitted bool // in this read
	tools       toolNames
	seen        adapters.SeenIDs
}

type pendingLine struct {
	rec *record
	no  int
}

// fits reports whether id can be this source's session id.
func (p *parser) fits(id string) bool {
	switch p.lay.kind {
	case kindSubagent:
		return id == p.lay.parent+"/agent-"+p.lay.agentID
	case kindLegacyAgent:
		return id == p.lay.stem || strings.HasSuffix(id, "/agent-"+p.lay.agentID)
	}
	return id == p.lay.stem
}

func (p *parser) at(no int) adapters.Location { return adapters.Location{Path: p.src.Path, Line: no} }

func (p *parser) line(raw []byte, no int) error {
	rec, err := parseRecord(raw)
	if err != nil {
		p.out.Malformed(p.at(no), err)
		return nil
	}
	if p.sess != nil {
		return p.record(rec, no)
	}
	p.pending = append(p.pending, pendingLine{rec, no})
	if p.cwd == "" {
		p.cwd = rec.cwd
	}
	if p.version == "" {
		p.version = rec.version
	}
	if p.lineSession == "" {
		p.lineSession = rec.sessionID
	}
	if p.forkedFrom == "" {
		p.forkedFrom = rec.forkedFrom
	}
	if len(p.pending) == 1 {
		p.restoreMark = rec.restoreMark
	}
	if p.first.IsZero() {
		p.first = rec.at
	}
	p.conversation = p.conversation || rec.typ == "user" || rec.typ == "assistant"
	if p.cwd == "" || p.first.IsZero() || (p.lay.kind == kindLegacyAgent && p.lineSession == "") {
		return nil
	}
	return p.start()
}

// start settles the session from what the lines held back told, emits it, then those lines.
func (p *parser) start() error {
	s := &session.Session{ID: p.lay.stem, SourceAgent: Name, Project: p.cwd, CreatedAt: p.first}
	src := []adapters.Field{
		{Key: "path", Value: adapters.OptString(p.src.Key)},
		{Key: "kind", Value: adapters.OptString(p.lay.kind.String())},
		{Key: "version", Value: adapters.OptString(p.version)},
	}
	switch p.lay.kind {
	case kindSubagent:
		s.ID, s.ParentSessionID, s.SourceAgent = p.lay.parent+"/agent-"+p.lay.agentID, p.lay.parent, SubagentAgent
	case kindLegacyAgent:
		s.SourceAgent = SubagentAgent
		if p.lineSession != "" {
			s.ID, s.ParentSessionID = p.lineSession+"/agent-"+p.lay.agentID, p.lineSession
		}
	default:
		switch {
		case p.forkedFrom != "" && p.forkedFrom != s.ID:
			s.ParentSessionID = p.forkedFrom
			src = append(src, adapters.Field{Key: "parent_from", Value: adapters.OptString("forkedFrom")})
		case isUUID(p.lineSession) && p.lineSession != s.ID:
			// A continuation: the copied history keeps the session id it was written under.
			s.ParentSessionID = p.lineSession
			src = append(src, adapters.Field{Key: "parent_from", Value: adapters.OptString("sessionId")})
		}
	}
	if p.lay.kind != kindSession {
		src = append(src, adapters.Field{Key: "agent_id", Value: adapters.OptString(p.lay.agentID)}, adapters.Field{Key: "workflow", Value: adapters.OptString(p.lay.workflow)})
	}
	if p.lineSession != "" && p.lineSession != s.ID {
		src = append(src, adapters.Field{Key: "line_session_id", Value: adapters.OptString(p.lineSession)})
	}
	if p.lay.kind == kindSubagent {
		src = append(src, adapters.Field{Key: "meta", Value: p.meta()})
	}
	if s.Project == "" {
		// No line says where the session ran: the encoded folder name is the project key.
		s.Project = p.lay.projectDir
		if s.Project == "" || s.Project == "." {
			s.Project = "unknown"
		}
	}
	if s.CreatedAt.IsZero() {
		s.CreatedAt = p.src.ModTime
		if s.CreatedAt.IsZero() {
			s.CreatedAt = time.Unix(0, 0).UTC()
		}
	}
	s.Options = session.Options{"source": adapters.Object(src...)}
	adapters.ApplyRestoreMark(s, p.restoreMark)
	p.sess, p.last = s, s.CreatedAt
	pending := p.pending
	p.pending = nil
	for _, l := range pending {
		if err := p.record(l.rec, l.no); err != nil {
			return err
		}
	}
	return p.ensureSession()
}

// meta is the sub-agent's agent-<id>.meta.json ({agentType, description, …}): as written when
// it is JSON, else as a string.
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

func (p *parser) emit(e session.Event) error {
	if err := p.ensureSession(); err != nil {
		return err
	}
	return p.out.Event(e)
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

// record maps one line once the session is known. Lines other than user and assistant become
// part-less system messages; a system line's text is their content.
func (p *parser) record(r *record, no int) error {
	t := r.at
	if t.IsZero() {
		t = p.last
	} else {
		p.last = t
	}
	id := p.seen.Next(recordID(r.uuid, r.raw))
	switch r.typ {
	case "user":
		return p.user(r, id, t, no)
	case "assistant":
		return p.assistant(r, id, t, no)
	}
	m := &session.Message{SessionID: p.sess.ID, ID: id, Role: session.RoleSystem, Timestamp: t}
	var extra []adapters.Field
	if r.typ == "system" {
		m.Content = r.content
		extra = append(extra, adapters.Field{Key: "logical_parent_uuid", Value: adapters.OptString(r.logicalParent)})
	} else if !knownTypes[r.typ] {
		p.out.Unknown(p.at(no), fmt.Sprintf("record type %q", r.typ))
	}
	m.Options = session.Options{"source": sourceOptions(r, no, extra...)}
	return p.emit(session.Event{Message: m})
}

// sourceOptions is options.source of the object a line produced: the line verbatim and where
// it was.
func sourceOptions(r *record, no int, extra ...adapters.Field) json.RawMessage {
	ms := append([]adapters.Field{{Key: "line", Value: json.RawMessage(strconv.Itoa(no))}, {Key: "record", Value: r.raw}}, extra...)
	return adapters.Object(ms...)
}

// user maps a user line: the prompt, harness text (caveats, command echoes, reminders, the
// compaction summary) or the tool results of the previous response (then the role is tool).
func (p *parser) user(r *record, id string, t time.Time, no int) error {
	m := &session.Message{SessionID: p.sess.ID, ID: id, Role: session.RoleUser, Timestamp: t}
	var extra []adapters.Field
	if r.isCompactSummary {
		extra = append(extra, adapters.Field{Key: "compact_summary", Value: json.RawMessage("true")})
	}
	m.Options = session.Options{"source": sourceOptions(r, no, extra...)}
	parts := p.parts(r.body, id, r.isMeta || r.isCompactSummary, true, p.at(no))
	if len(parts) > 0 {
		m.Role = session.RoleTool
		for _, pt := range parts {
			if pt.Type != session.PartToolResult {
				m.Role = session.RoleUser
			}
		}
	}
	if err := p.emit(session.Event{Message: m}); err != nil {
		return err
	}
	return p.emitParts(m.ID, 0, parts)
}

// assistant maps an assistant line. Claude Code writes one line per content block of an API
// response, all with the response's message.id; tool results and progress lines may come between
// them when tools run while the response streams. The lines of one response make one message.
// A line with a stop_reason is the response's last (a server that reuses message ids, like a
// test double, still gets one message per response).
func (p *parser) assistant(r *record, id string, t time.Time, no int) error {
	msg := r.message
	msgID := adapters.Str(msg.ID)
	// Claude Code's own error notices are assistant lines it wrote itself.
	injected := r.isAPIError || adapters.Str(msg.Model) == "<synthetic>"
	parts := p.parts(r.body, id, injected, false, p.at(no))
	defer func() {
		if stop := string(msg.StopReason); stop != "" && stop != "null" {
			p.open = nil
		}
	}()

	if o := p.open; o.continues(msgID, r.requestID) && len(parts) > 0 {
		if !p.openEmitted {
			// A resumed read: the message comes again before the parts it gains.
			p.openEmitted = true
			m := &session.Message{SessionID: p.sess.ID, ID: o.ID, Role: session.RoleAssistant, Timestamp: o.At}
			if err := p.emit(session.Event{Message: m}); err != nil {
				return err
			}
		}
		parts[0].Options = parts[0].Options.Clone()
		if parts[0].Options == nil {
			parts[0].Options = session.Options{}
		}
		parts[0].Options["source"] = sourceOptions(r, no)
		next := o.Next
		o.Next += len(parts)
		return p.emitParts(o.ID, next, parts)
	}

	m := &session.Message{SessionID: p.sess.ID, ID: id, Role: session.RoleAssistant, Timestamp: t,
		Options: session.Options{"source": sourceOptions(r, no)}}
	if a := adapters.Object(adapters.Field{Key: "id", Value: msg.ID}, adapters.Field{Key: "model", Value: msg.Model}); len(a) > 2 {
		m.Options["anthropic"] = a
	}
	if err := p.emit(session.Event{Message: m}); err != nil {
		return err
	}
	switch {
	case p.open.continues(msgID, r.requestID):
		// A line of the response that added no part (only unknown blocks) stands alone; the
		// response's message stays open.
	case msgID != "":
		p.open, p.openEmitted = &openMessage{ID: id, MsgID: msgID, Req: r.requestID, At: t, Next: len(parts)}, true
	default:
		p.open = nil
	}
	return p.emitParts(id, 0, parts)
}

func (p *parser) emitParts(msgID string, ordinal int, parts []session.Part) error {
	for i := range parts {
		pt := parts[i]
		pt.SessionID, pt.MessageID, pt.Ordinal = p.sess.ID, msgID, ordinal+i
		if err := p.emit(session.Event{Part: &pt}); err != nil {
			return err
		}
	}
	return nil
}
