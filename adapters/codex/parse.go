package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/jsonl"
	"github.com/pondhq/pond/session"
)

// maxHeader is how many records a read holds back at the start of a file while the session's
// project is still unknown (a session_meta without cwd, a legacy header); the session is then
// decided with what was found.
const maxHeader = 64

// maxCalls bounds the tool calls remembered between a call and its output (for the result's
// tool name and the failure an end event reported).
const maxCalls = 256

// unknownProject is the project of a session that recorded no working directory anywhere.
const unknownProject = "unknown"

// stateVersion changes whenever state does; a cursor of another version (or of none: the
// first cursors kept every id's digest, not a bounded adapters.SeenIDs) is read again from the
// start.
const stateVersion = 3

// state is the parse state a resumed read needs, kept in Cursor.State.
type state struct {
	V int `json:"v"` // stateVersion
	// Session is the session as decided from the file's first records; nil until then. A
	// resumed read re-emits it before its first new message.
	Session *session.Session `json:"session,omitempty"`
	// Last is the time of the last record that had one; a record without one takes it.
	Last time.Time `json:"last,omitzero"`
	// Calls are tool calls whose output has not been read yet, oldest first.
	Calls []call `json:"calls,omitempty"`
	// IDs are the message ids given so far, so that a resumed read gives a repeated id the
	// same -2, -3 … suffix a whole read gives it.
	IDs adapters.SeenIDs `json:"ids,omitzero"`
	// Segment names a later segment of a paginated thread (see segmentOf); "" for a thread's
	// own file.
	Segment string `json:"segment,omitempty"`
}

// call is a tool call awaiting its output.
type call struct {
	ID     string `json:"id"`
	Name   string `json:"name,omitempty"`
	Failed bool   `json:"failed,omitempty"`
}

// Read implements adapters.Adapter. A plain rollout is read incrementally; a compressed one is
// decompressed and read whole whenever it changed (Codex compresses only finished rollouts).
func (*Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	p := &parser{ctx: ctx, src: src, out: out, lim: env.Limits, drift: map[string]bool{}}
	if strings.HasSuffix(src.Path, ".zst") {
		return p.readCompressed()
	}
	return p.readPlain(cur)
}

func (p *parser) readPlain(cur adapters.Cursor) (adapters.Cursor, error) {
	jf, err := jsonl.Open(p.src.Path, cur, p.lim)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("codex: %w", err)
	}
	if jf.Resumed() && p.restore(cur.State) != nil {
		// Not a cursor this adapter wrote: start over.
		jf.Close()
		p.st = state{}
		if jf, err = jsonl.Open(p.src.Path, adapters.Cursor{}, p.lim); err != nil {
			return adapters.Cursor{}, fmt.Errorf("codex: %w", err)
		}
	}
	defer jf.Close()
	jf.Checkpoints(p.out, func() (json.RawMessage, bool) {
		if p.st.Session == nil || len(p.pending) > 0 {
			return nil, false // records held back until the session is decided
		}
		p.st.V = stateVersion
		st, err := json.Marshal(p.st)
		return st, err == nil
	})
	next, err := jf.Lines(p.ctx, p.line, p.out.Malformed)
	if err == nil {
		err = p.finish()
	}
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("codex: %w", err)
	}
	next.Stamp = p.src.Stamp
	p.st.V = stateVersion
	if next.State, err = json.Marshal(p.st); err != nil {
		return adapters.Cursor{}, fmt.Errorf("codex: read %s: %w", p.src.Path, err)
	}
	return next, nil
}

func (p *parser) readCompressed() (adapters.Cursor, error) {
	f, err := os.Open(p.src.Path)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("codex: %w", err)
	}
	defer f.Close()
	dec, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("codex: read %s: %w", p.src.Path, err)
	}
	defer dec.Close()
	// A small file can expand without bound: past the cap the rest is reported, not read, and
	// what came before is kept (the cursor's stamp keeps the file from being read again until
	// it changes).
	capped := &capReader{r: pathReader{dec, p.src.Path}, left: p.lim.Decompressed()}
	last := 0
	err = jsonl.Each(p.ctx, capped, p.src.Path, p.lim.Line(), func(line []byte, no int) error {
		last = no
		return p.line(line, no)
	}, p.out.Malformed)
	if errors.Is(err, adapters.ErrTooLarge) {
		p.out.Malformed(p.at(last+1), fmt.Errorf("codex: the rest of the file not read: decompressed, it is %w of %d bytes", err, p.lim.Decompressed()))
		err = nil
	}
	if err == nil {
		err = p.finish()
	}
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("codex: %w", err)
	}
	return adapters.Cursor{Stamp: p.src.Stamp}, nil
}

