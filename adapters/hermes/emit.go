package hermes

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// contentJSONPrefix marks content Hermes stored as JSON (a list of OpenAI content parts).
const contentJSONPrefix = "\x00json:"

// sessionInfo is what a session's record says, from a store or a file.
type sessionInfo struct {
	id, parent, source, cwd string
	modelConfig             string // JSON
	started                 time.Time
	profile                 string
}

// message is one chat message, from a row or a line.
type message struct {
	id         string
	role       string
	content    string
	toolCalls  json.RawMessage
	toolCallID string
	toolName   string
	reasoning  string
	at         time.Time
	injected   bool
	hermes     json.RawMessage // options.hermes
	source     json.RawMessage // options.source
}

// emitter turns one session's records into events.
type emitter struct {
	out  adapters.Emitter
	path string
	sid  string
	last time.Time
	// fallback is the session's start when its records give none: its first message's time
	// when known, else the file's modification time.
	fallback time.Time
}

func newEmitter(out adapters.Emitter, path string) *emitter {
	e := &emitter{out: out, path: path}
	if info, err := os.Stat(path); err == nil {
		e.fallback = info.ModTime().UTC()
	}
	return e
}

// delegateFrom is the model_config key delegate_task sets on the sessions of the sub-agents it
// starts: the parent's id, kept when a deleted parent orphans the child.
const delegateFrom = "_delegate_from"

// lineage is the kind of a child session, and its SourceAgent, from the child's own row (so a
// session restored without its parent reads as it did): a sub-agent runs with the platform
// "subagent" (delegate_task; the session's source unless the gateway set another, so its
// model_config's _delegate_from tells too) or the source "tool"; a branch or a reset carries its marker in
// model_config; any other child is the continuation Hermes starts when it compresses a session
// into a new one.
func lineage(in sessionInfo) (kind, agent string) {
	var mc map[string]json.RawMessage
	_ = json.Unmarshal([]byte(in.modelConfig), &mc)
	if in.source == "tool" || in.source == "subagent" || mc[delegateFrom] != nil {
		return "subagent", SubagentKind
	}
	if in.parent == "" {
		return "", Name
	}
	switch {
	case mc["_branched_from"] != nil:
		return "branch", Name
	case mc["_reset_from"] != nil:
		return "reset", Name
	}
	return "continuation", Name
}

func (e *emitter) session(in sessionInfo, src json.RawMessage) error {
	if in.started.IsZero() {
		in.started = e.fallback
	}
	e.sid, e.last = in.id, in.started
	kind, agent := lineage(in)
	var mc map[string]json.RawMessage
	_ = json.Unmarshal([]byte(in.modelConfig), &mc)
	project := in.cwd
	if project == "" {
		project = adapters.Str(mc["cwd"])
	}
	if project == "" {
		project = "hermes:" + in.profile
	}
	fields := []adapters.Field{{Key: "profile", Value: adapters.String(in.profile)}}
	if kind != "" {
		fields = append(fields, adapters.Field{Key: "lineage", Value: adapters.String(kind)})
	}
	if in.source != "" {
		fields = append(fields, adapters.Field{Key: "source", Value: adapters.String(in.source)})
	}
	s := session.Session{
		ID:          in.id,
		SourceAgent: agent,
		Project:     project,
		CreatedAt:   in.started,
		Options:     session.Options{"hermes": adapters.Object(fields...)},
	}
	if src != nil {
		s.Options["source"] = src
	}
	if session.CheckID(in.parent) == nil {
		s.ParentSessionID = in.parent
	}
	if mark := mc["pond_restored_from"]; mark != nil {
		adapters.ApplyRestoreMark(&s, mark)
	}
	return e.out.Event(session.Event{Session: &s})
}

