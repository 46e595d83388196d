// Package fakemodel stands in for the model APIs coding agents call — Anthropic's Messages API,
// OpenAI's Responses and Chat Completions APIs, Gemini's generateContent — the one thing of
// theirs that lives outside the machine. Running an agent's own code against it is how Pond
// checks what it restores (resume's agent tests), writes genuine fixtures (scripts/fixtures.sh)
// and drives plugins in their hosts, all offline.
//
// A Server records every request and answers from a Script: per conversation, a sequence of
// replies (text, tool calls, a sub-agent's task is a tool call like any other), chosen by how
// many replies the conversation already holds, so the answer depends only on the request and
// the agent may retry or run several conversations at once. Anything the script does not name
// gets a plain "ok".
package fakemodel

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Dialect is the API a request speaks.
type Dialect string

// The dialects the fake answers.
const (
	Anthropic Dialect = "anthropic" // POST …/messages
	Responses Dialect = "responses" // POST …/responses
	Chat      Dialect = "chat"      // POST …/chat/completions
	Gemini    Dialect = "gemini"    // POST …:generateContent, …:streamGenerateContent
)

// DialectOf names the dialect of a request path; "" for one the fake does not answer with a
// conversation (model lists, token counts, unknown paths).
func DialectOf(path string) Dialect {
	switch {
	case strings.HasSuffix(path, "/messages"):
		return Anthropic
	case strings.HasSuffix(path, "/responses"):
		return Responses
	case strings.HasSuffix(path, "/chat/completions"):
		return Chat
	case strings.HasSuffix(path, "enerateContent"): // generateContent, streamGenerateContent
		return Gemini
	}
	return ""
}

// Script says what the fake answers.
type Script struct {
	// Conversations are tried in order; the first whose Match the request's user text holds
	// answers it.
	Conversations []Conversation `json:"conversations"`
	// Default is the text of every other answer; "ok" when empty.
	Default string `json:"default,omitempty"`
}

// Conversation is one scripted exchange.
type Conversation struct {
	// Match is a substring of the conversation's user text (tool results left out); "" matches
	// every conversation.
	Match string `json:"match"`
	// Replies answer in order: reply n answers a request whose history already holds n replies
	// of the model. Past the last one, the script's Default text answers.
	Replies []Reply `json:"replies"`
}

// Reply is one answer of the model: text, tool calls, or both.
type Reply struct {
	Text  string     `json:"text,omitempty"`
	Calls []ToolCall `json:"calls,omitempty"`
}

// ToolCall is a call the model asks the agent to run.
type ToolCall struct {
	// Name is the tool's name. In the Responses dialect, "namespace.name" calls a tool of a
	// namespace (Codex's collaboration.spawn_agent, which starts a sub-agent).
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"` // a JSON object; {} when empty
}

// Request is one call an agent made.
type Request struct {
	Method  string  `json:"method"`
	Path    string  `json:"path"`
	Query   string  `json:"query,omitempty"`
	Body    []byte  `json:"body,omitempty"`
	Dialect Dialect `json:"dialect,omitempty"`
}

// Server is the fake model API as an http.Handler (serve it with httptest.NewServer, or
// cmd/pond-fakemodel on a port).
type Server struct {
	script Script
	// OnRequest, when set, sees each request as it arrives (the command logs them).
	OnRequest func(Request)

	mu   sync.Mutex
	reqs []Request
}

// New returns a server answering from script.
func New(script Script) *Server {
	return &Server{script: script}
}

// Requests returns the requests received since the last call, and forgets them.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.reqs
	s.reqs = nil
	return r
}

// maxBody bounds a request's body: agents send whole conversations, but nothing near this.
const maxBody = 256 << 20

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Upgrade") != "" {
		// Codex tries a WebSocket first; 426 sends it to plain HTTPS at once.
		w.WriteHeader(http.StatusUpgradeRequired)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		writeJSON(w, http.StatusBadRequest, apiError("unreadable body: "+err.Error()))
		return
	}
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: body, Dialect: DialectOf(r.URL.Path)}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	if s.OnRequest != nil {
		s.OnRequest(req)
	}

	switch {
	case strings.HasSuffix(req.Path, "/models") && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, modelList())
		return
	case strings.HasSuffix(req.Path, ":countTokens") || strings.HasSuffix(req.Path, "/count_tokens"):
		writeJSON(w, http.StatusOK, map[string]int{"totalTokens": 1, "input_tokens": 1})
		return
	case req.Dialect == "":
		writeJSON(w, http.StatusNotFound, apiError("the fake model has no "+req.Path))
		return
	}
	msgs, err := req.Conversation()
	if err != nil {
		writeJSON(w, http.StatusBadRequest, apiError(err.Error()))
		return
	}
	var head struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &head)
	reply, turn := s.reply(msgs)
	a := answer{model: head.Model, reply: reply, turn: turn}
	if a.model == "" {
		a.model = FakeModelID
	}
	switch req.Dialect {
	case Anthropic:
		a.anthropic(w, head.Stream)
	case Responses:
		a.responses(w)
	case Chat:
		a.chat(w, head.Stream)
	case Gemini:
		a.gemini(w, r.URL.Query().Get("alt") == "sse" || strings.HasSuffix(req.Path, "streamGenerateContent"))
	}
}

// reply picks the scripted answer to a conversation, and a number unique to it (for ids).
func (s *Server) reply(msgs []Message) (Reply, int) {
	var user strings.Builder
	replies := 0
	for _, m := range msgs {
		switch m.Role {
		case "user":
			for _, t := range m.Texts {
				user.WriteString(t)
				user.WriteByte('\n')
			}
		case "assistant":
			replies++
		}
	}
	def := Reply{Text: s.script.Default}
	if def.Text == "" {
		def.Text = "ok"
	}
	for i, c := range s.script.Conversations {
		if !strings.Contains(user.String(), c.Match) {
			continue
		}
		if replies < len(c.Replies) {
			return c.Replies[replies], (i+1)*1000 + replies
		}
		return def, (i+1)*1000 + replies
	}
	return def, replies
}

// FakeModelID is the model the fake says it is when a request names none, and the one its
// model list offers.
const FakeModelID = "pond-fake-model"

func modelList() map[string]any {
	m := map[string]any{"id": FakeModelID, "object": "model", "type": "model", "display_name": "Pond fake model",
		"created": 0, "created_at": "2026-01-01T00:00:00Z", "owned_by": "pond"}
	return map[string]any{"object": "list", "data": []any{m}, "has_more": false, "first_id": FakeModelID, "last_id": FakeModelID}
}

func apiError(msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]string{"type": "invalid_request_error", "message": msg}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
