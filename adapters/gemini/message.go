package gemini

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// Keys the adapter knows. Anything else is reported through Emitter.Unknown (and kept raw).
var (
	metaKeys = keySet("sessionId", "projectHash", "startTime", "lastUpdated", "messages", "summary",
		"directories", "kind", "activeExtensionName", "memoryScratchpad", "pond_restored_from") // adapters.RestoreMarkKey
	messageKeys = keySet("id", "timestamp", "type", "content", "displayContent", "toolCalls",
		"thoughts", "tokens", "model")
	toolCallKeys = keySet("id", "name", "args", "result", "status", "timestamp", "agentId",
		"displayName", "description", "resultDisplay", "renderOutputAsMarkdown")
	partKeys = keySet("text", "thought", "thoughtSignature", "inlineData", "fileData", "functionCall",
		"functionResponse")
)

func keySet(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// record is a JSON object with its values left raw.
type record = adapters.Members

// strs is the string list raw; elements that are not strings are skipped (null reads as "").
func strs(raw json.RawMessage) []string {
	n, err := adapters.ReadNode(raw, nil)
	if err != nil || adapters.Kind(raw) == 0 {
		return nil
	}
	var out []string
	for _, el := range n.List() {
		if k := el.Kind(); k == '"' || k == 'n' {
			out = append(out, adapters.Str(el.Raw))
		}
	}
	return out
}

// parseRecord reads a JSON object; nil when raw is not one.
func parseRecord(raw []byte) record {
	n, err := adapters.ReadObject(raw, nil)
	if err != nil {
		return nil
	}
	return n.Members
}

// message is a MessageRecord read leniently: drifted spellings seen in the wild are accepted
// (`role` for `type`, `parts` for `content`) and reported.
type message struct {
	id        string
	typ       string
	timestamp time.Time
	content   *node
	thoughts  *node
	toolCalls *node
}

func (rd *reader) readMessage(n *node, line int) message {
	r := members(n)
	m := message{id: r.Str("id"), typ: r.Str("type"), timestamp: r.Time("timestamp"),
		content: n.Kid("content"), thoughts: n.Kid("thoughts"), toolCalls: n.Kid("toolCalls")}
	if _, ok := r["type"]; !ok && r.IsStr("role") {
		m.typ = r.Str("role")
		rd.unknown(line, `message key "role" (read as type)`)
	}
	if _, ok := r["content"]; !ok && r.Has("parts") {
		m.content = n.Kid("parts")
		rd.unknown(line, `message key "parts" (read as content)`)
	}
	for _, k := range r.Keys() {
		if !messageKeys[k] && k != "role" && k != "parts" {
			rd.unknown(line, fmt.Sprintf("message key %q", k))
		}
	}
	return m
}

// role maps a message type to a role; ok is false for a type the adapter does not know.
func role(typ string) (session.Role, bool) {
	switch typ {
	case "user":
		return session.RoleUser, true
	case "gemini", "model":
		return session.RoleAssistant, true
	case "info", "error", "warning":
		return session.RoleSystem, true
	}
	return session.RoleSystem, false
}

// slotPart is a part, its slot in the record's layout and, for a tool result, the call's status.
type slotPart struct {
	slot   int
	part   session.Part
	status string
}

// parts lays out a user or assistant record: thoughts, content parts, then a call and a result
// slot per tool call. Slots that produce nothing are left empty.
func (rd *reader) parts(sid string, m message, prov session.Provenance, line int) []slotPart {
	var out []slotPart
	add := func(slot int, p session.Part, status string) {
		p.SessionID, p.MessageID, p.ID, p.Ordinal = sid, m.id, fmt.Sprintf("%s:%d", m.id, slot), slot
		p.Provenance = prov
		out = append(out, slotPart{slot, p, status})
	}
	slot := 0

	thoughts := m.thoughts.List()
	if thoughts == nil && m.thoughts.Kind() != 0 && m.thoughts.Kind() != 'n' {
		rd.unknown(line, "thoughts that are not a list")
	}
	for _, el := range thoughts {
		t := members(el)
		text := joinNonEmpty("\n", t.Str("subject"), t.Str("description"))
		if text != "" {
			add(slot, session.Part{Type: session.PartReasoning, Text: text}, "")
		}
		slot++
	}

	calls := map[string]bool{} // tool calls already stated in content
	for _, el := range contentList(m.content) {
		if p, ok := rd.contentPart(el, line); ok {
			if p.Type == session.PartToolCall && p.CallID != "" {
				calls[p.CallID] = true
			}
			add(slot, p, "")
		}
		slot++
	}

	toolCalls := m.toolCalls.List()
	if toolCalls == nil && m.toolCalls.Kind() != 0 && m.toolCalls.Kind() != 'n' {
		rd.unknown(line, "toolCalls that are not a list")
	}
	for _, el := range toolCalls {
		tc := members(el)
		if tc == nil {
			rd.unknown(line, "tool call that is not an object")
		}
		for _, k := range tc.Keys() {
			if !toolCallKeys[k] {
				rd.unknown(line, fmt.Sprintf("tool call key %q", k))
			}
		}
		id, name, status := tc.Str("id"), tc.Str("name"), tc.Str("status")
		if tc != nil && (id == "" || !calls[id]) {
			add(slot, session.Part{Type: session.PartToolCall, CallID: id, Name: name, Params: adapters.Value(tc["args"])}, "")
		}
		result := adapters.Value(tc["result"])
		finished := status == "success" || status == "error" || status == "cancelled"
		if finished || (status == "" && result != nil) {
			add(slot+1, session.Part{Type: session.PartToolResult, CallID: id, Name: name,
				IsFailure: status == "error" || status == "cancelled", Result: functionResponse(result, el.Kid("result"))}, status)
		}
		slot += 2
	}
	return out
}

// contentPart maps one element of a PartListUnion.
func (rd *reader) contentPart(n *node, line int) (session.Part, bool) {
	if n.Kind() == '"' {
		return session.Part{Type: session.PartText, Text: n.Text}, n.Text != ""
	}
	p := members(n)
	if p == nil {
		rd.unknown(line, "content part that is not an object or a string")
		return session.Part{}, false
	}
	for _, k := range p.Keys() {
		if !partKeys[k] {
			rd.unknown(line, fmt.Sprintf("content part key %q", k))
		}
	}
	switch {
	case p.IsStr("text"):
		text := n.Str("text")
		if text == "" {
			return session.Part{}, false
		}
		if string(p["thought"]) == "true" {
			return session.Part{Type: session.PartReasoning, Text: text}, true
		}
		return session.Part{Type: session.PartText, Text: text}, true
	case p.Has("inlineData"):
		d := members(n.Kid("inlineData"))
		data := d.Str("data")
		fd := &session.FileData{Kind: session.FileBytes}
		if b, err := decodeBase64(data); err == nil {
			fd.Bytes = b
		} else {
			fd.Kind, fd.Value = session.FileString, data
		}
		return session.Part{Type: session.PartFile, MediaType: d.Str("mimeType"), FileName: d.Str("displayName"), Data: fd}, true
	case p.Has("fileData"):
		d := members(n.Kid("fileData"))
		return session.Part{Type: session.PartFile, MediaType: d.Str("mimeType"), FileName: d.Str("displayName"),
			Data: &session.FileData{Kind: session.FileURL, Value: d.Str("fileUri")}}, true
	case p.Has("functionCall"):
		c := members(n.Kid("functionCall"))
		return session.Part{Type: session.PartToolCall, CallID: c.Str("id"), Name: c.Str("name"), Params: adapters.Value(c["args"])}, true
	case p.Has("functionResponse"):
		fr := n.Kid("functionResponse")
		r, resp := members(fr), members(fr.Kid("response"))
		return session.Part{Type: session.PartToolResult, CallID: r.Str("id"), Name: r.Str("name"),
			IsFailure: resp.Has("error"), Result: adapters.Value(fr.Raw)}, true
	}
	return session.Part{}, false
}

// functionResponse is a tool call's stored result as the tool_result keeps it: the
// functionResponse object when the result is just that one part, else the result as stored.
// read is the result as read along with its record.
func functionResponse(result json.RawMessage, read *node) json.RawMessage {
	if result == nil {
		return nil
	}
	if l := read.List(); len(l) == 1 {
		if p := members(l[0]); len(p) == 1 && p.Has("functionResponse") {
			return p["functionResponse"]
		}
	}
	return result
}

// text is a PartListUnion's plain text, the way the CLI renders it.
func text(content *node) string {
	var b strings.Builder
	for _, el := range contentList(content) {
		if el.Kind() == '"' {
			b.WriteString(el.Text)
			continue
		}
		if p := members(el); p != nil && string(p["thought"]) != "true" {
			b.WriteString(el.Str("text"))
		}
	}
	return b.String()
}

// contentList flattens a PartListUnion (a string, a part, or a list of either) into elements.
// An empty string (what the CLI writes for a turn of tool calls alone) has none.
func contentList(v *node) []*node {
	switch v.Kind() {
	case '"':
		if string(bytes.TrimSpace(v.Raw)) == `""` {
			return nil
		}
		return []*node{v}
	case '{':
		return []*node{v}
	case '[':
		return v.List()
	}
	return nil
}

func decodeBase64(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("not base64")
}

func joinNonEmpty(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}

// kv is one field of an options object built with adapters.Object, which keeps raw records
// byte for byte.
type kv struct {
	key string
	val json.RawMessage
}

// object writes the fields whose value is set as a JSON object, in order.
func object(fields ...kv) json.RawMessage {
	fs := make([]adapters.Field, len(fields))
	for i, f := range fields {
		fs[i] = adapters.Field{Key: f.key, Value: f.val}
	}
	return adapters.Object(fs...)
}

func jsonInt(n int) json.RawMessage {
	if n == 0 {
		return nil
	}
	return json.RawMessage(fmt.Sprint(n))
}

var jsonTrue = json.RawMessage("true")
