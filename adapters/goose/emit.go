package goose

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// markKey is where a foreign restore leaves its mark: a key of the session's extension_data,
// in goose's "<extension>.<version>" form (goose keeps keys it does not know).
const markKey = "pond_restored_from.v0"

// readDB reads one session of the database.
func readDB(ctx context.Context, env adapters.Env, src adapters.Source, out adapters.Emitter) error {
	s, err := loadDB(ctx, env, src.Path, src.Hint)
	if err != nil {
		return fmt.Errorf("goose: read %s: %w", src.Key, err)
	}
	if s == nil {
		return nil
	}
	str := func(k string) string { v, _ := s.get(k).(string); return v }
	sid := src.Hint
	var first time.Time
	if len(s.msgs) > 0 {
		if j := adapters.Column(s.msgCols, "created_timestamp"); j >= 0 {
			first = epoch(s.msgs[0][j])
		}
	}
	started := parseTime(str("created_at"))
	if started.IsZero() {
		started = first
	}
	if started.IsZero() {
		if info, err := os.Stat(src.Path); err == nil {
			started = info.ModTime().UTC()
		}
	}
	project := str("working_dir")
	if project == "" {
		project = "goose:" + sid
	}
	// Every type is read; goose's own reader takes a missing column (before v5) for "user".
	kind := "user"
	if adapters.Column(s.cols, "session_type") >= 0 {
		kind = str("session_type")
	}
	agent := Name
	if kind == "sub_agent" {
		agent = SubagentKind
	}
	fields := []adapters.Field{{Key: "session_type", Value: adapters.String(kind)}}
	if n := str("name"); n != "" {
		fields = append(fields, adapters.Field{Key: "name", Value: adapters.String(n)})
	}
	if a := str("archived_at"); a != "" {
		fields = append(fields, adapters.Field{Key: "archived", Value: json.RawMessage(`true`)})
	}
	sess := session.Session{
		ID:          sid,
		SourceAgent: agent,
		Project:     project,
		CreatedAt:   started,
		Options: session.Options{
			"goose": adapters.Object(fields...),
			"source": adapters.Object(
				adapters.Field{Key: "db", Value: adapters.String(dbRel)},
				adapters.Field{Key: "table", Value: adapters.String("sessions")},
				adapters.Field{Key: "record", Value: adapters.RowJSON(s.cols, s.row)},
			),
		},
	}
	if p := str("parent_session_id"); session.CheckID(p) == nil {
		sess.ParentSessionID = p
	}
	if ext := str("extension_data"); ext != "" {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(ext), &m) == nil && m[markKey] != nil {
			adapters.ApplyRestoreMark(&sess, m[markKey])
		}
	}
	if err := out.Event(session.Event{Session: &sess}); err != nil {
		return err
	}
	e := &emitter{out: out, sid: sid, start: started, names: map[string]string{}}
	for i, vals := range s.msgs {
		if err := e.message(src, s.msgCols, vals, i+1); err != nil {
			return err
		}
	}
	return nil
}

// emitter turns one session's rows into events.
type emitter struct {
	out   adapters.Emitter
	sid   string
	start time.Time         // the session's, for a first row without a time
	last  time.Time         // the previous row's
	names map[string]string // tool call id → tool name, for the responses
}

// blockShape reads a message's content_json (a list of blocks, as goose serialises
// MessageContent: tagged by "type", camel-case fields) in one pass, with each block's tool call
// or result and, in a result, its value and that value's content list read along; the rest of
// a block stays as written, read with the accessors.
var blockShape = &adapters.Shape{Members: map[string]*adapters.Shape{
	"toolCall":   resultShape,
	"toolResult": resultShape,
}}

// resultShape reads goose's serialised Result: {"status":"success","value":…} or
// {"status":"error","error":"…"}; a tool call's value is {name, arguments}, a tool response's
// {content, isError} (old goose: the content list itself).
var resultShape = &adapters.Shape{Members: map[string]*adapters.Shape{
	"value": {Members: map[string]*adapters.Shape{"content": {}}},
}}

// known are the block types goose writes (and "reasoning", which older goose wrote and newer
// reads as thinking).
var known = map[string]bool{
	"text": true, "image": true, "toolRequest": true, "toolResponse": true,
	"toolConfirmationRequest": true, "actionRequired": true, "frontendToolRequest": true,
	"thinking": true, "redactedThinking": true, "systemNotification": true, "reasoning": true,
	"conversationCompacted": true,
}

