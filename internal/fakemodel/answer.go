package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// answer writes one scripted reply in a request's dialect, streamed when the agent asked.
type answer struct {
	model string
	reply Reply
	turn  int // makes call ids unique per conversation and reply
}

func (a answer) callID(prefix string, i int) string {
	return fmt.Sprintf("%s_pond_%d_%d", prefix, a.turn, i)
}

// args is a call's arguments as a JSON object ({} when the script gave none).
func args(c ToolCall) json.RawMessage {
	if len(c.Args) == 0 {
		return json.RawMessage(`{}`)
	}
	return c.Args
}

func (a answer) anthropic(w http.ResponseWriter, stream bool) {
	var content []any
	if a.reply.Text != "" {
		content = append(content, map[string]any{"type": "text", "text": a.reply.Text})
	}
	for i, c := range a.reply.Calls {
		content = append(content, map[string]any{"type": "tool_use", "id": a.callID("toolu", i), "name": c.Name, "input": args(c)})
	}
	stop := "end_turn"
	if len(a.reply.Calls) > 0 {
		stop = "tool_use"
	}
	usage := map[string]int{"input_tokens": 1, "output_tokens": 1}
	msg := map[string]any{"id": fmt.Sprintf("msg_pond_%d", a.turn), "type": "message", "role": "assistant", "model": a.model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage}
	if !stream {
		writeJSON(w, http.StatusOK, msg)
		return
	}
	msg["content"], msg["stop_reason"] = []any{}, nil
	events := []sseEvent{{"message_start", map[string]any{"type": "message_start", "message": msg}}}
	for i, block := range content {
		b := block.(map[string]any)
		var start, delta map[string]any
		if b["type"] == "text" {
			start = map[string]any{"type": "text", "text": ""}
			delta = map[string]any{"type": "text_delta", "text": b["text"]}
		} else {
			start = map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}
			delta = map[string]any{"type": "input_json_delta", "partial_json": string(b["input"].(json.RawMessage))}
		}
		events = append(events,
			sseEvent{"content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": start}},
			sseEvent{"content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": delta}},
			sseEvent{"content_block_stop", map[string]any{"type": "content_block_stop", "index": i}})
	}
	events = append(events,
		sseEvent{"message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 1}}},
		sseEvent{"message_stop", map[string]any{"type": "message_stop"}})
	sse(w, events)
}

// responses answers the Responses API, which Codex always streams.
func (a answer) responses(w http.ResponseWriter) {
	var items []any
	if a.reply.Text != "" {
		items = append(items, map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_pond_%d", a.turn), "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": a.reply.Text, "annotations": []any{}}}})
	}
	for i, c := range a.reply.Calls {
		item := map[string]any{"type": "function_call", "id": a.callID("fc", i), "call_id": a.callID("call", i),
			"name": c.Name, "arguments": string(args(c)), "status": "completed"}
		if ns, name, ok := strings.Cut(c.Name, "."); ok {
			item["namespace"], item["name"] = ns, name
		}
		items = append(items, item)
	}
	usage := map[string]any{"input_tokens": 1, "input_tokens_details": map[string]int{"cached_tokens": 0}, "output_tokens": 1,
		"output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": 2}
	id := fmt.Sprintf("resp_pond_%d", a.turn)
	events := []sseEvent{{"response.created", map[string]any{"type": "response.created", "response": map[string]string{"id": id}}}}
	for i, it := range items {
		events = append(events, sseEvent{"response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": it}})
	}
	events = append(events, sseEvent{"response.completed", map[string]any{"type": "response.completed",
		"response": map[string]any{"id": id, "status": "completed", "model": a.model, "output": items, "usage": usage}}})
	sse(w, events)
}

func (a answer) chat(w http.ResponseWriter, stream bool) {
	type function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		Index    int      `json:"index"`
		ID       string   `json:"id"`
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	var calls []call
	for i, c := range a.reply.Calls {
		calls = append(calls, call{Index: i, ID: a.callID("call", i), Type: "function", Function: function{Name: c.Name, Arguments: string(args(c))}})
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	var content any
	if a.reply.Text != "" {
		content = a.reply.Text
	}
	id := fmt.Sprintf("chatcmpl-pond-%d", a.turn)
	usage := map[string]int{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
	if !stream {
		msg := map[string]any{"role": "assistant", "content": content}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": 0, "model": a.model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	chunk := func(delta map[string]any, finish any) sseEvent {
		return sseEvent{"", map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": a.model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}}
	}
	events := []sseEvent{chunk(map[string]any{"role": "assistant", "content": ""}, nil)}
	if a.reply.Text != "" {
		events = append(events, chunk(map[string]any{"content": a.reply.Text}, nil))
	}
	if len(calls) > 0 {
		events = append(events, chunk(map[string]any{"tool_calls": calls}, nil))
	}
	last := chunk(map[string]any{}, finish)
	last.data.(map[string]any)["usage"] = usage
	events = append(events, last, sseEvent{"", rawData("[DONE]")})
	sse(w, events)
}

func (a answer) gemini(w http.ResponseWriter, stream bool) {
	var parts []any
	if a.reply.Text != "" {
		parts = append(parts, map[string]any{"text": a.reply.Text})
	}
	for _, c := range a.reply.Calls {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": args(c)}})
	}
	d := map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts},
		"finishReason": "STOP", "index": 0}}, "usageMetadata": map[string]int{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
		"modelVersion": a.model}
	if stream {
		sse(w, []sseEvent{{"", d}})
		return
	}
	writeJSON(w, http.StatusOK, d)
}

type sseEvent struct {
	name string
	data any
}

// rawData is an SSE data line written as it is ("[DONE]").
type rawData string

func sse(w http.ResponseWriter, events []sseEvent) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	for _, e := range events {
		if e.name != "" {
			fmt.Fprintf(w, "event: %s\n", e.name)
		}
		if r, ok := e.data.(rawData); ok {
			fmt.Fprintf(w, "data: %s\n\n", r)
			continue
		}
		b, _ := json.Marshal(e.data)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
