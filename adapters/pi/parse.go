package pi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
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

// state is the parse state a resumed read needs, kept in Cursor.State.
type state struct {
	// Session is the session as emitted, re-emitted before the new messages of a resumed read;
	// nil until the header (or, in a file without one, the first entry) was read.
	Session *session.Session `json:"session,omitempty"`
	// Version is the file format version the header names (1 when it names none).
	Version int `json:"version,omitempty"`
	// Last is the time of the last record read, which a record without a time takes.
	Last time.Time `json:"last,omitzero"`
	// Recs counts the records given rec- ids so far. When there are any, a resumed read counts
	// the records before the cursor again so that repeats keep their -2, -3 suffixes.
	Recs int `json:"recs,omitempty"`
}

// Read implements adapters.Adapter.
func (a *Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	jf, err := jsonl.Open(src.Path, cur)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("pi: %w", err)
	}
	p := &parser{ctx: ctx, src: src, out: out, ids: map[string]int{}, recs: map[string]int{}, drift: map[string]bool{}}
	if jf.Resumed() {
		if len(cur.State) == 0 || json.Unmarshal(cur.State, &p.st) != nil {
			// Not a cursor this adapter wrote: start over.
			jf.Close()
			p.st = state{}
			if jf, err = jsonl.Open(src.Path, adapters.Cursor{}); err != nil {
				return adapters.Cursor{}, fmt.Errorf("pi: %w", err)
			}
		} else if p.st.Recs > 0 {
			if err := p.recount(cur.Offset); err != nil {
				jf.Close()
				return adapters.Cursor{}, fmt.Errorf("pi: read %s: %w", src.Path, err)
			}
		}
	}
	defer jf.Close()
	next, err := jf.Lines(ctx, p.line)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("pi: %w", err)
	}
	next.Stamp = src.Stamp
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
	emitted bool            // the session was emitted in this read
	ids     map[string]int  // entry ids met in this read
	recs    map[string]int  // records without an id, by digest, in this source
	drift   map[string]bool // Unknown reports made in this read
}

type object = map[string]json.RawMessage

func (p *parser) at(no int) adapters.Location { return adapters.Location{Path: p.src.Path, Line: no} }