// message emits one messages row and its parts.
func (e *emitter) message(src adapters.Source, cols []string, vals []any, line int) error {
	get := func(k string) any {
		if j := adapters.Column(cols, k); j >= 0 {
			return vals[j]
		}
		return nil
	}
	rowID, _ := get("id").(int64)
	id := fmt.Sprintf("%012d", rowID)
	at := adapters.Location{Path: src.Path + "#" + src.Hint + ":" + id}
	role, _ := get("role").(string)
	content, _ := get("content_json").(string)
	userVisible, agentVisible := true, true
	if m, ok := get("metadata_json").(string); ok && m != "" {
		var md struct {
			UserVisible  *bool `json:"userVisible"`
			AgentVisible *bool `json:"agentVisible"`
		}
		if err := json.Unmarshal([]byte(m), &md); err != nil {
			e.out.Malformed(at, fmt.Errorf("metadata_json: %w", err))
		}
		if md.UserVisible != nil {
			userVisible = *md.UserVisible
		}
		if md.AgentVisible != nil {
			agentVisible = *md.AgentVisible
		}
	}
	ts := epoch(get("created_timestamp"))
	if ts.IsZero() && e.last.IsZero() {
		ts = e.start
	}
	if ts.IsZero() || ts.Before(e.last) {
		// goose's order is (created_timestamp, id) and the store's (time, id): a row out of
		// time order (an old millisecond stamp, a clock that stepped back) takes the previous
		// row's time, so both orders agree.
		ts = e.last
	}
	e.last = ts
	msg := session.Message{SessionID: e.sid, ID: id, Timestamp: ts, Options: session.Options{
		"goose": adapters.Object(
			adapters.Field{Key: "user_visible", Value: boolJSON(userVisible)},
			adapters.Field{Key: "agent_visible", Value: boolJSON(agentVisible)},
		),
		"source": adapters.Object(
			adapters.Field{Key: "db", Value: adapters.String(dbRel)},
			adapters.Field{Key: "table", Value: adapters.String("messages")},
			adapters.Field{Key: "line", Value: json.RawMessage(strconv.Itoa(line))},
			adapters.Field{Key: "record", Value: adapters.RowJSON(cols, vals)},
		),
	}}
	prov := session.Conversational
	if !userVisible {
		prov = session.Injected // what goose puts in for the model only (turn context, summaries)
	}
	var parts []session.Part
	add := func(p session.Part) {
		p.SessionID, p.MessageID, p.Ordinal = e.sid, id, len(parts)
		p.ID = id + ":" + strconv.Itoa(len(parts))
		if p.Provenance == "" {
			p.Provenance = prov
		}
		parts = append(parts, p)
	}
	var blocks []*adapters.Node
	if doc, err := adapters.ReadNode([]byte(content), blockShape); err != nil {
		e.out.Malformed(at, fmt.Errorf("content_json: %w", err))
	} else if blocks = doc.List(); blocks == nil && doc.Kind() != 'n' {
		e.out.Malformed(at, errors.New("content_json: not a JSON list"))
	}
	results := 0
	for _, b := range blocks {
		if k := b.Kind(); k != '{' && k != 'n' {
			e.out.Malformed(at, errors.New("content block: not a JSON object"))
			continue
		}
		switch typ := b.Str("type"); typ {
		case "text":
			if t := b.Str("text"); strings.TrimSpace(t) != "" {
				add(session.Part{Type: session.PartText, Text: t})
			}
		case "thinking", "reasoning":
			t := b.Str("thinking")
			if typ == "reasoning" {
				t = b.Str("text")
			}
			if strings.TrimSpace(t) != "" {
				add(session.Part{Type: session.PartReasoning, Text: t})
			}
		case "image":
			if data := b.Str("data"); data != "" {
				mt := b.Str("mimeType")
				if mt == "" {
					mt = "image/*"
				}
				add(session.Part{Type: session.PartFile, MediaType: mt, Data: &session.FileData{Kind: session.FileURL, Value: "data:" + mt + ";base64," + data}})
			}
		case "toolRequest", "frontendToolRequest":
			id := b.Str("id")
			name, params := callOf(b.Kid("toolCall"))
			e.names[id] = name
			add(session.Part{Type: session.PartToolCall, CallID: id, Name: name, Params: params})
		case "toolResponse":
			id := b.Str("id")
			res, failed := resultOf(b.Kid("toolResult"))
			results++
			add(session.Part{Type: session.PartToolResult, CallID: id, Name: e.names[id], Result: res, IsFailure: failed})
		default:
			if !known[typ] {
				e.out.Unknown(at, "content block "+strconv.Quote(typ))
			}
		}
	}
	switch {
	case len(parts) == 0:
		msg.Role = session.RoleSystem
	case results == len(parts):
		msg.Role = session.RoleTool
	case role == "user" || role == "assistant":
		msg.Role = session.Role(role)
	default:
		msg.Role = session.RoleSystem
		e.out.Unknown(at, "role "+strconv.Quote(role))
		parts = nil
	}
	if err := e.out.Event(session.Event{Message: &msg}); err != nil {
		return err
	}
	for i := range parts {
		if err := e.out.Event(session.Event{Part: &parts[i]}); err != nil {
			return err
		}
	}
	return nil
}