// pathReader names the file in the errors of a decompressing reader.
type pathReader struct {
	r    io.Reader
	path string
}

func (r pathReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("read %s: %w", r.path, err)
	}
	return n, err
}

// capReader reads at most left bytes of r; reading more is adapters.ErrTooLarge.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(b []byte) (int, error) {
	if c.left <= 0 {
		// One byte more tells a stream of exactly the cap from a longer one.
		var one [1]byte
		if n, err := c.r.Read(one[:]); n == 0 {
			return 0, err
		}
		return 0, adapters.ErrTooLarge
	}
	if int64(len(b)) > c.left {
		b = b[:c.left]
	}
	n, err := c.r.Read(b)
	c.left -= int64(n)
	return n, err
}

// restore loads a cursor's state.
func (p *parser) restore(raw json.RawMessage) error {
	if len(raw) == 0 {
		return errors.New("no state")
	}
	if err := json.Unmarshal(raw, &p.st); err != nil {
		return err
	}
	if p.st.V != stateVersion {
		return fmt.Errorf("state version %d", p.st.V)
	}
	return nil
}

// parser turns one source's lines into events.
type parser struct {
	ctx     context.Context
	src     adapters.Source
	out     adapters.Emitter
	lim     adapters.Limits
	st      state
	emitted bool     // the session was emitted in this read
	pending []record // records held back until the session is decided
	hdr     header
	drift   map[string]bool // Unknown reports made in this read
}

// record is one parsed line.
type record struct {
	raw []byte
	no  int
	obj object // n.Members
	n   *node  // the line as read
}

func (p *parser) at(no int) adapters.Location { return adapters.Location{Path: p.src.Path, Line: no} }

// unknown reports format drift once per read.
func (p *parser) unknown(no int, what string) {
	if p.drift[what] {
		return
	}
	p.drift[what] = true
	p.out.Unknown(p.at(no), what)
}

// line handles one JSONL line.
func (p *parser) line(raw []byte, no int) error {
	n, err := readLine(raw)
	switch {
	case errors.Is(err, adapters.ErrNotObject):
		p.out.Malformed(p.at(no), errors.New("codex: record is not a JSON object"))
		return nil
	case err != nil:
		p.out.Malformed(p.at(no), fmt.Errorf("codex: %w", err))
		return nil
	}
	r := record{raw: raw, no: no, obj: n.Members, n: n}
	if p.st.Session == nil {
		p.pending = append(p.pending, r)
		p.hdr.scan(r)
		if p.hdr.ready() || len(p.pending) >= maxHeader {
			return p.flush()
		}
		return nil
	}
	return p.record(r)
}

// finish decides the session when the read ended while records were held back.
func (p *parser) finish() error {
	if p.st.Session == nil && len(p.pending) > 0 {
		return p.flush()
	}
	return nil
}

// flush decides the session and handles the records held back.
func (p *parser) flush() error {
	p.decide()
	pending := p.pending
	p.pending = nil
	for _, r := range pending {
		if err := p.record(r); err != nil {
			return err
		}
	}
	return nil
}

// header is what the first records say about the session.
type header struct {
	count     int
	firstLine int
	firstTime time.Time
	meta      object // the first session_meta payload, or a legacy header line
	metaLine  int
	metaTime  time.Time // the session_meta line's own timestamp
	turnCwd   string    // the first turn_context cwd
	envCwd    string    // the <cwd> of the first <environment_context>
}

func (h *header) scan(r record) {
	h.count++
	ts := adapters.Time(r.obj["timestamp"])
	if h.count == 1 {
		h.firstLine = r.no
	}
	if h.firstTime.IsZero() {
		h.firstTime = ts
	}
	typ := r.obj.Str("type")
	enveloped := isEnveloped(r.obj)
	switch {
	case enveloped && typ == "session_meta":
		if m := payload(r.n).Object(); m != nil && h.meta == nil {
			h.meta, h.metaLine, h.metaTime = m, r.no, ts
		}
	case enveloped && typ == "turn_context":
		if h.turnCwd == "" {
			h.turnCwd = payload(r.n).Str("cwd")
		}
	case enveloped && typ == "response_item":
		if h.envCwd == "" {
			h.envCwd = environmentCwd(payload(r.n))
		}
	case !enveloped && h.count == 1 && isLegacyHeader(r.obj):
		h.meta, h.metaLine, h.metaTime = r.obj, r.no, ts
	case !enveloped && typ == "message":
		if h.envCwd == "" {
			h.envCwd = environmentCwd(r.n)
		}
	}
}

