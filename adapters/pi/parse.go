package pi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// stateVersion changes whenever state does; a cursor of another version (or of none: the first
// cursors counted rec- ids and read the file again to number repeats) is read from the start.
const stateVersion = 2

// state is the parse state a resumed read needs, kept in Cursor.State.
type state struct {
	// Session is the session as emitted, re-emitted before the new messages of a resumed read;
	// nil until the header (or, in a file without one, the first entry) was read.
	Session *session.Session `json:"session,omitempty"`
	// Version is the file format version the header names (1 when it names none).
	Version int `json:"version,omitempty"`
	// Last is the time of the last record read, which a record without a time takes.
	Last time.Time `json:"last,omitzero"`
	// IDs are the message ids given so far (entry ids, rec- ids), so that a resumed read gives a
	// repeat the -2, -3 … suffix a whole read gives it.
	IDs adapters.SeenIDs `json:"ids,omitzero"`
	// V is stateVersion.
	V int `json:"v"`
}

// Read implements adapters.Adapter.
func (a *Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	return readLines(ctx, env, src, cur, out, nil)
}

// readLines reads a JSONL file of pi v3 lines, pi's own (host nil) or another agent's.
func readLines(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter, host *Host) (adapters.Cursor, error) {
	jf, err := jsonl.Open(src.Path, cur, env.Limits)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("pi: %w", err)
	}
	p := &parser{ctx: ctx, src: src, out: out, host: host, drift: map[string]bool{}}
	if jf.Resumed() {
		if len(cur.State) == 0 || json.Unmarshal(cur.State, &p.st) != nil || p.st.V != stateVersion {
			// Not a cursor this adapter wrote: start over.
			jf.Close()
			p.st = state{}
			if jf, err = jsonl.Open(src.Path, adapters.Cursor{}, env.Limits); err != nil {
				return adapters.Cursor{}, fmt.Errorf("pi: %w", err)
			}
		}
	}
	defer jf.Close()
	jf.Checkpoints(out, func() (json.RawMessage, bool) {
		p.st.V = stateVersion
		st, err := json.Marshal(p.st)
		return st, err == nil
	})
	next, err := jf.Lines(ctx, p.line, out.Malformed)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("pi: %w", err)
	}
	next.Stamp = src.Stamp
	p.st.V = stateVersion
	if next.State, err = json.Marshal(p.st); err != nil {
		return adapters.Cursor{}, fmt.Errorf("pi: read %s: %w", src.Path, err)
	}
	return next, nil
}

// parser turns one source's lines into events.
type parser struct {
	ctx     context.Context
	src     adapters.Source
	out     adapters.Emitter
	st      state
	host    *Host           // the agent keeping these lines, when it is not pi
	row     json.RawMessage // the line's row in the host's database (Lines.Row)
	emitted bool            // the session was emitted in this read
	drift   map[string]bool // Unknown reports made in this read
}

type object = adapters.Members

func (p *parser) at(no int) adapters.Location { return adapters.Location{Path: p.src.Path, Line: no} }

// line handles one JSONL line.
func (p *parser) line(raw []byte, no int) error {
	rec, err := readRecord(raw)
	switch {
	case errors.Is(err, adapters.ErrNotObject):
		p.out.Malformed(p.at(no), errors.New("pi: record is not a JSON object"))
		return nil
	case err != nil:
		p.out.Malformed(p.at(no), fmt.Errorf("pi: invalid JSON: %w", err))
		return nil
	}
	obj := rec.Members
	id := ""
	if obj.Str("id") == "" {
		// A record without an id of its own (v1 entries, headers without one).
		id = p.st.IDs.Next(adapters.RecordID(raw))
	}
	typ := obj.Str("type")
	if typ == "session" && p.st.Session == nil {
		err = p.header(raw, obj, no)
	} else {
		err = p.entry(raw, rec, typ, id, no)
	}
	if err != nil {
		return fmt.Errorf("%s line %d: %w", p.src.Path, no, err)
	}
	return nil
}

