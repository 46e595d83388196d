package codex

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// item handles a response item (the payload of a response_item line, or a bare legacy line).
// Its message id is the item's own id, else rec-<digest> of the line.
func (p *parser) item(r record, ts time.Time, it *node) error {
	base := it.Str("id")
	if base == "" {
		base = adapters.RecordID(r.raw)
	}
	switch typ := it.Str("type"); typ {
	case "message":
		return p.message(r, ts, it, base)
	case "reasoning":
		return p.emit(r, base, session.RoleAssistant, ts, "", reasoningParts(it)...)
	case "function_call", "custom_tool_call":
		callID, name := it.Str("call_id"), it.Str("name")
		p.addCall(callID, name)
		part := session.Part{Type: session.PartToolCall, Provenance: session.Conversational, CallID: callID, Name: name}
		if typ == "function_call" {
			part.Params = arguments(it.Members["arguments"])
		} else {
			part.Params = adapters.Value(it.Members["input"]) // free-form text, kept as the string it is
		}
		if ns := it.Str("namespace"); ns != "" {
			part.Options = session.Options{"source": adapters.Object(adapters.Field{Key: "namespace", Value: it.Members["namespace"]})}
		}
		return p.emit(r, base, session.RoleAssistant, ts, "", part)
	case "local_shell_call":
		callID := it.Str("call_id")
		if callID == "" {
			callID = it.Str("id")
		}
		p.addCall(callID, "local_shell")
		return p.emit(r, base, session.RoleAssistant, ts, "", session.Part{
			Type: session.PartToolCall, Provenance: session.Conversational,
			CallID: callID, Name: "local_shell", Params: adapters.Value(it.Members["action"]),
		})
	case "tool_search_call":
		callID := it.Str("call_id")
		p.addCall(callID, "tool_search")
		return p.emit(r, base, session.RoleAssistant, ts, "", session.Part{
			Type: session.PartToolCall, Provenance: session.Conversational,
			CallID: callID, Name: "tool_search", Params: adapters.Value(it.Members["arguments"]),
			ProviderExecuted: it.Str("execution") == "server",
		})
	case "web_search_call":
		return p.emit(r, base, session.RoleAssistant, ts, "", session.Part{
			Type: session.PartToolCall, Provenance: session.Conversational,
			CallID: it.Str("id"), Name: "web_search", Params: adapters.Value(it.Members["action"]), ProviderExecuted: true,
		})
	case "image_generation_call":
		return p.emit(r, base, session.RoleAssistant, ts, "", imageGeneration(it)...)
	case "function_call_output", "custom_tool_call_output":
		return p.output(r, ts, it, base, "output", "", false)
	case "tool_search_output":
		return p.output(r, ts, it, base, "tools", "tool_search", it.Str("status") == "failed")
	case "agent_message":
		return p.emit(r, base, session.RoleUser, ts, "", p.contentParts(r, it, session.RoleUser, true)...)
	case "ghost_snapshot", "compaction", "compaction_summary", "other",
		"additional_tools": // 0.169: the tools offered to the model, as a developer item
		return p.emit(r, base, session.RoleSystem, ts, "")
	case "":
		p.unknown(r.no, "response item without a type")
		return p.emit(r, base, session.RoleSystem, ts, "")
	default:
		p.unknown(r.no, "response item type "+strconv.Quote(typ))
		return p.emit(r, base, session.RoleSystem, ts, "")
	}
}

// message handles a message item. User and assistant messages keep their role; developer and
// system messages (Codex's instructions, permissions, skills) are system messages whose
// Content is their text.
func (p *parser) message(r record, ts time.Time, it *node, base string) error {
	switch role := it.Str("role"); role {
	case "user":
		return p.emit(r, base, session.RoleUser, ts, "", p.contentParts(r, it, session.RoleUser, false)...)
	case "assistant":
		return p.emit(r, base, session.RoleAssistant, ts, "", p.contentParts(r, it, session.RoleAssistant, false)...)
	default:
		if role != "developer" && role != "system" {
			p.unknown(r.no, "message role "+strconv.Quote(role))
		}
		var texts []string
		var files []session.Part
		for _, part := range p.contentParts(r, it, session.RoleSystem, true) {
			if part.Type == session.PartText {
				texts = append(texts, part.Text)
			} else {
				files = append(files, part)
			}
		}
		return p.emit(r, base, session.RoleSystem, ts, strings.Join(texts, "\n\n"), files...)
	}
}