func (h *header) cwd() string {
	if cwd := h.meta.Str("cwd"); cwd != "" {
		return cwd
	}
	if h.turnCwd != "" {
		return h.turnCwd
	}
	return h.envCwd
}

// ready reports whether the session can be decided before the read ends.
func (h *header) ready() bool { return h.meta != nil && h.cwd() != "" }

// isEnveloped reports whether a line is a RolloutLine (with a payload, read along with the line)
// rather than an un-enveloped (≤0.30) line.
func isEnveloped(o object) bool {
	_, ok := o["payload"]
	return ok && o.IsStr("type")
}

// isLegacyHeader reports whether an un-enveloped line is the session metadata that rollouts of
// 0.30 and before start with: {"id", "timestamp", "instructions"?, "git"?}.
func isLegacyHeader(o object) bool {
	if _, ok := o["type"]; ok {
		return false
	}
	_, hasTime := o["timestamp"]
	return o.Str("id") != "" && hasTime
}

// environmentCwd is the <cwd> inside an <environment_context> of a user or developer message.
func environmentCwd(item *node) string {
	if role := item.Str("role"); role != "user" && role != "developer" {
		return ""
	}
	for _, c := range list(item, "content") {
		text := c.Str("text")
		_, ctx, ok := strings.Cut(text, "<environment_context>")
		if !ok {
			continue
		}
		_, rest, ok := strings.Cut(ctx, "<cwd>")
		if !ok {
			continue
		}
		if cwd, _, ok := strings.Cut(rest, "</cwd>"); ok && strings.TrimSpace(cwd) != "" {
			return strings.TrimSpace(cwd)
		}
	}
	return ""
}

// decide fixes the session from the header records.
func (p *parser) decide() {
	h := &p.hdr
	meta := h.meta
	fid, fseg := fileIDs(p.src.Path)
	id := meta.Str("id")
	var mismatch json.RawMessage
	switch {
	case id != "":
		if fid != "" && !strings.EqualFold(id, fid) && !strings.EqualFold(id, fseg) {
			p.unknown(h.metaLine, fmt.Sprintf("session_meta id %q differs from the file name's %q; kept the session_meta id", id, fid))
			mismatch = adapters.String(fid)
		}
	case meta != nil:
		id = fid
		p.unknown(h.metaLine, "session_meta without an id: the session id comes from the file name")
	default:
		id = fid
		p.unknown(h.firstLine, "no session_meta: the session id comes from the file name")
	}
	if id == "" {
		id = fileStem(p.src.Path)
	}

	project := h.cwd()
	if project == "" {
		project = unknownProject
		p.unknown(h.firstLine, `no cwd recorded: the project is "unknown"`)
	}

	created := adapters.Time(meta["timestamp"])
	for _, t := range []time.Time{h.metaTime, h.firstTime, fileTime(p.src.Path), p.src.ModTime} {
		if !created.IsZero() {
			break
		}
		created = t
	}
	if created.IsZero() {
		if fi, err := os.Stat(p.src.Path); err == nil {
			created = fi.ModTime()
		} else {
			created = time.Unix(0, 0)
		}
	}

	p.st.Segment = segmentOf(p.src.Path, meta, id)
	parent, sub := lineage(meta, id)
	s := &session.Session{ID: id, ParentSessionID: parent, SourceAgent: Name, Project: project, CreatedAt: created}
	if sub {
		s.SourceAgent = subagentKind
	}
	if meta != nil || mismatch != nil {
		fields := make([]adapters.Field, 0, len(metaFacts)+1)
		for _, k := range metaFacts {
			if v := meta[k]; !adapters.IsNull(v) {
				fields = append(fields, adapters.Field{Key: k, Value: v})
			}
		}
		fields = append(fields, adapters.Field{Key: "file_name_id", Value: mismatch})
		if src := adapters.Object(fields...); len(src) > 2 {
			s.Options = session.Options{"source": src}
		}
	}
	if meta != nil {
		adapters.ApplyRestoreMark(s, meta[adapters.RestoreMarkKey])
	}
	p.st.Session = s
}

