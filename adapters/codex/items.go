package codex

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/session"
)

// item handles a response item (the payload of a response_item line, or a bare legacy line).
// Its message id is the item's own id, else rec-<digest> of the line.
func (p *parser) item(r record, ts time.Time, it *walked) error {
	base := it.str("id")
	if base == "" {
		base = recBase(r.raw)
	}
	switch typ := it.str("type"); typ {
	case "message":
		return p.message(r, ts, it, base)
	case "reasoning":
		return p.emit(r, base, session.RoleAssistant, ts, "", reasoningParts(it)...)
	case "function_call", "custom_tool_call":
		callID, name := it.str("call_id"), it.str("name")
		p.addCall(callID, name)
		part := session.Part{Type: session.PartToolCall, Provenance: session.Conversational, CallID: callID, Name: name}
		if typ == "function_call" {
			part.Params = arguments(it.obj["arguments"])
		} else {
			part.Params = value(it.obj["input"]) // free-form text, kept as the string it is
		}
		if ns := it.str("namespace"); ns != "" {
			part.Options = session.Options{"source": objectJSON(field{Key: "namespace", Value: it.obj["namespace"]})}
		}
		return p.emit(r, base, session.RoleAssistant, ts, "", part)
	case "local_shell_call":
		callID := it.str("call_id")
		if callID == "" {
			callID = it.str("id")
		}
		p.addCall(callID, "local_shell")
		return p.emit(r, base, session.RoleAssistant, ts, "", session.Part{
			Type: session.PartToolCall, Provenance: session.Conversational,
			CallID: callID, Name: "local_shell", Params: value(it.obj["action"]),
		})
	case "tool_search_call":
		callID := it.str("call_id")
		p.addCall(callID, "tool_search")
		return p.emit(r, base, session.RoleAssistant, ts, "", session.Part{
			Type: session.PartToolCall, Provenance: session.Conversational,
			CallID: callID, Name: "tool_search", Params: value(it.obj["arguments"]),
			ProviderExecuted: it.str("execution") == "server",
		})
	case "web_search_call":
		return p.emit(r, base, session.RoleAssistant, ts, "", session.Part{
			Type: session.PartToolCall, Provenance: session.Conversational,
			CallID: it.str("id"), Name: "web_search", Params: value(it.obj["action"]), ProviderExecuted: true,
		})
	case "image_generation_call":
		return p.emit(r, base, session.RoleAssistant, ts, "", imageGeneration(it)...)
	case "function_call_output", "custom_tool_call_output":
		return p.output(r, ts, it, base, "output", "", false)
	case "tool_search_output":
		return p.output(r, ts, it, base, "tools", "tool_search", it.str("status") == "failed")
	case "agent_message":
		return p.emit(r, base, session.RoleUser, ts, "", p.contentParts(r, it, session.RoleUser, true)...)
	case "ghost_snapshot", "compaction", "compaction_summary", "other":
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
func (p *parser) message(r record, ts time.Time, it *walked, base string) error {
	switch role := it.str("role"); role {
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
func (p *parser) contentParts(r record, it *walked, role session.Role, injected bool) []session.Part {
	if s, ok := it.strs["content"]; ok { // a plain string content
		return []session.Part{{Type: session.PartText, Text: s, Provenance: provenance(role, injected, nil, 0, s)}}
	}
	items := it.list("content")
	kinds := contentKinds(it, len(items))
	var parts []session.Part
	for i, co := range items {
		switch ct := co.str("type"); ct {
		case "input_text", "output_text":
			text := co.str("text")
			parts = append(parts, session.Part{Type: session.PartText, Text: text, Provenance: provenance(role, injected, kinds, i, text)})
		case "refusal":
			parts = append(parts, session.Part{Type: session.PartText, Text: co.str("refusal"), Provenance: session.Conversational})
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
func contentKinds(it *walked, n int) []string {
	meta := parseObject(it.obj["internal_chat_message_metadata_passthrough"])
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
func imagePart(co *walked) (session.Part, bool) {
	url := co.str("image_url")
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
func reasoningParts(it *walked) []session.Part {
	var parts []session.Part
	for _, f := range []string{"summary", "content"} {
		opts := session.Options{"source": objectJSON(field{Key: "field", Value: jsonString(f)})}
		for _, so := range it.list(f) {
			if so == nil {
				continue
			}
			parts = append(parts, session.Part{
				Type: session.PartReasoning, Provenance: session.Conversational,
				Text: so.str("text"), Options: opts.Clone(),
			})
		}
	}
	return parts
}

// imageGeneration maps an image_generation_call: the provider-run call, and the image it made.
func imageGeneration(it *walked) []session.Part {
	call := session.Part{
		Type: session.PartToolCall, Provenance: session.Conversational,
		CallID: it.str("id"), Name: "image_generation", ProviderExecuted: true,
	}
	if rp := it.obj["revised_prompt"]; !isNull(rp) {
		call.Params = objectJSON(field{Key: "revised_prompt", Value: rp})
	}
	parts := []session.Part{call}
	if data, mt, ok := sniffImage(it.str("result")); ok {
		parts = append(parts, session.Part{
			Type: session.PartFile, Provenance: session.Conversational,
			MediaType: mt, Data: &session.FileData{Kind: session.FileBytes, Bytes: data},
		})
	}
	return parts
}

// output handles a tool output item: a tool message with one tool_result part named after the
// call it answers, the item's member key.
func (p *parser) output(r record, ts time.Time, it *walked, base, key, name string, failed bool) error {
	result := it.obj[key]
	callID := it.str("call_id")
	c := p.takeCall(callID)
	if c.Name != "" {
		name = c.Name
	}
	return p.emit(r, base, session.RoleTool, ts, "", session.Part{
		Type: session.PartToolResult, Provenance: session.Conversational,
		CallID: callID, Name: name, Result: value(result),
		IsFailure: failed || c.Failed || outputFailed(result, it.str(key)),
	})
}

// value is a raw JSON value as recorded; nil for absent or null.
func value(raw json.RawMessage) json.RawMessage {
	if isNull(raw) {
		return nil
	}
	return raw
}

// arguments is a function call's parameters: the arguments string parsed when it holds JSON,
// else the string itself; an arguments value that is not a string is kept as it is.
func arguments(raw json.RawMessage) json.RawMessage {
	if isNull(raw) {
		return nil
	}
	if s, ok := str(raw); ok {
		if b := bytes.TrimSpace([]byte(s)); len(b) > 0 && json.Valid(b) {
			return b
		}
	}
	return raw
}

// outputFailed reports a failure the output itself records: an object with success:false (the
// shape older builds wrote), or, in an exec tool's text, a non-zero exit code in its JSON
// metadata or in the framing lines before "Output:". text is raw's value when it is a string.
func outputFailed(raw json.RawMessage, text string) bool {
	switch firstByte(raw) {
	case '{':
		ok, known := boolOf(parseObject(raw), "success")
		return known && !ok
	case '"':
		return textFailed(text)
	}
	return false
}

// textFailed reads the exit code of an exec tool's output text: {"output", "metadata":
// {"exit_code"}} (the shell tool), "Exit code: N" (shell_command) or "Process exited with
// code N" (unified exec).
func textFailed(s string) bool {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") {
		if md := parseObject(parseObject([]byte(t))["metadata"]); md != nil {
			n, ok := intOf(md, "exit_code")
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
