package hermes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

// sessionFile is a session file found by a scan: a gateway transcript or a legacy snapshot.
type sessionFile struct {
	src   adapters.Source
	id    string
	count int // its messages, to pick the richer copy
}

// scanFiles lists the session files of one profile's sessions folder (rel: relative to the
// root): <id>.jsonl and session_<id>.json.
func scanFiles(dir, rel string) ([]sessionFile, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("hermes: scan %s: %w", dir, err)
	}
	var out []sessionFile
	for _, e := range ents {
		n := e.Name()
		var id string
		switch {
		case strings.HasSuffix(n, ".jsonl"):
			id = strings.TrimSuffix(n, ".jsonl")
		case strings.HasPrefix(n, "session_") && strings.HasSuffix(n, ".json"):
			id = strings.TrimSuffix(strings.TrimPrefix(n, "session_"), ".json")
		default:
			continue
		}
		path := filepath.Join(dir, n)
		info, err := os.Stat(path)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		f := sessionFile{id: id, src: adapters.Source{Key: rel + "/" + n, Path: path, Stamp: adapters.FileStamp(info), Size: info.Size(), ModTime: info.ModTime()}}
		if data, err := adapters.ReadFile(path, adapters.DefaultMaxLineBytes); err == nil {
			if strings.HasSuffix(n, ".jsonl") {
				f.count = bytes.Count(data, []byte("\n")) - 1
			} else {
				var doc struct {
					SessionID string            `json:"session_id"`
					Messages  []json.RawMessage `json:"messages"`
				}
				if json.Unmarshal(data, &doc) == nil {
					f.count = len(doc.Messages)
					if session.CheckID(doc.SessionID) == nil {
						f.id = doc.SessionID
					}
				}
			}
		}
		f.src.Hint = f.id
		out = append(out, f)
	}
	return out, nil
}