// header reads the session line and emits the session.
func (p *parser) header(raw []byte, obj object, no int) error {
	p.checkKeys(obj, entryBase, headerKeys, "the session header", no)
	s := p.fallbackSession()
	if id := obj.Str("id"); id != "" {
		if err := session.CheckID(id); err != nil {
			// Kept in the raw header; the archive names the session after its file.
			p.out.Unknown(p.at(no), fmt.Sprintf("a session id that cannot name a session (%v)", err))
		} else {
			s.ID = id
		}
	}
	if cwd := obj.Str("cwd"); strings.TrimSpace(cwd) != "" {
		s.Project = cwd
	}
	if t := anyTime(obj["timestamp"]); !t.IsZero() {
		s.CreatedAt = t
	}
	p.st.Version = 1
	if v, ok := adapters.Float(obj["version"]); ok {
		p.st.Version = int(v)
	}
	s.Options = session.Options{"source": p.rowSource(sourceJSON(raw, no, p.fileKV()...))}
	parent := obj.Str("parentSession")
	if parent == "" {
		parent = obj.Str("branchedFrom") // v1 name of the same field
	}
	if parent != "" {
		p.lineage(&s, parent)
	}
	adapters.ApplyRestoreMark(&s, obj[adapters.RestoreMarkKey])
	if p.host != nil && p.host.Amend != nil {
		p.host.Amend(&s, obj)
	}
	p.st.Session = &s
	return p.emitSession()
}

// fallbackSession is what the file's place says of its session, for a file without a header
// (pi would treat it as empty) and for a header's missing fields: the id from the file name
// `<timestamp>_<uuid>.jsonl`, the encoded folder name as the project key, and the time in the
// file name (else the file's modification time).
func (p *parser) fallbackSession() session.Session {
	if p.host != nil {
		s := p.host.Session
		s.Options = session.Options{"source": sourceJSON(nil, 0, p.fileKV()...)}
		return s
	}
	ts, id := splitFileName(p.src.Path)
	created := fileTime(ts)
	if created.IsZero() {
		created = p.src.ModTime
	}
	if created.IsZero() {
		if info, err := os.Stat(p.src.Path); err == nil {
			created = info.ModTime()
		}
	}
	if created.IsZero() {
		created = time.Unix(0, 0)
	}
	project := filepath.Base(filepath.Dir(p.src.Path))
	if strings.TrimSpace(project) == "" {
		project = filepath.Dir(p.src.Path)
	}
	return session.Session{
		ID:          id,
		SourceAgent: Name,
		Project:     project,
		CreatedAt:   created,
		Options:     session.Options{"source": sourceJSON(nil, 0, "file", filepath.Base(p.src.Path))},
	}
}

// ensureSession makes sure the session is known and emitted in this read before a message.
func (p *parser) ensureSession() error {
	if p.st.Session == nil {
		s := p.fallbackSession()
		p.st.Session = &s
	}
	if p.emitted {
		return nil
	}
	return p.emitSession()
}

func (p *parser) emitSession() error {
	s := *p.st.Session
	s.Options = s.Options.Clone()
	p.emitted = true
	return p.out.Event(session.Event{Session: &s})
}

// when is a record's time: the entry's (ISO), else its message's (milliseconds), else the
// previous record's, else the session's start.
func (p *parser) when(obj, msg object) time.Time {
	t := anyTime(obj["timestamp"])
	if t.IsZero() && msg != nil {
		t = anyTime(msg["timestamp"])
	}
	if t.IsZero() {
		t = p.st.Last
	}
	if t.IsZero() {
		if p.st.Session != nil {
			t = p.st.Session.CreatedAt
		} else {
			t = p.fallbackSession().CreatedAt
		}
	}
	p.st.Last = t
	return t
}

