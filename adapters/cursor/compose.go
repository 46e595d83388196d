package cursor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// noWorkspace is the project of a composer no workspace lists and whose bubbles name no folder:
// the global database's own key for chats opened without a folder.
const noWorkspace = "cursor:no-workspace"

// kv is one cursorDiskKV row.
type kv struct {
	key   string
	value []byte
}

// composer is everything one pass reads of one composer: its record, its bubbles in key order,
// and what the workspaces and headers say of it.
type composer struct {
	id      string
	db      string // the database's path, for locations
	record  []byte // composerData value; nil when the database holds only bubbles
	bubbles []kv
	// From the links (workspaces and headers), not from the record.
	project   string // the workspace folder; "" when no workspace lists the composer
	workspace string // the workspaceStorage folder's name
	parent    string
	sub       bool            // the headers mark it a sub-agent
	header    json.RawMessage // its composerHeaders entry, verbatim
	fallback  time.Time       // created_at when neither record nor bubbles carry a time
}

var (
	textShape     = &adapters.Shape{Text: true}
	bubbleShape   = &adapters.Shape{Members: map[string]*adapters.Shape{"text": textShape, "thinking": {}, "toolFormerData": {Members: map[string]*adapters.Shape{"additionalData": {}}}}}
	composerShape = &adapters.Shape{Members: map[string]*adapters.Shape{"fullConversationHeadersOnly": {}, "conversation": bubbleShape, "subComposerIds": {}}}
)

// bubble is one message's record: a cursorDiskKV row, or an element of an old build's inline
// conversation.
type bubble struct {
	id     string
	node   *adapters.Node
	source json.RawMessage // options.source
	loc    adapters.Location
}