// contentParts maps a message's content items to parts. injected forces injected provenance;
// otherwise a user message's items are classified by contentInjected.
func (p *parser) contentParts(r record, it *node, role session.Role, injected bool) []session.Part {
	if c := it.Kid("content"); c != nil && c.IsText { // a plain string content
		return []session.Part{{Type: session.PartText, Text: c.Text, Provenance: provenance(role, injected, nil, 0, c.Text)}}
	}
	items := list(it, "content")
	kinds := contentKinds(it, len(items))
	var parts []session.Part
	for i, co := range items {
		switch ct := co.Str("type"); ct {
		case "input_text", "output_text":
			text := co.Str("text")
			parts = append(parts, session.Part{Type: session.PartText, Text: text, Provenance: provenance(role, injected, kinds, i, text)})
		case "refusal":
			parts = append(parts, session.Part{Type: session.PartText, Text: co.Str("refusal"), Provenance: session.Conversational})
		case "input_image":
			if part, ok := imagePart(co); ok {
				part.Provenance = provenance(role, injected, kinds, i, "")
				parts = append(parts, part)
			}
		case "encrypted_content":
			// Opaque (inter-agent mail); kept in the raw record only.
		default:
			p.unknown(r.no, "message content type "+strconv.Quote(ct))
		}
	}
	return parts
}

// contentKinds are the per-item kinds Codex records for a message's content
// (internal_chat_message_metadata_passthrough.content_item_kinds, e.g. "user.text",
// "environments.environment_context"); nil unless there is exactly one per item.
func contentKinds(it *node, n int) []string {
	meta := it.Kid("internal_chat_message_metadata_passthrough").Object()
	var kinds []string
	if json.Unmarshal(meta["content_item_kinds"], &kinds) != nil || len(kinds) != n {
		return nil
	}
	return kinds
}

// provenance classifies one content item of a message.
func provenance(role session.Role, injected bool, kinds []string, i int, text string) session.Provenance {
	switch {
	case injected:
		return session.Injected
	case role != session.RoleUser:
		return session.Conversational
	case kinds != nil:
		if strings.HasPrefix(kinds[i], "user.") {
			return session.Conversational
		}
		return session.Injected
	case contextText(text):
		return session.Injected
	}
	return session.Conversational
}

// contextPrefixes open the context fragments Codex puts into user messages (from Codex's own
// instruction markers and the rollouts seen): they were not typed by the user.
var contextPrefixes = []string{
	"<environment_context>",
	"<user_instructions>",
	"# AGENTS.md instructions for ",
	"<collaboration_mode>",
	"<skill", // <skill>, <skills_instructions>
	"<permissions instructions>",
	"<user_shell_command>",
	"<turn_aborted>",
	"<subagent_notification>",
	"<image name=", // the framing around an attached image
	"<image>",
	"</image>",
}

// contextText reports whether a user message's text is one of Codex's context fragments.
func contextText(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	for _, prefix := range contextPrefixes {
		if strings.HasPrefix(t, prefix) {
			return true
		}
	}
	return false
}

// imagePart maps an input_image item; ok is false when it has no URL.
func imagePart(co *node) (session.Part, bool) {
	url := co.Str("image_url")
	if url == "" {
		return session.Part{}, false
	}
	part := session.Part{Type: session.PartFile}
	if data, mt, ok := fileData(url); ok {
		part.MediaType = mt
		part.Data = &session.FileData{Kind: session.FileBytes, Bytes: data}
	} else {
		part.Data = &session.FileData{Kind: session.FileURL, Value: url}
	}
	return part, true
}