// entry maps one non-header record to a message and its parts.
func (p *parser) entry(raw []byte, rec *node, typ, recID string, no int) error {
	obj, msgNode := rec.Members, message(rec)
	msg := msgNode.Object()
	id := recID
	if id == "" {
		// pi never repeats an entry id in a file, but a hand-joined file could, and a repeat
		// would otherwise overwrite the first in the archive.
		id = p.st.IDs.Next(obj.Str("id"))
	}
	t := p.when(obj, msg)
	if err := p.ensureSession(); err != nil {
		return err
	}
	m := &session.Message{SessionID: p.st.Session.ID, ID: id, Role: session.RoleSystem, Timestamp: t}
	var extra []string
	if parent := obj.Str("parentId"); parent != "" {
		extra = append(extra, "parent_id", parent)
	}
	if keys, ok := entryKeys[typ]; ok {
		p.checkKeys(obj, entryBase, keys, typ+" entries", no)
	}
	var parts []session.Part
	switch typ {
	case "message":
		if msg == nil {
			p.unknown(no, "message entry without a message object")
			break
		}
		parts = p.message(m, msg, msgNode.Kid("content"), no)
	case "custom_message":
		// Extension text in the model's context, sent as a user turn.
		m.Role = session.RoleUser
		parts = p.content(rec.Kid("content"), session.Injected, "custom_message entries", no)
	case "compaction":
		m.Content = obj.Str("summary")
		if kept := obj.Str("firstKeptEntryId"); kept != "" {
			extra = append(extra, "first_kept_entry_id", kept)
		}
	case "branch_summary":
		m.Content = obj.Str("summary")
		if from := obj.Str("fromId"); from != "" {
			extra = append(extra, "from_id", from)
		}
	case "label":
		if target := obj.Str("targetId"); target != "" {
			extra = append(extra, "target_id", target)
		}
	case "context_edit":
		// pi 1.x: an append-only edit of an earlier entry's contribution to the model's
		// context; the target itself stays as written (and as stored). The edit names its
		// target and what it did to it: omitted (replacement null) or replaced, the new
		// content kept in the raw record.
		target := obj.Str("targetId")
		if target == "" {
			p.unknown(no, "context_edit without a targetId")
			break
		}
		edit := "replaced"
		if r, ok := obj["replacement"]; !ok || adapters.IsNull(r) {
			edit = "omitted"
		}
		extra = append(extra, "target_id", target, "context_edit", edit)
	case "usage":
		// pi 1.x: usage that is no assistant message (cache warming, …), outside the
		// conversation tree and the model's context.
		if kind := obj.Str("kind"); kind != "" {
			extra = append(extra, "usage_kind", kind)
		}
	case "model_change", "thinking_level_change", "session_info", "custom":
		// Metadata: a system message without content, kept for restore.
	case "session":
		p.unknown(no, "a second session header")
	case "":
		p.unknown(no, "record without a type")
	default:
		p.unknown(no, fmt.Sprintf("entry type %q", typ))
	}
	m.Options = session.Options{"source": p.rowSource(sourceJSON(raw, no, extra...))}
	if err := p.out.Event(session.Event{Message: m}); err != nil {
		return err
	}
	for i := range parts {
		pt := &parts[i]
		pt.SessionID, pt.MessageID, pt.Ordinal = m.SessionID, m.ID, i
		pt.ID = m.ID + ":" + strconv.Itoa(i)
		if err := p.out.Event(session.Event{Part: pt}); err != nil {
			return err
		}
	}
	return nil
}