// segmentOf names a rollout file that holds a later segment of a thread whose history starts in
// another file with the same id (openai/codex#31433): Codex continues a thread in a new file
// whose first session_meta keeps the thread's id and points at the older file's prefix with
// history_base{thread_id, end_ordinal_exclusive, end_byte_offset}, and names it
// rollout-<time>-<thread id>_<rollout id>.jsonl. The segment's name is that rollout id, else
// (a self-referencing history_base in a file named after the thread alone) the time in its
// name. Both files are one session; the segment's message ids carry its name (id@segment) so
// that the files' keys never collide, and its records keep the file's name (options.source.file)
// so that a native restore writes each file back. "" for the thread's own file and for a fork,
// whose history_base names another thread.
func segmentOf(path string, meta object, id string) string {
	thread, seg := fileIDs(path)
	if id == "" {
		return ""
	}
	if seg != "" && strings.EqualFold(thread, id) && !strings.EqualFold(seg, id) {
		return seg
	}
	base := parseObject(meta["history_base"])
	if base == nil || !strings.EqualFold(base.Str("thread_id"), id) {
		return ""
	}
	name := strings.TrimPrefix(fileStem(path), "rollout-")
	if t := fileTime(path); !t.IsZero() {
		name = name[:len("2006-01-02T15-04-05")]
	}
	return name
}

// metaFacts are the session_meta keys copied into the session's options.source (the whole line,
// instructions included, is the first system message).
var metaFacts = []string{
	"originator", "cli_version", "source", "thread_source", "model_provider", "session_id",
	"forked_from_id", "parent_thread_id", "agent_nickname", "agent_role", "agent_path",
	"history_mode", "memory_mode", "multi_agent_version", "git",
}

// lineage reads a session_meta's parent: the parent thread of a sub-agent, else the thread a
// fork was forked from. sub reports a sub-agent (source.subagent).
func lineage(meta object, id string) (parent string, sub bool) {
	if meta == nil {
		return "", false
	}
	var spawnedBy string
	if src := parseObject(meta["source"]); src != nil {
		if raw, ok := src["subagent"]; ok {
			sub = true
			if spawn := parseObject(parseObject(raw)["thread_spawn"]); spawn != nil {
				spawnedBy = spawn.Str("parent_thread_id")
			}
		}
	}
	fork, thread := meta.Str("forked_from_id"), meta.Str("parent_thread_id")
	candidates := []string{fork, thread}
	if sub {
		candidates = []string{thread, spawnedBy, fork}
	}
	for _, c := range candidates {
		if c != "" && c != id {
			return c, sub
		}
	}
	return "", sub
}

// fileTime is the local time in a rollout's file name; zero when there is none.
func fileTime(path string) time.Time {
	name, ok := strings.CutPrefix(fileStem(path), "rollout-")
	if !ok || len(name) < len("2006-01-02T15-04-05") {
		return time.Time{}
	}
	t, err := time.ParseInLocation("2006-01-02T15-04-05", name[:len("2006-01-02T15-04-05")], time.Local)
	if err != nil {
		return time.Time{}
	}
	return t
}

// envelopeKeys are the keys a RolloutLine may have.
var envelopeKeys = map[string]bool{"timestamp": true, "type": true, "payload": true, "ordinal": true, "metadata": true}

// record handles one record once the session is decided.
func (p *parser) record(r record) error {
	ts := adapters.Time(r.obj["timestamp"])
	if ts.IsZero() {
		ts = p.st.Last
		if ts.IsZero() {
			ts = p.st.Session.CreatedAt
		}
	} else {
		p.st.Last = ts
	}
	typ := r.obj.Str("type")
	if !isEnveloped(r.obj) {
		return p.bare(r, ts, typ)
	}
	for _, k := range slices.Sorted(maps.Keys(r.obj)) {
		if !envelopeKeys[k] {
			p.unknown(r.no, "record key "+strconv.Quote(k))
		}
	}
	switch typ {
	case "response_item":
		item := payload(r.n)
		if item == nil {
			p.unknown(r.no, "response_item payload that is not an object")
			return p.system(r, ts, "")
		}
		return p.item(r, ts, item)
	case "event_msg":
		p.event(payload(r.n))
		return p.system(r, ts, "")
	case "compacted":
		return p.system(r, ts, payload(r.n).Str("message"))
	case "session_meta", "turn_context", "world_state", "token_usage_record",
		"inter_agent_communication", "inter_agent_communication_metadata":
		return p.system(r, ts, "")
	}
	p.unknown(r.no, "record type "+strconv.Quote(typ))
	return p.system(r, ts, "")
}

// bare handles an un-enveloped line: the legacy header, a legacy state line or a bare item.
func (p *parser) bare(r record, ts time.Time, typ string) error {
	switch {
	case typ != "":
		return p.item(r, ts, r.n)
	case isLegacyHeader(r.obj):
		return p.system(r, ts, "")
	case r.obj.Str("record_type") != "":
		return p.system(r, ts, "")
	}
	p.unknown(r.no, "record without a type")
	return p.system(r, ts, "")
}