// message emits one message and its parts.
func (e *emitter) message(m message, at adapters.Location) error {
	// Hermes's order is its row ids' (a clock that steps back must not reorder a tool call
	// after its result), and the store orders messages by time, then id: a time before the
	// previous message's is read as that time, and ids sort in Hermes's order.
	if m.at.IsZero() || m.at.Before(e.last) {
		m.at = e.last
	}
	e.last = m.at
	msg := session.Message{SessionID: e.sid, ID: m.id, Timestamp: m.at, Options: session.Options{"source": m.source}}
	if len(m.hermes) > 0 {
		msg.Options["hermes"] = m.hermes
	}
	var parts []session.Part
	prov := session.Conversational
	if m.injected {
		prov = session.Injected
	}
	add := func(p session.Part) {
		p.SessionID, p.MessageID, p.Ordinal = e.sid, m.id, len(parts)
		p.ID = m.id + ":" + strconv.Itoa(len(parts))
		if p.Provenance == "" {
			p.Provenance = prov
		}
		parts = append(parts, p)
	}
	switch m.role {
	case "user", "assistant":
		msg.Role = session.Role(m.role)
		if m.reasoning != "" {
			add(session.Part{Type: session.PartReasoning, Text: m.reasoning})
		}
		for _, p := range contentParts(m.content, e.out, at) {
			add(p)
		}
		if len(m.toolCalls) > 0 {
			calls, err := toolCalls(m.toolCalls)
			if err != nil {
				e.out.Malformed(at, fmt.Errorf("tool_calls: %w", err))
			}
			for _, c := range calls {
				add(c)
			}
		}
	case "tool":
		msg.Role = session.RoleTool
		add(session.Part{Type: session.PartToolResult, CallID: m.toolCallID, Name: m.toolName, Result: adapters.String(m.content), IsFailure: toolFailed(m.content)})
	case "system":
		msg.Role, msg.Content = session.RoleSystem, m.content
	default:
		msg.Role = session.RoleSystem
		e.out.Unknown(at, "role "+strconv.Quote(m.role))
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

// contentParts are a message's content as parts: plain text, or Hermes's JSON-encoded list of
// OpenAI content parts.
func contentParts(content string, out adapters.Emitter, at adapters.Location) []session.Part {
	raw, isJSON := strings.CutPrefix(content, contentJSONPrefix)
	if !isJSON {
		if strings.TrimSpace(content) == "" {
			return nil
		}
		return []session.Part{{Type: session.PartText, Text: content}}
	}
	return partsOf(json.RawMessage(raw), out, at)
}

// partsOf maps a JSON content value (a string, or a list of content parts) to parts.
func partsOf(raw json.RawMessage, out adapters.Emitter, at adapters.Location) []session.Part {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return nil
		}
		return []session.Part{{Type: session.PartText, Text: s}}
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return []session.Part{{Type: session.PartText, Text: string(raw)}}
	}
	var parts []session.Part
	for _, it := range items {
		var p struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		_ = json.Unmarshal(it, &p)
		switch {
		case p.Type == "text" || p.Type == "input_text":
			parts = append(parts, session.Part{Type: session.PartText, Text: p.Text})
		case p.Type == "image_url" && p.ImageURL.URL != "":
			parts = append(parts, session.Part{Type: session.PartFile, MediaType: mediaOf(p.ImageURL.URL),
				Data: &session.FileData{Kind: session.FileURL, Value: p.ImageURL.URL}})
		default:
			out.Unknown(at, "content part "+strconv.Quote(p.Type))
			parts = append(parts, session.Part{Type: session.PartText, Text: string(it)})
		}
	}
	return parts
}

// mediaOf is a data: URL's media type, else an image's.
func mediaOf(url string) string {
	if rest, ok := strings.CutPrefix(url, "data:"); ok {
		if mt, _, ok := strings.Cut(rest, ";"); ok && mt != "" {
			return mt
		}
	}
	return "image/*"
}

// toolCalls maps OpenAI tool_calls to tool_call parts.
// toolFailed says whether a tool row holds the answer Hermes's tool registry gives a failed
// call: a JSON object with an "error" message (tools/registry.py's tool_error, and what
// dispatch returns for an exception or an unknown tool).
func toolFailed(content string) bool {
	if !strings.HasPrefix(strings.TrimSpace(content), "{") {
		return false
	}
	var v struct {
		Error any `json:"error"`
	}
	if json.Unmarshal([]byte(content), &v) != nil {
		return false
	}
	msg, ok := v.Error.(string)
	return ok && msg != ""
}

func toolCalls(raw json.RawMessage) ([]session.Part, error) {
	var calls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &calls); err != nil {
		return nil, err
	}
	var out []session.Part
	for _, c := range calls {
		params := c.Function.Arguments
		var s string
		if json.Unmarshal(params, &s) == nil {
			// Arguments are a JSON document in a string; kept as a string when not JSON.
			if json.Valid([]byte(s)) && strings.TrimSpace(s) != "" {
				params = json.RawMessage(s)
			} else {
				params = adapters.String(s)
			}
		}
		if len(params) == 0 {
			params = json.RawMessage(`{}`)
		}
		out = append(out, session.Part{Type: session.PartToolCall, CallID: c.ID, Name: c.Function.Name, Params: params})
	}
	return out, nil
}

// epoch is a REAL (or INTEGER) unix time in seconds; zero for anything else.
func epoch(v any) time.Time {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int64:
		f = float64(x)
	case string:
		return parseTime(x)
	default:
		return time.Time{}
	}
	if f <= 0 || math.IsNaN(f) || f > 1e11 {
		return time.Time{}
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3).UTC()
}

// parseTime reads the times of session files: RFC 3339, or a naive ISO time (local time in
// Hermes; read as UTC, since the machine's zone at capture says nothing about the writer's).
func parseTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return epoch(f)
	}
	return time.Time{}
}
