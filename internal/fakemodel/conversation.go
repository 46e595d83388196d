package fakemodel

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Message is one turn of the conversation a request carries, in any dialect: the texts the
// user or the model wrote (the model's reasoning left out), the tool calls the model made and
// the tool results sent back.
type Message struct {
	Role    string // "system", "user", "assistant" or "tool"
	Texts   []string
	Calls   []Call
	Results []Result
}

// Call is a tool call in a conversation.
type Call struct {
	ID   string
	Name string
	Args json.RawMessage
}

// Result is a tool's answer in a conversation.
type Result struct {
	CallID string
	Text   string
}

// Conversation reads the conversation a request carries, in its dialect.
func (r Request) Conversation() ([]Message, error) {
	var (
		msgs []Message
		err  error
	)
	switch r.Dialect {
	case Anthropic:
		msgs, err = anthropicConversation(r.Body)
	case Responses:
		msgs, err = responsesConversation(r.Body)
	case Chat:
		msgs, err = chatConversation(r.Body)
	case Gemini:
		msgs, err = geminiConversation(r.Body)
	default:
		return nil, fmt.Errorf("fakemodel: %s carries no conversation", r.Path)
	}
	if err != nil {
		return nil, fmt.Errorf("fakemodel: %s request: %w", r.Dialect, err)
	}
	return msgs, nil
}

// textsOf reads a content that is a string, or a list of blocks with text: one text a block.
func textsOf(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var out []string
	for _, x := range blocks {
		if x.Type == "" || strings.HasSuffix(x.Type, "text") { // text, input_text, output_text
			out = append(out, x.Text)
		}
	}
	return out
}

// textOf is a content's texts as one.
func textOf(raw json.RawMessage) string {
	return strings.Join(textsOf(raw), "\n")
}

func anthropicConversation(body []byte) ([]Message, error) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var out []Message
	for _, m := range req.Messages {
		msg := Message{Role: m.Role}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			msg.Texts = append(msg.Texts, s)
			out = append(out, msg)
			continue
		}
		var blocks []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(m.Content, &blocks); err != nil {
			return nil, err
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				msg.Texts = append(msg.Texts, b.Text)
			case "tool_use", "server_tool_use":
				msg.Calls = append(msg.Calls, Call{ID: b.ID, Name: b.Name, Args: b.Input})
			case "tool_result":
				msg.Results = append(msg.Results, Result{CallID: b.ToolUseID, Text: textOf(b.Content)})
			}
		}
		out = append(out, msg)
	}
	return out, nil
}

func chatConversation(body []byte) ([]Message, error) {
	var req struct {
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var out []Message
	for _, m := range req.Messages {
		msg := Message{Role: m.Role}
		if m.Role == "developer" {
			msg.Role = "system"
		}
		var texts []string
		if len(m.Content) > 0 && string(m.Content) != "null" {
			texts = textsOf(m.Content)
		}
		if m.Role == "tool" {
			msg.Results = append(msg.Results, Result{CallID: m.ToolCallID, Text: strings.Join(texts, "\n")})
		} else {
			msg.Texts = append(msg.Texts, texts...)
		}
		for _, c := range m.ToolCalls {
			msg.Calls = append(msg.Calls, Call{ID: c.ID, Name: c.Function.Name, Args: json.RawMessage(c.Function.Arguments)})
		}
		out = append(out, msg)
	}
	return out, nil
}

// responsesConversation groups the Responses API's flat list of items into turns: what the
// model produced in one reply (messages, reasoning, calls) is one assistant turn, the outputs
// sent back one tool turn.
func responsesConversation(body []byte) ([]Message, error) {
	var req struct {
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var s string
	if json.Unmarshal(req.Input, &s) == nil {
		return []Message{{Role: "user", Texts: []string{s}}}, nil
	}
	var items []struct {
		Type      string          `json:"type"`
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		CallID    string          `json:"call_id"`
		Name      string          `json:"name"`
		Arguments string          `json:"arguments"`
		Input     string          `json:"input"`
		Action    json.RawMessage `json:"action"`
		Output    json.RawMessage `json:"output"`
	}
	if len(req.Input) > 0 {
		if err := json.Unmarshal(req.Input, &items); err != nil {
			return nil, err
		}
	}
	var out []Message
	turn := func(role string) *Message {
		if n := len(out); n > 0 && out[n-1].Role == role && role != "user" && role != "system" {
			return &out[n-1]
		}
		out = append(out, Message{Role: role})
		return &out[len(out)-1]
	}
	for _, it := range items {
		typ := it.Type
		if typ == "" && it.Role != "" {
			typ = "message"
		}
		switch typ {
		case "message":
			role := it.Role
			if role == "developer" {
				role = "system"
			}
			m := turn(role)
			m.Texts = append(m.Texts, textsOf(it.Content)...)
		case "reasoning":
			turn("assistant")
		case "function_call":
			m := turn("assistant")
			m.Calls = append(m.Calls, Call{ID: it.CallID, Name: it.Name, Args: json.RawMessage(it.Arguments)})
		case "custom_tool_call":
			m := turn("assistant")
			args, _ := json.Marshal(map[string]string{"input": it.Input})
			m.Calls = append(m.Calls, Call{ID: it.CallID, Name: it.Name, Args: args})
		case "local_shell_call":
			m := turn("assistant")
			m.Calls = append(m.Calls, Call{ID: it.CallID, Name: "local_shell", Args: it.Action})
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			m := turn("tool")
			m.Results = append(m.Results, Result{CallID: it.CallID, Text: textOf(it.Output)})
		}
	}
	return out, nil
}

func geminiConversation(body []byte) ([]Message, error) {
	var req struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text         *string `json:"text"`
				Thought      bool    `json:"thought"`
				FunctionCall *struct {
					ID   string          `json:"id"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
				FunctionResponse *struct {
					ID       string          `json:"id"`
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var out []Message
	for _, c := range req.Contents {
		msg := Message{Role: c.Role}
		if c.Role == "model" {
			msg.Role = "assistant"
		}
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				msg.Calls = append(msg.Calls, Call{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Args: p.FunctionCall.Args})
			case p.FunctionResponse != nil:
				msg.Results = append(msg.Results, Result{CallID: p.FunctionResponse.ID, Text: string(p.FunctionResponse.Response)})
			case p.Text != nil && !p.Thought:
				msg.Texts = append(msg.Texts, *p.Text)
			}
		}
		out = append(out, msg)
	}
	return out, nil
}
