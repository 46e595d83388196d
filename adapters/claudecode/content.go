package claudecode

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// messageHead is what the mapping reads of the Anthropic Messages API message a user or
// assistant line carries, besides its content.
type messageHead struct {
	ID         json.RawMessage `json:"id"`
	Model      json.RawMessage `json:"model"`
	StopReason json.RawMessage `json:"stop_reason"`
}

// content is a message's content: its text or its blocks when the line was decoded with them,
// else the raw value.
type content struct {
	text   *string
	blocks []*blockJSON
	raw    json.RawMessage
	isRaw  bool
}

// blockJSON is one content block.
type blockJSON struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature json.RawMessage `json:"signature"`
	Data      json.RawMessage `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    json.RawMessage `json:"source"`
	Title     string          `json:"title"`
}

// blocksOnly reports whether decoded blocks hold all the mapping needs: a null is no block (the
// raw content reports it), and a file block without a source keeps the whole block, which only
// the raw content has.
func blocksOnly(blocks []*blockJSON) bool {
	for _, b := range blocks {
		if b == nil || (b.Type == "image" || b.Type == "document") && len(b.Source) == 0 {
			return false
		}
	}
	return true
}

type sourceJSON struct {
	Type      json.RawMessage `json:"type"`
	MediaType json.RawMessage `json:"media_type"`
	Data      json.RawMessage `json:"data"`
	URL       json.RawMessage `json:"url"`
}

// parts turns a message's content into parts with ids <recID>:<block index>; the caller sets
// ordinals. A string content is one text part. injected says whether the whole line is
// harness-made (user text is also judged block by block). Blocks of unknown type are reported
// and left to the raw record.
func (p *parser) parts(c content, recID string, injected, user bool, at adapters.Location) []session.Part {
	if c.text != nil {
		return []session.Part{textPart(recID, *c.text, injected, user)}
	}
	var out []session.Part
	if !c.isRaw {
		for i, b := range c.blocks {
			if part, ok := p.block(b, nil, recID, i, injected, user, at); ok {
				out = append(out, part)
			}
		}
		return out
	}
	raw := bytes.TrimSpace(c.raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	switch raw[0] {
	case '"':
		return []session.Part{textPart(recID, adapters.Str(raw), injected, user)}
	case '[':
	default:
		p.out.Unknown(at, "message content that is neither a string nor a list")
		return nil
	}
	var blocks []json.RawMessage
	if json.Unmarshal(raw, &blocks) != nil {
		p.out.Unknown(at, "message content that is neither a string nor a list")
		return nil
	}
	for i, raw := range blocks {
		var b blockJSON
		if len(raw) == 0 || raw[0] != '{' || lenient(json.Unmarshal(raw, &b)) != nil {
			p.out.Unknown(at, "content block that is not an object")
			continue
		}
		if part, ok := p.block(&b, raw, recID, i, injected, user, at); ok {
			out = append(out, part)
		}
	}
	return out
}

// textPart is a content that is a string.
func textPart(recID, text string, injected, user bool) session.Part {
	return session.Part{ID: recID + ":0", Type: session.PartText, Text: text, Provenance: provenance(injected || user && harnessText(text))}
}

func provenance(injected bool) session.Provenance {
	if injected {
		return session.Injected
	}
	return session.Conversational
}

// block maps the i-th content block; raw is the block as written, when at hand (only a file
// block without a source needs it). ok is false for a block of unknown type, which is reported.
func (p *parser) block(b *blockJSON, raw json.RawMessage, recID string, i int, injected, user bool, at adapters.Location) (session.Part, bool) {
	part := session.Part{ID: recID + ":" + strconv.Itoa(i), Provenance: provenance(injected)}
	switch typ := b.Type; {
	case typ == "text":
		part.Type, part.Text = session.PartText, b.Text
		part.Provenance = provenance(injected || user && harnessText(part.Text))
	case typ == "thinking":
		part.Type, part.Text = session.PartReasoning, b.Thinking
		if len(b.Signature) > 0 {
			part.Options = anthropicOptions(adapters.Field{Key: "signature", Value: b.Signature})
		}
	case typ == "redacted_thinking":
		part.Type = session.PartReasoning
		part.Options = anthropicOptions(adapters.Field{Key: "redacted", Value: json.RawMessage("true")}, adapters.Field{Key: "data", Value: b.Data})
	case typ == "tool_use" || typ == "server_tool_use" || typ == "mcp_tool_use":
		part.Type, part.CallID, part.Name = session.PartToolCall, b.ID, b.Name
		part.Params = b.Input
		part.ProviderExecuted = typ != "tool_use"
		p.tools.add(part.CallID, part.Name)
	case typ == "tool_result" || strings.HasSuffix(typ, "_tool_result"):
		part.Type, part.CallID = session.PartToolResult, b.ToolUseID
		part.Name = p.tools.take(part.CallID)
		part.Result = b.Content
		part.IsFailure = b.IsError || errorContent(b.Content)
	case typ == "image" || typ == "document":
		part.Type = session.PartFile
		part.MediaType, part.Data = fileData(b.Source, raw)
		part.FileName = b.Title
	default:
		p.out.Unknown(at, fmt.Sprintf("content block %q", typ))
		return session.Part{}, false
	}
	return part, true
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
	return json.Unmarshal(raw, &c) == nil && strings.HasSuffix(adapters.Str(c.Type), "_error")
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
	media := adapters.Str(s.MediaType)
	switch adapters.Str(s.Type) {
	case "base64":
		data := adapters.Str(s.Data)
		if b, err := base64.StdEncoding.DecodeString(data); err == nil {
			return media, &session.FileData{Kind: session.FileBytes, Bytes: b}
		}
		return media, &session.FileData{Kind: session.FileString, Value: data}
	case "url":
		return media, &session.FileData{Kind: session.FileURL, Value: adapters.Str(s.URL)}
	case "text":
		return media, &session.FileData{Kind: session.FileString, Value: adapters.Str(s.Data)}
	}
	return media, &session.FileData{Kind: session.FileString, Value: string(raw)}
}

func anthropicOptions(ms ...adapters.Field) session.Options {
	return session.Options{"anthropic": adapters.Object(ms...)}
}