// emitComposer emits one composer as a session and returns the sub-agents its record names.
// The record and each bubble are kept verbatim under options.source.record; a record or bubble
// that is not a JSON object is reported and skipped.
func emitComposer(c *composer, out adapters.Emitter) ([]string, error) {
	at := func(key string) adapters.Location { return adapters.Location{Path: c.db + "#" + key} }
	var rec *adapters.Node
	if c.record != nil {
		n, err := adapters.ReadObject(c.record, composerShape)
		if err != nil {
			out.Malformed(at(composerPrefix+c.id), fmt.Errorf("composer record: %w", err))
		} else {
			rec = n
		}
	}

	// The bubbles: the rows, then the order the record gives them.
	rows := map[string]*bubble{}
	var rowOrder []string
	prefix := bubblePrefix + c.id + ":"
	for _, r := range c.bubbles {
		id := strings.TrimPrefix(r.key, prefix)
		if id == "" || id == r.key {
			out.Malformed(at(r.key), fmt.Errorf("bubble key without a bubble id"))
			continue
		}
		n, err := adapters.ReadObject(r.value, bubbleShape)
		if err != nil {
			out.Malformed(at(r.key), fmt.Errorf("bubble: %w", err))
			continue
		}
		rows[id] = &bubble{id: id, node: n, loc: at(r.key), source: adapters.Object(
			adapters.Field{Key: "table", Value: adapters.String("cursorDiskKV")},
			adapters.Field{Key: "key", Value: adapters.String(r.key)},
			adapters.Field{Key: "record", Value: r.value},
		)}
		rowOrder = append(rowOrder, id)
	}
	var ordered []*bubble
	used := map[string]bool{}
	for _, h := range rec.Kid("fullConversationHeadersOnly").List() {
		id := h.Str("bubbleId")
		if b := rows[id]; b != nil && !used[id] {
			used[id] = true
			ordered = append(ordered, b)
		}
	}
	for i, n := range rec.Kid("conversation").List() {
		if n.Members == nil {
			out.Malformed(at(composerPrefix+c.id), fmt.Errorf("conversation[%d] is not an object", i))
			continue
		}
		id := n.Str("bubbleId")
		if id == "" {
			id = adapters.RecordID(n.Raw)
		}
		if used[id] {
			continue // the same bubble as a row of its own, read already
		}
		if b := rows[id]; b != nil {
			used[id] = true
			ordered = append(ordered, b) // a row supersedes its inline copy, which stays in the record
			continue
		}
		ordered = append(ordered, &bubble{id: id, node: n, loc: at(composerPrefix + c.id), source: adapters.Object(
			adapters.Field{Key: "table", Value: adapters.String("cursorDiskKV")},
			adapters.Field{Key: "key", Value: adapters.String(composerPrefix + c.id)},
			adapters.Field{Key: "field", Value: adapters.String("conversation")},
			adapters.Field{Key: "index", Value: json.RawMessage(strconv.Itoa(i))},
			adapters.Field{Key: "record", Value: n.Raw},
		)})
		used[id] = true
	}
	for _, id := range rowOrder { // rows the record does not list (yet): kept, after the rest
		if !used[id] {
			used[id] = true
			ordered = append(ordered, rows[id])
		}
	}

	s := session.Session{ID: c.id, SourceAgent: Name, Project: c.project}
	if c.parent != "" && c.parent != c.id && session.CheckID(c.parent) == nil {
		s.ParentSessionID = c.parent
	}
	if s.ParentSessionID != "" || c.sub {
		s.SourceAgent = SubagentKind
	}
	if ms, ok := rec.Object().Int("createdAt"); ok && ms > 0 {
		s.CreatedAt = time.UnixMilli(ms)
	}
	for _, b := range ordered {
		if !s.CreatedAt.IsZero() && s.Project != "" {
			break
		}
		if s.CreatedAt.IsZero() {
			s.CreatedAt = bubbleTime(b.node)
		}
		if s.Project == "" {
			s.Project = bubbleFolder(b.node)
		}
	}
	if s.Project == "" {
		s.Project = noWorkspace
	}
	if s.CreatedAt.IsZero() {
		s.CreatedAt = c.fallback
	}
	src := []adapters.Field{
		{Key: "table", Value: adapters.String("cursorDiskKV")},
		{Key: "key", Value: adapters.String(composerPrefix + c.id)},
		{Key: "workspace", Value: adapters.OptString(c.workspace)},
		{Key: "header", Value: c.header},
	}
	if rec != nil {
		src = append(src, adapters.Field{Key: "record", Value: c.record})
	}
	s.Options = session.Options{"source": adapters.Object(src...)}
	if err := out.Event(session.Event{Session: &s}); err != nil {
		return nil, err
	}

	var seen adapters.SeenIDs
	last := s.CreatedAt
	for _, b := range ordered {
		if t := bubbleTime(b.node); !t.IsZero() {
			last = t
		}
		if err := emitBubble(&s, b, seen.Next(b.id), last, out); err != nil {
			return nil, err
		}
	}

	var kids []string
	for _, k := range rec.Kid("subComposerIds").List() {
		if id := adapters.Str(k.Raw); id != "" && id != c.id {
			kids = append(kids, id)
		}
	}
	return kids, nil
}

// bubbleTime is a bubble's createdAt: an ISO time (3.x) or milliseconds (older builds).
func bubbleTime(n *adapters.Node) time.Time {
	raw := n.Object()["createdAt"]
	if t := adapters.Time(raw); !t.IsZero() {
		return t
	}
	if ms, ok := adapters.Int(raw); ok && ms > 0 {
		return time.UnixMilli(ms)
	}
	return time.Time{}
}

// bubbleFolder is the folder a bubble was written in, when it says (workspaceProjectDir, else
// its first workspace URI).
func bubbleFolder(n *adapters.Node) string {
	if d := n.Str("workspaceProjectDir"); d != "" {
		return d
	}
	var first string
	_ = adapters.EachElem(n.Object()["workspaceUris"], func(v json.RawMessage, _ int) error {
		if first == "" {
			first = uriPath(adapters.Str(v))
		}
		return nil
	})
	return first
}