// fileMessage is a message of a session file: an OpenAI chat message as Hermes keeps it.
type fileMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  json.RawMessage `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	ToolName   string          `json:"tool_name"`
	Name       string          `json:"name"`
	Reasoning  string          `json:"reasoning"`
	Timestamp  json.RawMessage `json:"timestamp"`
	Summary    json.RawMessage `json:"_compressed_summary"`
}

func (f fileMessage) message(id string) message {
	m := message{id: id, role: f.Role, toolCallID: f.ToolCallID, toolName: f.ToolName, reasoning: f.Reasoning}
	if m.toolName == "" {
		m.toolName = f.Name
	}
	if s, ok := stringOf(f.Content); ok {
		m.content = s
	} else if len(f.Content) > 0 && !adapters.IsNull(f.Content) {
		m.content = contentJSONPrefix + string(f.Content)
	}
	if len(f.ToolCalls) > 0 && !adapters.IsNull(f.ToolCalls) {
		m.toolCalls = f.ToolCalls
	}
	if x, ok := adapters.Float(f.Timestamp); ok {
		m.at = epoch(x)
	} else if s, ok := stringOf(f.Timestamp); ok {
		m.at = parseTime(s)
	}
	b, _ := adapters.Bool(f.Summary)
	m.injected = b || adapters.Str(f.Summary) != ""
	return m
}

func stringOf(raw json.RawMessage) (string, bool) {
	if adapters.Kind(raw) != '"' {
		return "", false
	}
	return adapters.Str(raw), true
}

// fileSession reads the session fields of a snapshot or a session_meta line.
type fileSession struct {
	SessionID    string          `json:"session_id"`
	Platform     string          `json:"platform"`
	Source       string          `json:"source"`
	Cwd          string          `json:"cwd"`
	ModelConfig  json.RawMessage `json:"model_config"`
	SessionStart json.RawMessage `json:"session_start"`
	Timestamp    json.RawMessage `json:"timestamp"`
	Parent       string          `json:"parent_session_id"`
}

func (f fileSession) info(id, profile string) sessionInfo {
	in := sessionInfo{id: id, parent: f.Parent, source: f.Source, cwd: f.Cwd, profile: profile}
	if in.source == "" {
		in.source = f.Platform
	}
	if adapters.Kind(f.ModelConfig) == '{' {
		in.modelConfig = string(f.ModelConfig)
	}
	for _, t := range []json.RawMessage{f.SessionStart, f.Timestamp} {
		if s, ok := stringOf(t); ok && in.started.IsZero() {
			in.started = parseTime(s)
		} else if x, ok := adapters.Float(t); ok && in.started.IsZero() {
			in.started = epoch(x)
		}
	}
	return in
}

// fileID names a record of a session file: its place among the file's messages (so that ids
// sort in the file's order, which messages without a time of their own keep; a malformed record
// takes no place, so one more or less never renames the rest) and a digest of it.
func fileID(at int, raw []byte) string { return fmt.Sprintf("%06d-%s", at, adapters.Digest(raw)[:8]) }

// jsonlStateVersion changes whenever jsonlState does; a cursor of another version, or of none,
// is read from the start. (1 was a state that did not re-emit the session; never kept.)
const jsonlStateVersion = 2

// jsonlState is what a read of a gateway transcript going on from its cursor needs to give the
// new lines what a read of the whole file gives them, kept in Cursor.State: a few fixed-size
// facts, however long the transcript grows. The session itself is not kept: it is the file's
// first record's, read again (the bytes before the cursor are unchanged, which adapters/jsonl
// checks), so a session_meta line with every tool's schema never lands in the cursor.
type jsonlState struct {
	V int `json:"v"`
	// ID is the session the lines belong to once a record started it, else empty.
	ID string `json:"id,omitempty"`
	// Last is the time of the last message read, which a message without one of its own takes.
	Last time.Time `json:"last,omitzero"`
	// Count is how many messages were read: the next one's place in its id (fileID).
	Count int `json:"count,omitempty"`
}

// readJSONL reads a gateway transcript: a session_meta line, then one message a line. Hermes
// only appends to it (gateway/session.py), so a read goes on after the last whole line read
// before, with jsonlState in the cursor; adapters/jsonl starts over when the bytes before the
// cursor changed (a transcript rewritten, as /retry, /undo and /compress do, or cut short), and
// leaves a half-written last line for the next read. A read going on emits the session again
// (from the first record) before its first new message. Which copy of a session is read, this
// file or its store's rows, Scan decides from the whole file's message count each time,
// whatever was read of it before.
func readJSONL(ctx context.Context, src adapters.Source, cur adapters.Cursor, lim adapters.Limits, out adapters.Emitter) (adapters.Cursor, error) {
	var st jsonlState
	if len(cur.State) == 0 || json.Unmarshal(cur.State, &st) != nil || st.V != jsonlStateVersion || st.ID != "" && st.ID != src.Hint {
		cur, st = adapters.Cursor{}, jsonlState{} // not a state this reader wrote for this file
	}
	jf, err := jsonl.Open(src.Path, cur, lim)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("hermes: read %s: %w", src.Path, err)
	}
	defer func() { jf.Close() }()
	// first is the record that started the session, when a read before this one met it.
	var first []byte
	firstLine := 0
	if !jf.Resumed() {
		st = jsonlState{}
	} else if st.ID != "" {
		if first, firstLine, err = firstRecord(ctx, src.Path, lim); err != nil {
			return adapters.Cursor{}, fmt.Errorf("hermes: read %s: %w", src.Path, err)
		}
		if first == nil { // cannot be while the bytes before the cursor hold: read it whole
			jf.Close()
			if jf, err = jsonl.Open(src.Path, adapters.Cursor{}, lim); err != nil {
				return adapters.Cursor{}, fmt.Errorf("hermes: read %s: %w", src.Path, err)
			}
			st = jsonlState{}
		}
	}
	rel := relOf(src.Key)
	e := newEmitter(out, src.Path)
	started := false // the session was emitted in this read
	state := func() (json.RawMessage, bool) {
		s := jsonlState{V: jsonlStateVersion, Count: st.Count}
		if started || st.ID != "" {
			s.ID, s.Last = src.Hint, e.last
		}
		b, err := json.Marshal(s)
		return b, err == nil
	}
	if st.ID != "" {
		e.last = st.Last // until the session is emitted again, for a checkpoint before it
	}
	jf.Checkpoints(out, state)
	next, err := jf.Lines(ctx, func(line []byte, n int) error {
		at := adapters.Location{Path: src.Path, Line: n}
		if !isRecord(line) {
			out.Malformed(at, errors.New("not a JSON object"))
			return nil
		}
		var fm fileMessage
		_ = json.Unmarshal(line, &fm)
		if !started {
			started = true
			if first == nil { // this line starts the session
				meta, err := startSession(e, line, n, rel, src.Hint)
				if err != nil || meta {
					return err
				}
			} else { // the session a read before began, emitted again before the new lines
				if _, err := startSession(e, first, firstLine, rel, src.Hint); err != nil {
					return err
				}
				e.last = st.Last
			}
		}
		st.Count++
		m := fm.message(fileID(st.Count, line))
		m.source = sourceOf(rel, n, line)
		if fm.Role == "session_meta" {
			m.role = "system"
		}
		return e.message(m, at)
	}, out.Malformed)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("hermes: read %s: %w", src.Path, err)
	}
	next.Stamp = src.Stamp
	next.State, _ = state()
	return next, nil
}

// isRecord says whether a transcript line is a record: a JSON object (anything else is
// reported malformed and takes no place among the messages).
func isRecord(line []byte) bool { return json.Valid(line) && adapters.Kind(line) == '{' }

// sourceOf is a transcript record's options.source: the file, the line and the record as written.
func sourceOf(rel string, n int, line []byte) json.RawMessage {
	return adapters.Object(
		adapters.Field{Key: "file", Value: adapters.String(rel)},
		adapters.Field{Key: "line", Value: json.RawMessage(strconv.Itoa(n))},
		adapters.Field{Key: "record", Value: json.RawMessage(line)},
	)
}

// startSession emits the session a transcript's first record (line n) starts: a session_meta
// line is the session (meta true: not a message), any other record's time is its start.
func startSession(e *emitter, line []byte, n int, rel, id string) (meta bool, err error) {
	var fm fileMessage
	_ = json.Unmarshal(line, &fm)
	var fs fileSession
	_ = json.Unmarshal(line, &fs)
	info := fs.info(id, profileOf(rel))
	if fm.Role == "session_meta" {
		return true, e.session(info, sourceOf(rel, n, line))
	}
	info.started = fm.message("").at
	return false, e.session(info, nil)
}

// errFound ends firstRecord's walk at the record it looks for.
var errFound = errors.New("found")

// firstRecord is a transcript's first record and its line number, as a read of the whole file
// meets it (malformed lines and lines over the cap passed over); nil when it holds none.
func firstRecord(ctx context.Context, path string, lim adapters.Limits) ([]byte, int, error) {
	jf, err := jsonl.Open(path, adapters.Cursor{}, lim)
	if err != nil {
		return nil, 0, err
	}
	defer jf.Close()
	var first []byte
	no := 0
	_, err = jf.Lines(ctx, func(line []byte, n int) error {
		if !isRecord(line) {
			return nil
		}
		first, no = line, n
		return errFound
	}, nil)
	if err != nil && !errors.Is(err, errFound) {
		return nil, 0, err
	}
	return first, no, nil
}

// readSnapshot reads a legacy session_<id>.json: the document is kept whole on the session,
// each message points at its place in it.
func readSnapshot(src adapters.Source, lim adapters.Limits, out adapters.Emitter) error {
	data, err := adapters.ReadFile(src.Path, lim.Line())
	if errors.Is(err, adapters.ErrTooLarge) {
		out.Malformed(adapters.Location{Path: src.Path}, err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("hermes: read %s: %w", src.Path, err)
	}
	var doc struct {
		fileSession
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || adapters.Kind(data) != '{' {
		out.Malformed(adapters.Location{Path: src.Path}, fmt.Errorf("not a session snapshot: %v", err))
		return nil
	}
	rel := relOf(src.Key)
	e := newEmitter(out, src.Path)
	info := doc.info(src.Hint, profileOf(rel))
	if err := e.session(info, adapters.Object(
		adapters.Field{Key: "file", Value: adapters.String(rel)},
		adapters.Field{Key: "record", Value: json.RawMessage(bytes.TrimSpace(data))},
	)); err != nil {
		return err
	}
	count := 0
	for i, raw := range doc.Messages {
		at := adapters.Location{Path: src.Path, Line: i + 1}
		var fm fileMessage
		if adapters.Kind(raw) != '{' || json.Unmarshal(raw, &fm) != nil {
			out.Malformed(at, errors.New("message is not a JSON object"))
			continue
		}
		count++
		m := fm.message(fileID(count, raw))
		m.source = adapters.Object(
			adapters.Field{Key: "file", Value: adapters.String(rel)},
			adapters.Field{Key: "index", Value: json.RawMessage(strconv.Itoa(i))},
		)
		if err := e.message(m, at); err != nil {
			return err
		}
	}
	return nil
}

// relOf is the file a source key names, relative to the root.
func relOf(key string) string {
	rel, _, _ := strings.Cut(key, "#")
	return rel
}