// callOf is a tool request's name and arguments; a request goose could not parse keeps its
// error as the params.
func callOf(r *adapters.Node) (string, json.RawMessage) {
	if r.Object() == nil {
		return "", json.RawMessage(`{}`)
	}
	if r.Str("status") == "error" {
		return "", adapters.Object(adapters.Field{Key: "error", Value: adapters.String(r.Str("error"))})
	}
	v := r.Kid("value")
	args := adapters.Value(v.Object()["arguments"])
	if args == nil {
		args = json.RawMessage(`{}`)
	}
	return v.Str("name"), args
}

// resultOf is a tool response's result: the text of its content when it is all text (the
// common case, and what search reads), else the content list (compact, as encoding/json writes
// it); and whether it failed (an error status, or isError).
func resultOf(r *adapters.Node) (json.RawMessage, bool) {
	if r.Object() == nil {
		return adapters.String(""), false
	}
	if r.Str("status") == "error" {
		return adapters.String(r.Str("error")), true
	}
	v := r.Kid("value")
	var content []*adapters.Node
	isError := false
	switch v.Kind() {
	case '{':
		c := v.Kid("content")
		if content = c.List(); content == nil && c.Kind() != 'n' && c.Kind() != 0 {
			return v.Raw, false
		}
		isError, _ = v.Object().Bool("isError")
	case '[':
		content = v.List() // old goose wrote the content list itself as the value
	case 'n':
	default:
		return r.Object()["value"], false
	}
	var texts []string
	for _, c := range content {
		text := c.Object()["text"]
		if c.Kind() != '{' || c.Str("type") != "text" || !adapters.IsNull(text) && adapters.Kind(text) != '"' {
			raws := make([]json.RawMessage, len(content))
			for i, c := range content {
				raws[i] = c.Raw
			}
			b, _ := json.Marshal(raws)
			return b, isError
		}
		texts = append(texts, adapters.Str(text))
	}
	return adapters.String(strings.Join(texts, "\n")), isError
}

func boolJSON(b bool) json.RawMessage {
	if b {
		return json.RawMessage(`true`)
	}
	return json.RawMessage(`false`)
}

// millisThreshold is goose's MILLISECOND_TIMESTAMP_THRESHOLD: a created_timestamp above it is in
// milliseconds.
const millisThreshold = 10_000_000_000

// epoch is a created_timestamp (seconds, or milliseconds above millisThreshold); zero for
// anything else.
func epoch(v any) time.Time {
	n, ok := v.(int64)
	if !ok {
		if f, isF := v.(float64); isF {
			n, ok = int64(f), true
		}
	}
	if !ok || n <= 0 {
		return time.Time{}
	}
	if n > millisThreshold {
		if n > millisThreshold*10000 {
			return time.Time{}
		}
		return time.UnixMilli(n).UTC()
	}
	return time.Unix(n, 0).UTC()
}

// parseTime reads a TIMESTAMP column: SQLite's CURRENT_TIMESTAMP ("2006-01-02 15:04:05", UTC),
// or RFC 3339 as sqlx binds a chrono time.
func parseTime(s string) time.Time {
	for _, layout := range []string{"2006-01-02 15:04:05", time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
