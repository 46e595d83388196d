package cline

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// messageShape reads a message's content blocks along with it.
var messageShape = &adapters.Shape{Members: map[string]*adapters.Shape{
	"content": {Members: map[string]*adapters.Shape{"text": {Text: true}, "thinking": {Text: true}}},
}}

// Messages turns the messages of one document into canonical events: the parts of a message
// come from its content (Anthropic blocks, Cline's own file blocks, AI-SDK parts), and every
// message keeps its record under options.source.record with the file and its index. It is
// shared by Cline's SDK store and legacy tasks and by Roo Code's tasks.
type Messages struct {
	Out     adapters.Emitter
	Session string
	File    string // the file's name, recorded in options.source.file
	Path    string // the file's path, for reports
	Seen    *adapters.SeenIDs
	// Last is the timestamp a message without one takes (the previous one's).
	Last  time.Time
	tools map[string]string // call id → tool name, for results that do not name theirs
}

// Emit maps the i-th message raw.
func (m *Messages) Emit(i int, raw json.RawMessage) error {
	at := adapters.Location{Path: m.Path}
	n, err := adapters.ReadObject(raw, messageShape)
	if err != nil {
		m.Out.Malformed(at, fmt.Errorf("message %d: %w", i, err))
		return nil
	}
	o := n.Object()
	id := o.Str("id")
	if id == "" {
		id = adapters.RecordID(raw)
	}
	id = m.Seen.Next(id)
	if ts, ok := o.Int("ts"); ok && ts > 0 {
		m.Last = time.UnixMilli(ts).UTC()
	}
	src := adapters.Object(
		adapters.Field{Key: "file", Value: adapters.String(m.File)},
		adapters.Field{Key: "index", Value: json.RawMessage(strconv.Itoa(i))},
		adapters.Field{Key: "record", Value: raw},
	)
	msg := &session.Message{SessionID: m.Session, ID: id, Timestamp: m.Last, Options: session.Options{"source": src}}
	role := o.Str("role")
	switch role {
	case "user", "assistant", "tool":
		msg.Role = session.Role(role)
	case "system":
		msg.Role = session.RoleSystem
		msg.Content = textOf(n.Kid("content"))
		return m.Out.Event(session.Event{Message: msg})
	default:
		// Roo Code's encrypted reasoning items (no role, type "reasoning"), and anything else
		// without a role: kept, carrying no conversation that can be read.
		msg.Role = session.RoleSystem
		if role != "" || o.Str("type") != "reasoning" {
			m.Out.Unknown(at, fmt.Sprintf("message of role %q", role))
		}
		return m.Out.Event(session.Event{Message: msg})
	}
	if err := m.Out.Event(session.Event{Message: msg}); err != nil {
		return err
	}
	injected := injectedMessage(o)
	content := n.Kid("content")
	if content.Kind() == '"' {
		p := m.part(id, 0, injected)
		p.Type, p.Text = session.PartText, content.Text
		if !content.IsText {
			p.Text = adapters.Str(content.Raw)
		}
		p.Provenance = provenance(injected || msg.Role == session.RoleUser && harnessText(p.Text))
		return m.Out.Event(session.Event{Part: &p})
	}
	ord := 0
	for bi, b := range content.List() {
		p, ok := m.block(b, id, bi, injected, msg.Role == session.RoleUser, at)
		if !ok {
			continue
		}
		p.Ordinal = ord
		ord++
		if err := m.Out.Event(session.Event{Part: &p}); err != nil {
			return err
		}
	}
	return nil
}

func (m *Messages) part(msgID string, i int, injected bool) session.Part {
	return session.Part{SessionID: m.Session, MessageID: msgID, ID: msgID + ":" + strconv.Itoa(i), Provenance: provenance(injected)}
}

// block maps one content block; ok is false for one of an unknown type (reported, and kept in
// the message's record).
func (m *Messages) block(b *adapters.Node, msgID string, i int, injected, user bool, at adapters.Location) (session.Part, bool) {
	o := b.Object()
	if o == nil {
		m.Out.Unknown(at, "content block that is not an object")
		return session.Part{}, false
	}
	p := m.part(msgID, i, injected)
	switch typ := o.Str("type"); typ {
	case "text":
		p.Type, p.Text = session.PartText, b.Str("text")
		p.Provenance = provenance(injected || user && harnessText(p.Text))
	case "thinking", "reasoning":
		p.Type = session.PartReasoning
		p.Text = b.Str("thinking")
		if typ == "reasoning" {
			p.Text = b.Str("text")
		}
		if s := o["signature"]; len(s) > 0 {
			p.Options = session.Options{"anthropic": adapters.Object(adapters.Field{Key: "signature", Value: s})}
		}
	case "redacted_thinking":
		p.Type = session.PartReasoning
		p.Options = session.Options{"anthropic": adapters.Object(adapters.Field{Key: "redacted", Value: json.RawMessage("true")}, adapters.Field{Key: "data", Value: o["data"]})}
	case "tool_use", "tool-call":
		p.Type = session.PartToolCall
		p.CallID, p.Name, p.Params = o.Str("id"), o.Str("name"), adapters.Value(o["input"])
		if typ == "tool-call" {
			p.CallID, p.Name = o.Str("toolCallId"), o.Str("toolName")
		}
		if m.tools == nil {
			m.tools = map[string]string{}
		}
		if p.CallID != "" && len(m.tools) < 4096 {
			m.tools[p.CallID] = p.Name
		}
	case "tool_result", "tool-result":
		p.Type = session.PartToolResult
		p.CallID, p.Name, p.Result = o.Str("tool_use_id"), o.Str("name"), adapters.Value(o["content"])
		if typ == "tool-result" {
			p.CallID, p.Name, p.Result = o.Str("toolCallId"), o.Str("toolName"), adapters.Value(o["output"])
			p.IsFailure = resultFailed(o["output"])
		}
		if failed, ok := o.Bool("is_error"); ok {
			p.IsFailure = failed
		}
		if p.Name == "" {
			p.Name = m.tools[p.CallID]
		}
	case "image":
		p.Type = session.PartFile
		p.MediaType, p.Data = imageData(o)
	case "file", "document":
		p.Type = session.PartFile
		p.FileName = o.Str("path")
		if p.FileName == "" {
			p.FileName = o.Str("filename")
		}
		p.MediaType = o.Str("mediaType")
		switch {
		case o.IsStr("content"):
			p.Data = &session.FileData{Kind: session.FileString, Value: o.Str("content")}
		case o.IsStr("data"):
			p.Data = &session.FileData{Kind: session.FileString, Value: o.Str("data")}
		default:
			p.MediaType, p.Data = imageData(o)
		}
	default:
		m.Out.Unknown(at, fmt.Sprintf("content block %q", typ))
		return session.Part{}, false
	}
	return p, true
}