// line handles one JSONL line.
func (p *parser) line(raw []byte, no int) error {
	rec, ok, err := readRecord(raw)
	if err != nil || !ok {
		// Not a JSON object: json.Unmarshal says why, as it always has.
		var obj object
		if err := json.Unmarshal(raw, &obj); err != nil {
			p.out.Malformed(p.at(no), fmt.Errorf("pi: invalid JSON: %w", err))
		} else {
			p.out.Malformed(p.at(no), errors.New("pi: record is not a JSON object"))
		}
		return nil
	}
	obj := rec.obj
	id := ""
	if needsRec(obj) {
		id = p.recID(raw)
	}
	typ, _ := str(obj["type"])
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

// needsRec reports whether a record has no id of its own (v1 entries, headers without one).
func needsRec(obj object) bool {
	id, _ := str(obj["id"])
	return id == ""
}

// recID is the id of a record without one: rec-<digest>, with -2, -3 … for repeats.
func (p *parser) recID(raw []byte) string {
	key := digest(raw)
	p.recs[key]++
	p.st.Recs++
	id := "rec-" + key
	if n := p.recs[key]; n > 1 {
		id += "-" + strconv.Itoa(n)
	}
	return id
}

func digest(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}

// recount counts the id-less records before offset again, as the reads that consumed them did.
func (p *parser) recount(offset int64) error {
	f, err := os.Open(p.src.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	return jsonl.Each(p.ctx, io.LimitReader(f, offset), func(raw []byte, _ int) error {
		var obj object
		if json.Unmarshal(raw, &obj) == nil && obj != nil && needsRec(obj) {
			p.recs[digest(raw)]++
		}
		return nil
	})
}

// unique keeps entry ids unique within a read: pi never repeats one in a file, but a
// hand-joined file could, and a repeat would otherwise overwrite the first in the archive.
func (p *parser) unique(id string) string {
	p.ids[id]++
	if n := p.ids[id]; n > 1 {
		return id + "-" + strconv.Itoa(n)
	}
	return id
}

// header reads the session line and emits the session.
func (p *parser) header(raw []byte, obj object, no int) error {
	p.checkKeys(obj, entryBase, headerKeys, "the session header", no)
	s := p.fallbackSession()
	if id, _ := str(obj["id"]); id != "" {
		s.ID = id
	}
	if cwd, _ := str(obj["cwd"]); strings.TrimSpace(cwd) != "" {
		s.Project = cwd
	}
	if t := anyTime(obj["timestamp"]); !t.IsZero() {
		s.CreatedAt = t
	}
	p.st.Version = 1
	if v, ok := number(obj["version"]); ok {
		p.st.Version = int(v)
	}
	s.Options = session.Options{"source": sourceJSON(raw, no, "file", filepath.Base(p.src.Path))}
	parent, _ := str(obj["parentSession"])
	if parent == "" {
		parent, _ = str(obj["branchedFrom"]) // v1 name of the same field
	}
	if parent != "" {
		p.lineage(&s, parent)
	}
	adapters.ApplyRestoreMark(&s, obj[adapters.RestoreMarkKey])
	p.st.Session = &s
	return p.emitSession()
}

// fallbackSession is what the file's place says of its session, for a file without a header
// (pi would treat it as empty) and for a header's missing fields: the id from the file name
// `<timestamp>_<uuid>.jsonl`, the encoded folder name as the project key, and the time in the
// file name (else the file's modification time).
func (p *parser) fallbackSession() session.Session {
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
func (p *parser) entry(raw []byte, rec record, typ, recID string, no int) error {
	obj, msg := rec.obj, rec.msg
	id := recID
	if id == "" {
		sid, _ := str(obj["id"])
		id = p.unique(sid)
	}
	t := p.when(obj, msg)
	if err := p.ensureSession(); err != nil {
		return err
	}
	m := &session.Message{SessionID: p.st.Session.ID, ID: id, Role: session.RoleSystem, Timestamp: t}
	var extra []string
	if parent, _ := str(obj["parentId"]); parent != "" {
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
		parts = p.message(m, msg, rec.msgBody, no)
	case "custom_message":
		// Extension text in the model's context, sent as a user turn.
		m.Role = session.RoleUser
		parts = p.content(rec.content, session.Injected, "custom_message entries", no)
	case "compaction":
		m.Content, _ = str(obj["summary"])
		if kept, _ := str(obj["firstKeptEntryId"]); kept != "" {
			extra = append(extra, "first_kept_entry_id", kept)
		}
	case "branch_summary":
		m.Content, _ = str(obj["summary"])
		if from, _ := str(obj["fromId"]); from != "" {
			extra = append(extra, "from_id", from)
		}
	case "label":
		if target, _ := str(obj["targetId"]); target != "" {
			extra = append(extra, "target_id", target)
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
	m.Options = session.Options{"source": sourceJSON(raw, no, extra...)}
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
func (p *parser) message(m *session.Message, msg object, body content, no int) []session.Part {
	role, _ := str(msg["role"])
	if keys, ok := roleKeys[role]; ok {
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
		call, _ := str(msg["toolCallId"])
		name, _ := str(msg["toolName"])
		failed, _ := boolean(msg["isError"])
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
		m.Content, _ = str(msg["summary"])
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
	cancelled, _ := boolean(msg["cancelled"])
	code, hasCode := number(msg["exitCode"])
	return []session.Part{
		{Type: session.PartToolCall, Provenance: session.Conversational, CallID: m.ID, Name: "bash", Params: params},
		{Type: session.PartToolResult, Provenance: session.Conversational, CallID: m.ID, Name: "bash",
			IsFailure: cancelled || (hasCode && code != 0), Result: verbatim(msg["output"])},
	}
}

// systemText is a system message entry's text: its content, else its prompt sections in
// recorded order.
func systemText(msg object, body content) string {
	if len(body.raw) > 0 && body.raw[0] == '"' {
		if s := body.parsed().text; s != "" {
			return s
		}
	}
	raw, ok := msg["sections"]
	if !ok {
		return ""
	}
	var text string
	for _, v := range orderedValues(raw) {
		if s, ok := str(v); ok && s != "" {
			if text != "" {
				text += "\n\n"
			}
			text += s
		}
	}
	return text
}

// content maps pi content, a string or a list of text, image (and, in assistant messages,
// thinking and toolCall) blocks, to parts.
func (p *parser) content(c content, prov session.Provenance, where string, no int) []session.Part {
	raw := c.raw
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	switch raw[0] {
	case '"':
		s := c.parsed().text
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
	for _, b := range c.parsed().blocks {
		if pt, ok := p.block(b, prov, where, no); ok {
			parts = append(parts, pt)
		}
	}
	return parts
}

// block maps one content block. Its fields that have no place in the part (signatures) go to
// the part's options.source verbatim.
func (p *parser) block(blk block, prov session.Provenance, where string, no int) (session.Part, bool) {
	b := blk.obj
	if b == nil {
		p.unknown(no, "a content block that is not an object in "+where)
		return session.Part{}, false
	}
	typ, _ := str(b["type"])
	pt := session.Part{Provenance: prov}
	var used []string
	switch typ {
	case "text":
		pt.Type = session.PartText
		pt.Text = blk.text
		used = []string{"text"}
	case "thinking":
		pt.Type = session.PartReasoning
		pt.Text = blk.thinking
		used = []string{"thinking"}
	case "toolCall":
		pt.Type = session.PartToolCall
		pt.CallID, _ = str(b["id"])
		pt.Name, _ = str(b["name"])
		if args, ok := b["arguments"]; ok && string(args) != "null" {
			pt.Params = args
		}
		used = []string{"id", "name", "arguments"}
	case "image":
		pt.Type = session.PartFile
		pt.MediaType, _ = str(b["mimeType"])
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
	s, _ := str(raw)
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
	for _, k := range sortedKeys(obj) {
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
		"compaction":            {"summary", "firstKeptEntryId", "firstKeptEntryIndex", "tokensBefore", "details", "fromHook"},
		"branch_summary":        {"fromId", "summary", "details", "fromHook"},
		"custom":                {"customType", "data"},
		"custom_message":        {"customType", "content", "details", "display"},
		"label":                 {"targetId", "label"},
		"session_info":          {"name"},
	}
	roleKeys = map[string][]string{
		"user":              {"content"},
		"assistant":         {"content", "api", "provider", "model", "usage", "stopReason", "errorMessage", "responseId", "rawStopReason"},
		"toolResult":        {"toolCallId", "toolName", "content", "details", "isError"},
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
		"toolCall": {"thoughtSignature"},
	}
)