// message maps a message entry's AgentMessage by its role, setting m's role and content.
func (p *parser) message(m *session.Message, msg object, body *node, no int) []session.Part {
	role := msg.Str("role")
	if keys, ok := roleKeys[role]; ok {
		if p.host != nil && len(p.host.MessageKeys) > 0 {
			keys = append(slices.Clip(keys), p.host.MessageKeys...)
		}
		p.checkKeys(msg, messageBase, keys, role+" messages", no)
	}
	switch role {
	case "user":
		m.Role = session.RoleUser
		return p.content(body, session.Conversational, "user messages", no)
	case "assistant":
		m.Role = session.RoleAssistant
		return p.content(body, session.Conversational, "assistant messages", no)
	case "toolResult":
		m.Role = session.RoleTool
		call := msg.Str("toolCallId")
		name := msg.Str("toolName")
		failed, _ := adapters.Bool(msg["isError"])
		return []session.Part{{
			Type: session.PartToolResult, Provenance: session.Conversational,
			CallID: call, Name: name, IsFailure: failed, Result: verbatim(msg["content"]),
		}}
	case "bashExecution":
		return bashParts(m, msg)
	case "custom", "hookMessage":
		// Extension text in the model's context, sent as a user turn (hookMessage is its v2
		// name).
		m.Role = session.RoleUser
		return p.content(body, session.Injected, role+" messages", no)
	case "branchSummary", "compactionSummary":
		m.Content = msg.Str("summary")
	case "system":
		m.Content = systemText(msg, body)
	default:
		p.unknown(no, fmt.Sprintf("message role %q", role))
	}
	return nil
}

// bashParts maps a command the user ran with `!` (its output goes to the model as a user
// turn): a bash tool call and its result, paired by the entry id.
func bashParts(m *session.Message, msg object) []session.Part {
	m.Role = session.RoleUser
	params := json.RawMessage(`{}`)
	if cmd, ok := msg["command"]; ok {
		params = append(append(json.RawMessage(`{"command":`), cmd...), '}')
	}
	cancelled, _ := adapters.Bool(msg["cancelled"])
	code, hasCode := adapters.Float(msg["exitCode"])
	return []session.Part{
		{Type: session.PartToolCall, Provenance: session.Conversational, CallID: m.ID, Name: "bash", Params: params},
		{Type: session.PartToolResult, Provenance: session.Conversational, CallID: m.ID, Name: "bash",
			IsFailure: cancelled || (hasCode && code != 0), Result: verbatim(msg["output"])},
	}
}

// systemText is a system message entry's text: its content, else its prompt sections in
// recorded order.
func systemText(msg object, body *node) string {
	if body != nil && body.IsText && body.Text != "" {
		return body.Text
	}
	raw, ok := msg["sections"]
	if !ok {
		return ""
	}
	var text string
	_ = adapters.EachMember(raw, func(_ string, v json.RawMessage, _ int) error {
		if s := adapters.Str(v); s != "" {
			if text != "" {
				text += "\n\n"
			}
			text += s
		}
		return nil
	})
	return text
}

// content maps pi content, a string or a list of text, image (and, in assistant messages,
// thinking and toolCall) blocks, to parts.
func (p *parser) content(c *node, prov session.Provenance, where string, no int) []session.Part {
	switch c.Kind() {
	case 0, 'n':
		return nil
	case '"':
		s := c.Text
		if s == "" {
			return nil
		}
		return []session.Part{{Type: session.PartText, Provenance: prov, Text: s}}
	case '[':
	default:
		p.unknown(no, "content of "+where+" that is neither text nor a list")
		return nil
	}
	var parts []session.Part
	for _, b := range c.List() {
		if pt, ok := p.block(b, prov, where, no); ok {
			parts = append(parts, pt)
		}
	}
	return parts
}

// block maps one content block. Its fields that have no place in the part (signatures) go to
// the part's options.source verbatim.
func (p *parser) block(blk *node, prov session.Provenance, where string, no int) (session.Part, bool) {
	b := blk.Members
	if b == nil {
		p.unknown(no, "a content block that is not an object in "+where)
		return session.Part{}, false
	}
	typ := b.Str("type")
	pt := session.Part{Provenance: prov}
	var used []string
	switch typ {
	case "text":
		pt.Type = session.PartText
		pt.Text = blk.Str("text")
		used = []string{"text"}
	case "thinking":
		pt.Type = session.PartReasoning
		pt.Text = blk.Str("thinking")
		used = []string{"thinking"}
	case "toolCall":
		pt.Type = session.PartToolCall
		pt.CallID = b.Str("id")
		pt.Name = b.Str("name")
		if args, ok := b["arguments"]; ok && string(args) != "null" {
			pt.Params = args
		}
		used = []string{"id", "name", "arguments"}
	case "image":
		pt.Type = session.PartFile
		pt.MediaType = b.Str("mimeType")
		pt.Data = imageData(b["data"])
		used = []string{"data", "mimeType"}
	default:
		p.unknown(no, fmt.Sprintf("content block type %q in %s", typ, where))
		return session.Part{}, false
	}
	rest := object{}
	for k, v := range b {
		if k != "type" && !slices.Contains(used, k) {
			rest[k] = v
			if !slices.Contains(blockExtras[typ], k) {
				p.unknown(no, fmt.Sprintf("key %q in %s blocks", k, typ))
			}
		}
	}
	if len(rest) > 0 {
		pt.Options = session.Options{"source": objectJSON(rest)}
	}
	return pt, true
}