// emitBubble emits one bubble as a message: type 1 a user message, type 2 an assistant message
// (reasoning from thinking, its text, and a tool call and result from toolFormerData); any
// other type, and a bubble with none of these, a system message holding only its record.
func emitBubble(s *session.Session, b *bubble, id string, at time.Time, out adapters.Emitter) error {
	n := b.node
	m := session.Message{SessionID: s.ID, ID: id, Timestamp: at, Options: session.Options{"source": b.source}}
	typ, _ := n.Object().Int("type")
	var parts []session.Part
	add := func(p session.Part) {
		p.SessionID, p.MessageID, p.Ordinal = s.ID, id, len(parts)
		p.ID = id + ":" + strconv.Itoa(len(parts))
		if p.Provenance == "" {
			p.Provenance = session.Conversational
		}
		parts = append(parts, p)
	}
	switch typ {
	case 1:
		m.Role = session.RoleUser
	case 2:
		m.Role = session.RoleAssistant
	default:
		m.Role = session.RoleSystem
		out.Unknown(b.loc, fmt.Sprintf("bubble type %s", string(bytes.TrimSpace(n.Object()["type"]))))
	}
	if m.Role != session.RoleSystem {
		if th := n.Kid("thinking"); th != nil {
			if t := th.Str("text"); strings.TrimSpace(t) != "" {
				add(session.Part{Type: session.PartReasoning, Text: t})
			}
		}
		if t := n.Str("text"); strings.TrimSpace(t) != "" {
			add(session.Part{Type: session.PartText, Text: t})
		}
		if tf := n.Kid("toolFormerData"); tf != nil && tf.Members != nil {
			toolParts(tf, b.id, add)
		}
		if len(parts) == 0 {
			m.Role = session.RoleSystem // a bubble without conversation: code-block state, an empty turn
		}
	}
	if m.Role == session.RoleSystem {
		parts = nil
	}
	if err := out.Event(session.Event{Message: &m}); err != nil {
		return err
	}
	for i := range parts {
		if err := out.Event(session.Event{Part: &parts[i]}); err != nil {
			return err
		}
	}
	return nil
}

// toolParts maps toolFormerData: a tool_call (CallID toolCallId, else the bubble's id; Name
// name, else tool; Params the rawArgs JSON, else params) and, once the tool has finished or
// when a result is recorded, a tool_result (Result the result JSON, else the result string;
// IsFailure when status or additionalData.status is "error").
func toolParts(tf *adapters.Node, bubbleID string, add func(session.Part)) {
	m := tf.Object()
	call := m.Str("toolCallId")
	if call == "" {
		call = bubbleID
	}
	name := m.Str("name")
	if name == "" {
		name = strings.Trim(string(bytes.TrimSpace(adapters.Value(m["tool"]))), `"`)
	}
	params := jsonOrString(m["rawArgs"])
	if params == nil {
		params = jsonOrString(m["params"])
	}
	add(session.Part{Type: session.PartToolCall, CallID: call, Name: name, Params: params})
	status := m.Str("status")
	result := jsonOrString(m["result"])
	failed := status == "error" || tf.Kid("additionalData").Str("status") == "error"
	if result != nil || failed || status == "completed" {
		add(session.Part{Type: session.PartToolResult, CallID: call, Name: name, Result: result, IsFailure: failed})
	}
}

// jsonOrString is a value Cursor keeps as a JSON document inside a string, as that document;
// another string as a JSON string; an object or list as written; nothing for null, "" or absent.
func jsonOrString(raw json.RawMessage) json.RawMessage {
	switch adapters.Kind(raw) {
	case '"':
		s := adapters.Str(raw)
		if s == "" {
			return nil
		}
		if t := strings.TrimSpace(s); len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
			if _, err := adapters.ReadNode([]byte(t), nil); err == nil { // within MaxDepth
				return json.RawMessage(t)
			}
		}
		return adapters.String(s)
	case '{', '[':
		return raw
	}
	return adapters.Value(raw)
}
