package resume_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeModel stands in for the model APIs the agents call when they resume a session (the one
// thing of theirs outside the machine): an httptest server on the loopback that records every
// request and answers "ok" in the dialect of the path asked for: Anthropic's Messages API,
// OpenAI's Responses API, Gemini's generateContent.
type fakeModel struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []modelRequest
}

type modelRequest struct {
	Path string
	Body []byte
}

func newFakeModel(t *testing.T) *fakeModel {
	f := &fakeModel{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// requests returns what was asked since the last call and forgets it.
func (f *fakeModel) requests() []modelRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.reqs
	f.reqs = nil
	return r
}

func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Upgrade") != "" {
		// Codex tries a WebSocket first; 426 sends it to plain HTTPS at once.
		w.WriteHeader(http.StatusUpgradeRequired)
		return
	}
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.reqs = append(f.reqs, modelRequest{Path: r.URL.Path, Body: body})
	f.mu.Unlock()
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/messages"):
		msg := map[string]any{"id": "msg_fake", "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
			"stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 1, "output_tokens": 1}}
		if !req.Stream {
			msg["content"] = []any{map[string]string{"type": "text", "text": "ok"}}
			msg["stop_reason"] = "end_turn"
			writeJSON(w, http.StatusOK, msg)
			return
		}
		sse(w, []sseEvent{
			{"message_start", map[string]any{"type": "message_start", "message": msg}},
			{"content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]string{"type": "text", "text": ""}}},
			{"content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]string{"type": "text_delta", "text": "ok"}}},
			{"content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}},
			{"message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 1}}},
			{"message_stop", map[string]any{"type": "message_stop"}},
		})
	case strings.HasSuffix(p, "/responses"):
		item := map[string]any{"type": "message", "role": "assistant", "id": "msg_fake", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": "ok", "annotations": []any{}}}}
		usage := map[string]any{"input_tokens": 1, "input_tokens_details": map[string]int{"cached_tokens": 0}, "output_tokens": 1,
			"output_tokens_details": map[string]int{"reasoning_tokens": 0}, "total_tokens": 2}
		sse(w, []sseEvent{
			{"response.created", map[string]any{"type": "response.created", "response": map[string]string{"id": "resp_fake"}}},
			{"response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item}},
			{"response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": "resp_fake", "output": []any{item}, "usage": usage}}},
		})
	case strings.HasSuffix(p, ":countTokens"):
		writeJSON(w, http.StatusOK, map[string]int{"totalTokens": 1})
	case strings.HasSuffix(p, "generateContent") || strings.HasSuffix(p, "GenerateContent"):
		d := map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]string{"text": "ok"}}},
			"finishReason": "STOP", "index": 0}}, "usageMetadata": map[string]int{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}
		if r.URL.Query().Get("alt") == "sse" {
			sse(w, []sseEvent{{"", d}})
			return
		}
		writeJSON(w, http.StatusOK, d)
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]string{"message": "the fake model has no " + p}})
	}
}

type sseEvent struct {
	name string
	data any
}

func sse(w http.ResponseWriter, events []sseEvent) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		b, _ := json.Marshal(e.data)
		if e.name != "" {
			fmt.Fprintf(w, "event: %s\n", e.name)
		}
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