func imageData(raw json.RawMessage) *session.FileData {
	s := adapters.Str(raw)
	if b, err := decodeBase64(s); err == nil {
		return &session.FileData{Kind: session.FileBytes, Bytes: b}
	}
	return &session.FileData{Kind: session.FileString, Value: s}
}

// verbatim is a value as recorded (a tool result's content blocks, a command's output), nil
// when absent.
func verbatim(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	return raw
}

// unknown reports drift once per read.
func (p *parser) unknown(no int, what string) {
	if p.drift[what] {
		return
	}
	p.drift[what] = true
	p.out.Unknown(p.at(no), what)
}

// checkKeys reports the keys of obj that are neither in base nor in known.
func (p *parser) checkKeys(obj object, base, known []string, where string, no int) {
	for _, k := range obj.Keys() {
		if !slices.Contains(base, k) && !slices.Contains(known, k) {
			p.unknown(no, fmt.Sprintf("key %q in %s", k, where))
		}
	}
}

// The keys pi writes, by record (from session-manager.ts, messages.ts and pi-ai's types; the
// v1 header's model fields and branchedFrom included).
var (
	entryBase   = []string{"type", "id", "parentId", "timestamp"}
	messageBase = []string{"role", "timestamp"}
	headerKeys  = []string{"version", "cwd", "parentSession", "branchedFrom", "provider", "modelId", "thinkingLevel", adapters.RestoreMarkKey}
	entryKeys   = map[string][]string{
		"message":               {"message"},
		"model_change":          {"provider", "modelId"},
		"thinking_level_change": {"thinkingLevel"},
		"compaction":            {"summary", "firstKeptEntryId", "firstKeptEntryIndex", "tokensBefore", "details", "fromHook", "usage", "systemMessage"},
		"branch_summary":        {"fromId", "summary", "details", "fromHook", "usage"},
		"usage":                 {"kind", "provider", "model", "usage", "note"},
		"context_edit":          {"targetId", "replacement"},
		"custom":                {"customType", "data"},
		"custom_message":        {"customType", "content", "details", "display"},
		"label":                 {"targetId", "label"},
		"session_info":          {"name"},
	}
	roleKeys = map[string][]string{
		"user": {"content"},
		"assistant": {"content", "api", "provider", "model", "usage", "stopReason", "errorMessage", "responseId", "rawStopReason",
			"responseModel", "providerThinkingLevel", "thinkingLevel", "diagnostics", "deferred", "endTurn", "durationMs"},
		"toolResult":        {"toolCallId", "toolName", "content", "details", "isError", "usage", "nestedCalls", "durationMs"},
		"bashExecution":     {"command", "output", "exitCode", "cancelled", "truncated", "fullOutputPath", "excludeFromContext"},
		"custom":            {"customType", "content", "display", "details"},
		"hookMessage":       {"customType", "content", "display", "details"},
		"branchSummary":     {"summary", "fromId"},
		"compactionSummary": {"summary", "tokensBefore"},
		"system":            {"content", "sections", "toolsAdded", "toolsRemoved"},
	}
	blockExtras = map[string][]string{
		"text":     {"textSignature"},
		"thinking": {"thinkingSignature", "redacted"},
		"toolCall": {"thoughtSignature", "namespace", "argumentsError"},
	}
)