// resultFailed reads an AI-SDK tool output: of type error-text or error-json, or whose text
// opens with "[ERROR]" (Roo Code's convention: a string, a {value} or a list of text items).
func resultFailed(raw json.RawMessage) bool {
	isErr := func(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), "[ERROR]") }
	switch adapters.Kind(raw) {
	case '"':
		return isErr(adapters.Str(raw))
	case '{':
		n, err := adapters.ReadObject(raw, nil)
		return err == nil && (strings.HasPrefix(n.Object().Str("type"), "error") || isErr(n.Object().Str("value")))
	case '[':
		failed := false
		_ = adapters.EachElem(raw, func(val json.RawMessage, _ int) error {
			if n, err := adapters.ReadObject(val, nil); err == nil && n.Object().Str("type") == "text" && isErr(n.Object().Str("value")) {
				failed = true
			}
			return nil
		})
		return failed
	}
	return false
}

// imageData reads an image block: an Anthropic source (base64 bytes, a URL), or an AI-SDK
// image (a data string); anything else stays the block as written.
func imageData(o adapters.Members) (string, *session.FileData) {
	if src := o["source"]; adapters.Kind(src) == '{' {
		if n, err := adapters.ReadObject(src, nil); err == nil {
			s := n.Object()
			media := s.Str("media_type")
			switch s.Str("type") {
			case "base64":
				if b, err := base64.StdEncoding.DecodeString(s.Str("data")); err == nil {
					return media, &session.FileData{Kind: session.FileBytes, Bytes: b}
				}
			case "url":
				return media, &session.FileData{Kind: session.FileURL, Value: s.Str("url")}
			}
			return media, &session.FileData{Kind: session.FileString, Value: string(src)}
		}
	}
	if o.IsStr("image") {
		return o.Str("mediaType"), &session.FileData{Kind: session.FileString, Value: o.Str("image")}
	}
	return o.Str("mediaType"), &session.FileData{Kind: session.FileString, Value: string(adapters.Object(fieldsOf(o)...))}
}

func fieldsOf(o adapters.Members) []adapters.Field {
	out := make([]adapters.Field, 0, len(o))
	for _, k := range o.Keys() {
		out = append(out, adapters.Field{Key: k, Value: o[k]})
	}
	return out
}

// textOf is a content's text: the string, or its text blocks joined.
func textOf(n *adapters.Node) string {
	if n.Kind() == '"' {
		return adapters.Str(n.Raw)
	}
	var out []string
	for _, b := range n.List() {
		if b.Object().Str("type") == "text" {
			out = append(out, b.Str("text"))
		}
	}
	return strings.Join(out, "\n")
}

// injectedMessage reports a message the harness wrote in the conversation: Cline's compaction
// summaries (metadata.kind "compaction"), Roo Code's condense summaries (isSummary) and
// truncation markers (isTruncationMarker). Messages a summary or marker hides from the model
// (condenseParent, truncationParent) stay as they are, their record saying so.
func injectedMessage(o adapters.Members) bool {
	for _, k := range []string{"isSummary", "isTruncationMarker"} {
		if s, _ := o.Bool(k); s {
			return true
		}
	}
	if md := o["metadata"]; adapters.Kind(md) == '{' {
		if n, err := adapters.ReadObject(md, nil); err == nil && n.Object().Str("kind") == "compaction" {
			return true
		}
	}
	return false
}

// harnessPrefixes open user text that the extension or the SDK wrote, not the user.
var harnessPrefixes = []string{"<environment_details>", "<SYSTEM_NOTICE>", "[TASK RESUMPTION]", "<task_progress>", "<explicit_instructions", "# task_progress"}

func harnessText(s string) bool {
	s = strings.TrimSpace(s)
	for _, p := range harnessPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func provenance(injected bool) session.Provenance {
	if injected {
		return session.Injected
	}
	return session.Conversational
}