// system emits a record that carries no conversation as a system message.
func (p *parser) system(r record, ts time.Time, content string) error {
	return p.emit(r, adapters.RecordID(r.raw), session.RoleSystem, ts, content)
}

// emit emits one record's message and its parts, the session first when this read has not.
func (p *parser) emit(r record, base string, role session.Role, ts time.Time, content string, parts ...session.Part) error {
	sid := p.st.Session.ID
	if !p.emitted {
		s := *p.st.Session
		s.Options = s.Options.Clone()
		if err := p.out.Event(session.Event{Session: &s}); err != nil {
			return fmt.Errorf("%s line %d: %w", p.src.Path, r.no, err)
		}
		p.emitted = true
	}
	id := p.st.IDs.Next(base)
	src := sourceJSON(r.raw, r.no)
	if p.st.Segment != "" {
		id += "@" + p.st.Segment
		src = segmentSourceJSON(r.raw, r.no, filepath.Base(p.src.Path))
	}
	m := &session.Message{
		SessionID: sid, ID: id, Role: role, Timestamp: ts, Content: content,
		Options: session.Options{"source": src},
	}
	if err := p.out.Event(session.Event{Message: m}); err != nil {
		return fmt.Errorf("%s line %d: %w", p.src.Path, r.no, err)
	}
	for i := range parts {
		part := parts[i]
		part.SessionID, part.MessageID = sid, id
		part.ID = id + ":" + strconv.Itoa(i)
		part.Ordinal = i
		if err := p.out.Event(session.Event{Part: &part}); err != nil {
			return fmt.Errorf("%s line %d: %w", p.src.Path, r.no, err)
		}
	}
	return nil
}

// addCall remembers a tool call until its output. A call id met again (a test model reuses
// them) starts afresh: a late end event of the earlier call does not fail this one.
func (p *parser) addCall(id, name string) {
	if id == "" {
		return
	}
	for i := range p.st.Calls {
		if p.st.Calls[i].ID == id {
			p.st.Calls[i] = call{ID: id, Name: name}
			return
		}
	}
	p.st.Calls = append(p.st.Calls, call{ID: id, Name: name})
	p.trimCalls()
}

// trimCalls forgets the oldest calls beyond maxCalls.
func (p *parser) trimCalls() {
	if n := len(p.st.Calls); n > maxCalls {
		p.st.Calls = append(p.st.Calls[:0], p.st.Calls[n-maxCalls:]...)
	}
}

// callFailed records that a call's end event reported a failure.
func (p *parser) callFailed(id string) {
	if id == "" {
		return
	}
	for i := range p.st.Calls {
		if p.st.Calls[i].ID == id {
			p.st.Calls[i].Failed = true
			return
		}
	}
	p.st.Calls = append(p.st.Calls, call{ID: id, Failed: true})
	p.trimCalls()
}

// takeCall forgets a call as its output arrives and returns what was known of it.
func (p *parser) takeCall(id string) call {
	for i := range p.st.Calls {
		if p.st.Calls[i].ID == id {
			c := p.st.Calls[i]
			p.st.Calls = append(p.st.Calls[:i], p.st.Calls[i+1:]...)
			return c
		}
	}
	return call{}
}

// event notes the failures end events report for the tool call they name; the output item
// that carries the result usually follows them.
func (p *parser) event(ev *node) {
	e := ev.Object()
	switch ev.Str("type") {
	case "exec_command_end":
		if n, ok := e.Int("exit_code"); ok && n != 0 {
			p.callFailed(ev.Str("call_id"))
		}
	case "patch_apply_end", "dynamic_tool_call_response":
		if ok, known := e.Bool("success"); known && !ok {
			p.callFailed(ev.Str("call_id"))
		}
	case "mcp_tool_call_end":
		res := ev.Kid("result")
		if _, isErr := res.Object()["Err"]; isErr {
			p.callFailed(ev.Str("call_id"))
		} else if v, _ := res.Kid("Ok").Object().Bool("isError"); v {
			p.callFailed(ev.Str("call_id"))
		}
	case "item_completed":
		item := ev.Kid("item")
		it := item.Object()
		failed := item.Str("status") == "failed"
		switch item.Str("type") {
		case "CommandExecution":
			if n, ok := it.Int("exit_code"); ok && n != 0 {
				failed = true
			}
		case "McpToolCall":
			if v, _ := item.Kid("result").Object().Bool("isError"); v {
				failed = true
			}
		case "FileChange":
		default:
			return
		}
		if failed {
			p.callFailed(item.Str("id"))
		}
	}
}
