package claudecode

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// messageJSON is the Anthropic Messages API message a user or assistant line carries.
type messageJSON struct {
	ID         json.RawMessage `json:"id"`
	Model      json.RawMessage `json:"model"`
	Content    json.RawMessage `json:"content"`
	StopReason json.RawMessage `json:"stop_reason"`
}

// blockJSON is one content block.
type blockJSON struct {
	Type      json.RawMessage `json:"type"`
	Text      json.RawMessage `json:"text"`
	Thinking  json.RawMessage `json:"thinking"`
	Signature json.RawMessage `json:"signature"`
	Data      json.RawMessage `json:"data"`
	ID        json.RawMessage `json:"id"`
	Name      json.RawMessage `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID json.RawMessage `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   json.RawMessage `json:"is_error"`
	Source    json.RawMessage `json:"source"`
	Title     json.RawMessage `json:"title"`
}

type sourceJSON struct {
	Type      json.RawMessage `json:"type"`
	MediaType json.RawMessage `json:"media_type"`
	Data      json.RawMessage `json:"data"`
	URL       json.RawMessage `json:"url"`
}

// decodeMessage reads a line's message; a message that is not an object reads as empty.
func decodeMessage(raw json.RawMessage) messageJSON {
	var m messageJSON
	if len(raw) > 0 && raw[0] == '{' {
		_ = json.Unmarshal(raw, &m)
	}
	return m
}

// parts turns a message's content into parts with ids <recID>:<block index>; the caller sets
// ordinals. A string content is one text part. injected says whether the whole line is
// harness-made (user text is also judged block by block). Blocks of unknown type are reported
// and left to the raw record.
func (p *parser) parts(content json.RawMessage, recID string, injected, user bool, at adapters.Location) []session.Part {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || string(content) == "null" {
		return nil
	}
	prov := func(inj bool) session.Provenance {
		if inj || injected {
			return session.Injected
		}
		return session.Conversational
	}
	switch content[0] {
	case '"':
		text := str(content)
		return []session.Part{{ID: recID + ":0", Type: session.PartText, Text: text, Provenance: prov(user && harnessText(text))}}
	case '[':
	default:
		p.out.Unknown(at, "message content that is neither a string nor a list")
		return nil
	}
	var blocks []json.RawMessage
	if json.Unmarshal(content, &blocks) != nil {
		p.out.Unknown(at, "message content that is neither a string nor a list")
		return nil
	}
	var out []session.Part
	for i, raw := range blocks {
		var b blockJSON
		if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &b) != nil {
			p.out.Unknown(at, "content block that is not an object")
			continue
		}
		part := session.Part{ID: fmt.Sprintf("%s:%d", recID, i), Provenance: prov(false)}
		typ := str(b.Type)
		switch {
		case typ == "text":
			part.Type, part.Text = session.PartText, str(b.Text)
			part.Provenance = prov(user && harnessText(part.Text))
		case typ == "thinking":
			part.Type, part.Text = session.PartReasoning, str(b.Thinking)
			if len(b.Signature) > 0 {
				part.Options = anthropicOptions(member{Key: "signature", Value: b.Signature})
			}
		case typ == "redacted_thinking":
			part.Type = session.PartReasoning
			part.Options = anthropicOptions(member{Key: "redacted", Value: json.RawMessage("true")}, member{Key: "data", Value: b.Data})
		case typ == "tool_use" || typ == "server_tool_use" || typ == "mcp_tool_use":
			part.Type, part.CallID, part.Name = session.PartToolCall, str(b.ID), str(b.Name)
			part.Params = b.Input
			part.ProviderExecuted = typ != "tool_use"
			p.tools.add(part.CallID, part.Name)
		case typ == "tool_result" || strings.HasSuffix(typ, "_tool_result"):
			part.Type, part.CallID = session.PartToolResult, str(b.ToolUseID)
			part.Name = p.tools.take(part.CallID)
			part.Result = b.Content
			part.IsFailure = isTrue(b.IsError) || errorContent(b.Content)
		case typ == "image" || typ == "document":
			part.Type = session.PartFile
			part.MediaType, part.Data = fileData(b.Source, raw)
			part.FileName = str(b.Title)
		default:
			p.out.Unknown(at, fmt.Sprintf("content block %q", typ))
			continue
		}
		out = append(out, part)
	}
	return out
}

// errorContent reports a server tool result whose content is an error object
// ({"type":"web_search_tool_result_error", …}).
func errorContent(raw json.RawMessage) bool {
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	var c struct {
		Type json.RawMessage `json:"type"`
	}
	return json.Unmarshal(raw, &c) == nil && strings.HasSuffix(str(c.Type), "_error")
}

// fileData reads an image or document source: base64 data as bytes, a URL as a URL, anything
// else (plain text, a Files API id, nested content) as the string it is.
func fileData(raw json.RawMessage, block json.RawMessage) (string, *session.FileData) {
	var s sourceJSON
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &s) != nil {
		if len(raw) == 0 {
			raw = block
		}
		return "", &session.FileData{Kind: session.FileString, Value: string(raw)}
	}
	media := str(s.MediaType)
	switch str(s.Type) {
	case "base64":
		data := str(s.Data)
		if b, err := base64.StdEncoding.DecodeString(data); err == nil {
			return media, &session.FileData{Kind: session.FileBytes, Bytes: b}
		}
		return media, &session.FileData{Kind: session.FileString, Value: data}
	case "url":
		return media, &session.FileData{Kind: session.FileURL, Value: str(s.URL)}
	case "text":
		return media, &session.FileData{Kind: session.FileString, Value: str(s.Data)}
	}
	return media, &session.FileData{Kind: session.FileString, Value: string(raw)}
}

// member is one key of an object built with adapters.Object.
type member = adapters.Field

// object writes the members whose value is present, in order, values byte for byte.
func object(ms ...member) json.RawMessage { return adapters.Object(ms...) }

func anthropicOptions(ms ...member) session.Options {
	return session.Options{"anthropic": object(ms...)}
}

// jsonString encodes s, or nothing for "".
func jsonString(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	b, _ := json.Marshal(s)
	return b
}