// reasoningParts are a reasoning item's summary texts, then its raw reasoning content; each
// part's options.source.field says which it is.
func reasoningParts(it *node) []session.Part {
	var parts []session.Part
	for _, f := range []string{"summary", "content"} {
		opts := session.Options{"source": adapters.Object(adapters.Field{Key: "field", Value: adapters.String(f)})}
		for _, so := range list(it, f) {
			if so.Members == nil {
				continue // not an object
			}
			parts = append(parts, session.Part{
				Type: session.PartReasoning, Provenance: session.Conversational,
				Text: so.Str("text"), Options: opts.Clone(),
			})
		}
	}
	return parts
}

// imageGeneration maps an image_generation_call: the provider-run call, and the image it made.
func imageGeneration(it *node) []session.Part {
	call := session.Part{
		Type: session.PartToolCall, Provenance: session.Conversational,
		CallID: it.Str("id"), Name: "image_generation", ProviderExecuted: true,
	}
	if rp := it.Members["revised_prompt"]; !adapters.IsNull(rp) {
		call.Params = adapters.Object(adapters.Field{Key: "revised_prompt", Value: rp})
	}
	parts := []session.Part{call}
	if data, mt, ok := sniffImage(it.Str("result")); ok {
		parts = append(parts, session.Part{
			Type: session.PartFile, Provenance: session.Conversational,
			MediaType: mt, Data: &session.FileData{Kind: session.FileBytes, Bytes: data},
		})
	}
	return parts
}

// output handles a tool output item: a tool message with one tool_result part named after the
// call it answers, the item's member key.
func (p *parser) output(r record, ts time.Time, it *node, base, key, name string, failed bool) error {
	result := it.Kid(key)
	if result == nil {
		result = &node{Raw: it.Members[key]} // not read along (tool_search_output's tools)
	}
	callID := it.Str("call_id")
	c := p.takeCall(callID)
	if c.Name != "" {
		name = c.Name
	}
	return p.emit(r, base, session.RoleTool, ts, "", session.Part{
		Type: session.PartToolResult, Provenance: session.Conversational,
		CallID: callID, Name: name, Result: adapters.Value(result.Raw),
		IsFailure: failed || c.Failed || outputFailed(result),
	})
}

// arguments is a function call's parameters: the arguments string parsed when it holds JSON,
// else the string itself; an arguments value that is not a string is kept as it is.
func arguments(raw json.RawMessage) json.RawMessage {
	if adapters.IsNull(raw) {
		return nil
	}
	if adapters.Kind(raw) == '"' {
		if b := bytes.TrimSpace([]byte(adapters.Str(raw))); len(b) > 0 && json.Valid(b) {
			return b
		}
	}
	return raw
}

// outputFailed reports a failure the output itself records: an object with success:false (the
// shape older builds wrote), or, in an exec tool's text, a non-zero exit code in its JSON
// metadata or in the framing lines before "Output:".
func outputFailed(out *node) bool {
	switch out.Kind() {
	case '{':
		m := out.Object()
		if m == nil {
			m = parseObject(out.Raw)
		}
		ok, known := m.Bool("success")
		return known && !ok
	case '"':
		text := out.Text
		if !out.IsText {
			text = adapters.Str(out.Raw)
		}
		return textFailed(text)
	}
	return false
}

// metadataShape reads a shell tool's output text: {"output", "metadata": {"exit_code"}}.
var metadataShape = &adapters.Shape{Members: map[string]*adapters.Shape{"metadata": {}}}

// textFailed reads the exit code of an exec tool's output text: {"output", "metadata":
// {"exit_code"}} (the shell tool), "Exit code: N" (shell_command) or "Process exited with
// code N" (unified exec).
func textFailed(s string) bool {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") {
		out, err := adapters.ReadObject([]byte(t), metadataShape)
		if md := out.Kid("metadata").Object(); err == nil && md != nil {
			n, ok := md.Int("exit_code")
			return ok && n != 0
		}
		return false
	}
	for i, line := range strings.SplitN(t, "\n", 9) {
		line = strings.TrimSpace(line)
		if i == 8 || line == "Output:" {
			break
		}
		for _, prefix := range []string{"Exit code: ", "Process exited with code "} {
			if v, ok := strings.CutPrefix(line, prefix); ok {
				n, err := strconv.Atoi(strings.TrimSpace(v))
				return err == nil && n != 0
			}
		}
	}
	return false
}
