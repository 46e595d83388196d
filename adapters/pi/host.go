package pi

import (
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// Host describes an agent built on pi's session format that keeps pi v3 lines in a layout of
// its own (OpenClaw: files named after the session, and rows of its database), so that its
// adapter reads them with pi's mapping (ReadFile, Lines) instead of a copy of it.
type Host struct {
	// Session is what the source says of its session before its header is read, and what
	// the header's fields are laid over: id, source agent, project and start.
	Session session.Session
	// File names the source under the session's options.source.file; "" for none.
	File string
	// Amend, when set, adjusts the session once its header is read (with the header's
	// members as written): lineage or ids the host keeps outside the lines.
	Amend func(s *session.Session, header adapters.Members)
	// MessageKeys are the keys the host adds to pi's messages of every role, known rather
	// than reported as drift (the lines are kept verbatim either way).
	MessageKeys []string
}

// ReadFile is Read for a JSONL file of pi v3 lines that host keeps: incremental as pi's own,
// with the same cursor state.
func ReadFile(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter, host *Host) (adapters.Cursor, error) {
	return readLines(ctx, env, src, cur, out, host)
}

// Lines maps pi v3 lines that are no file's lines (a database's rows) one at a time.
type Lines struct{ p *parser }

// NewLines starts reading one session's lines from src (its Path names where they are, for
// reports) into out.
func NewLines(ctx context.Context, src adapters.Source, out adapters.Emitter, host *Host) *Lines {
	return &Lines{p: &parser{ctx: ctx, src: src, out: out, host: host, drift: map[string]bool{}}}
}

// ResumeLines is NewLines going on after the lines a state (Lines.State) was taken after: the
// session and the ids given so far, so that the lines after give what a whole read gives them.
// The session is emitted again before the first new message. False, with a fresh Lines, for a
// state of another version or none.
func ResumeLines(ctx context.Context, src adapters.Source, out adapters.Emitter, host *Host, saved json.RawMessage) (*Lines, bool) {
	l := NewLines(ctx, src, out, host)
	if len(saved) == 0 || json.Unmarshal(saved, &l.p.st) != nil || l.p.st.V != stateVersion {
		l.p.st = state{}
		return l, false
	}
	if host != nil && host.Amend != nil && l.p.st.Session != nil {
		host.Amend(l.p.st.Session, nil) // the host's facts as they are now
	}
	return l, true
}

// State is the parse state after the lines read so far, for ResumeLines; small and bounded
// (the session, the last time, adapters.SeenIDs).
func (l *Lines) State() (json.RawMessage, error) {
	l.p.st.V = stateVersion
	return json.Marshal(l.p.st)
}

// Line maps one line, numbered no (its place in the source, kept as options.source.line). A
// line that is no JSON object is reported malformed; only the emitter's error is returned.
func (l *Lines) Line(raw []byte, no int) error { return l.p.line(raw, no) }

// Row is Line for a line kept as a database row: db is the row's own facts (a JSON object:
// its key, when it was stored …), kept beside the line as options.source.db of what it
// produces.
func (l *Lines) Row(raw []byte, no int, db json.RawMessage) error {
	l.p.row = db
	defer func() { l.p.row = nil }()
	return l.p.line(raw, no)
}

// rowSource adds the row's facts to an options.source object, when the line is a row.
func (p *parser) rowSource(src json.RawMessage) json.RawMessage {
	if p.row == nil || len(src) < 2 {
		return src
	}
	out := append([]byte(nil), src[:len(src)-1]...)
	if len(src) > 2 {
		out = append(out, ',')
	}
	out = append(out, `"db":`...)
	out = append(out, p.row...)
	return append(out, '}')
}

// Session is the session as emitted so far, nil before the first line.
func (l *Lines) Session() *session.Session { return l.p.st.Session }

// fileKV is the file fact of options.source: the file's name for pi, the host's choice else.
func (p *parser) fileKV() []string {
	switch {
	case p.host == nil:
		return []string{"file", filepath.Base(p.src.Path)}
	case p.host.File != "":
		return []string{"file", p.host.File}
	}
	return nil
}
