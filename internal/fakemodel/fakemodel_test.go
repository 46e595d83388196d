package fakemodel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var script = Script{Conversations: []Conversation{{
	Match: "list the files",
	Replies: []Reply{
		{Text: "Looking.", Calls: []ToolCall{{Name: "Bash", Args: json.RawMessage(`{"command":"ls"}`)}}},
		{Text: "Two files."},
	},
}}}

// got is what an agent reads from one answer.
type got struct {
	Text  string
	Calls []string // name + args
}

// turn is one request in a dialect: the user's text, and whether the history already holds
// the model's tool call and its result.
type dialectCase struct {
	dialect Dialect
	path    string
	stream  bool
	request func(user string, answered bool) string
	read    func(t *testing.T, body []byte) got
}

var cases = []dialectCase{
	{Anthropic, "/v1/messages", false, anthropicRequest(false), readAnthropic},
	{Anthropic, "/v1/messages", true, anthropicRequest(true), readAnthropicStream},
	{Responses, "/v1/responses", true, responsesRequest, readResponses},
	{Chat, "/v1/chat/completions", false, chatRequest(false), readChat},
	{Chat, "/v1/chat/completions", true, chatRequest(true), readChatStream},
	{Gemini, "/v1beta/models/m:generateContent", false, geminiRequest, readGemini},
	{Gemini, "/v1beta/models/m:streamGenerateContent", true, geminiRequest, readGeminiStream},
}

func TestScriptedConversation(t *testing.T) {
	for _, tc := range cases {
		name := string(tc.dialect)
		if tc.stream {
			name += "-stream"
		}
		t.Run(name, func(t *testing.T) {
			srv := New(script)
			hs := httptest.NewServer(srv)
			defer hs.Close()
			ask := func(body string) got {
				t.Helper()
				path := tc.path
				if tc.dialect == Gemini && tc.stream {
					path += "?alt=sse"
				}
				resp, err := http.Post(hs.URL+path, "application/json", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("status %d: %s", resp.StatusCode, b)
				}
				return tc.read(t, b)
			}
			first := ask(tc.request("please list the files here", false))
			if diff := cmp.Diff(got{Text: "Looking.", Calls: []string{`Bash {"command":"ls"}`}}, first); diff != "" {
				t.Errorf("first reply (-want +got):\n%s", diff)
			}
			second := ask(tc.request("please list the files here", true))
			if diff := cmp.Diff(got{Text: "Two files."}, second); diff != "" {
				t.Errorf("reply after the tool result (-want +got):\n%s", diff)
			}
			other := ask(tc.request("something else", false))
			if diff := cmp.Diff(got{Text: "ok"}, other); diff != "" {
				t.Errorf("unscripted conversation (-want +got):\n%s", diff)
			}
			reqs := srv.Requests()
			if len(reqs) != 3 || reqs[0].Dialect != tc.dialect {
				t.Fatalf("recorded %d requests (first %+v), want 3 in %s", len(reqs), reqs[0], tc.dialect)
			}
			msgs, err := reqs[1].Conversation()
			if err != nil {
				t.Fatal(err)
			}
			var roles []string
			var user string
			calls, results := 0, 0
			for _, m := range msgs {
				roles = append(roles, m.Role)
				calls += len(m.Calls)
				results += len(m.Results)
				if m.Role == "user" && user == "" {
					user = strings.Join(m.Texts, " ")
				}
			}
			if calls != 1 || results != 1 || !strings.Contains(user, "list the files") {
				t.Errorf("the second request read as roles %v, %d calls, %d results", roles, calls, results)
			}
			if len(srv.Requests()) != 0 {
				t.Error("Requests did not forget what it returned")
			}
		})
	}
}

func TestModelsAndUnknownPaths(t *testing.T) {
	hs := httptest.NewServer(New(Script{}))
	defer hs.Close()
	resp, err := http.Get(hs.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Data) != 1 || list.Data[0].ID != FakeModelID {
		t.Errorf("models: %+v", list)
	}
	resp, err = http.Post(hs.URL+"/v1/embeddings", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown path: status %d, want 404", resp.StatusCode)
	}
	resp, err = http.Post(hs.URL+"/v1/messages", "application/json", strings.NewReader(`{"messages":`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("truncated request: status %d, want 400", resp.StatusCode)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func anthropicRequest(stream bool) func(string, bool) string {
	return func(user string, answered bool) string {
		msgs := []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "<system-reminder>context</system-reminder>"},
			map[string]any{"type": "text", "text": user}}}}
		if answered {
			msgs = append(msgs,
				map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]string{"command": "ls"}}}},
				map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a\nb"}}})
		}
		return mustJSON(map[string]any{"model": "claude-x", "stream": stream, "messages": msgs})
	}
}

func chatRequest(stream bool) func(string, bool) string {
	return func(user string, answered bool) string {
		msgs := []any{map[string]any{"role": "system", "content": "be brief"}, map[string]any{"role": "user", "content": user}}
		if answered {
			msgs = append(msgs,
				map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "c1", "type": "function", "function": map[string]string{"name": "Bash", "arguments": `{"command":"ls"}`}}}},
				map[string]any{"role": "tool", "tool_call_id": "c1", "content": "a\nb"})
		}
		return mustJSON(map[string]any{"model": "gpt-x", "stream": stream, "messages": msgs})
	}
}

func responsesRequest(user string, answered bool) string {
	items := []any{map[string]any{"type": "message", "role": "user", "content": []any{map[string]string{"type": "input_text", "text": user}}}}
	if answered {
		items = append(items,
			map[string]any{"type": "reasoning", "summary": []any{}},
			map[string]any{"type": "function_call", "call_id": "c1", "name": "Bash", "arguments": `{"command":"ls"}`},
			map[string]any{"type": "function_call_output", "call_id": "c1", "output": "a\nb"})
	}
	return mustJSON(map[string]any{"model": "gpt-x", "stream": true, "input": items})
}

func geminiRequest(user string, answered bool) string {
	contents := []any{map[string]any{"role": "user", "parts": []any{map[string]string{"text": user}}}}
	if answered {
		contents = append(contents,
			map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": "Bash", "args": map[string]string{"command": "ls"}}}}},
			map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "Bash", "response": map[string]string{"output": "a\nb"}}}}})
	}
	return mustJSON(map[string]any{"contents": contents})
}

// sseData returns the data lines of an event stream.
func sseData(body []byte) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok {
			out = append(out, append([]byte(nil), d...))
		}
	}
	return out
}

func callString(name string, args json.RawMessage) string {
	var buf bytes.Buffer
	json.Compact(&buf, args)
	return name + " " + buf.String()
}

func readAnthropic(t *testing.T, body []byte) got {
	var msg struct {
		Content []struct {
			Type  string          `json:"type"`
			Text  string          `json:"text"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Fatal(err)
	}
	var g got
	for _, c := range msg.Content {
		switch c.Type {
		case "text":
			g.Text += c.Text
		case "tool_use":
			g.Calls = append(g.Calls, callString(c.Name, c.Input))
		}
	}
	if (msg.StopReason == "tool_use") != (len(g.Calls) > 0) {
		t.Errorf("stop_reason %q with %d calls", msg.StopReason, len(g.Calls))
	}
	return g
}

func readAnthropicStream(t *testing.T, body []byte) got {
	var g got
	var name string
	var input strings.Builder
	for _, d := range sseData(body) {
		var ev struct {
			Type         string `json:"type"`
			ContentBlock struct {
				Type string `json:"type"`
				Name string `json:"name"`
			} `json:"content_block"`
			Delta struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		}
		if err := json.Unmarshal(d, &ev); err != nil {
			t.Fatal(err)
		}
		switch ev.Type {
		case "content_block_start":
			name = ""
			input.Reset()
			if ev.ContentBlock.Type == "tool_use" {
				name = ev.ContentBlock.Name
			}
		case "content_block_delta":
			g.Text += ev.Delta.Text
			input.WriteString(ev.Delta.PartialJSON)
		case "content_block_stop":
			if name != "" {
				g.Calls = append(g.Calls, callString(name, json.RawMessage(input.String())))
			}
		}
	}
	return g
}

func readResponses(t *testing.T, body []byte) got {
	var g got
	for _, d := range sseData(body) {
		var ev struct {
			Type string `json:"type"`
			Item struct {
				Type      string `json:"type"`
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
				Content   []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"item"`
		}
		if err := json.Unmarshal(d, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type != "response.output_item.done" {
			continue
		}
		switch ev.Item.Type {
		case "message":
			for _, c := range ev.Item.Content {
				g.Text += c.Text
			}
		case "function_call":
			g.Calls = append(g.Calls, callString(ev.Item.Name, json.RawMessage(ev.Item.Arguments)))
		}
	}
	return g
}

type chatCall struct {
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func readChat(t *testing.T, body []byte) got {
	var r struct {
		Choices []struct {
			Message struct {
				Content   *string    `json:"content"`
				ToolCalls []chatCall `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(body, &r); err != nil || len(r.Choices) != 1 {
		t.Fatalf("%s: %v", body, err)
	}
	var g got
	if c := r.Choices[0].Message.Content; c != nil {
		g.Text = *c
	}
	for _, c := range r.Choices[0].Message.ToolCalls {
		g.Calls = append(g.Calls, callString(c.Function.Name, json.RawMessage(c.Function.Arguments)))
	}
	return g
}

func readChatStream(t *testing.T, body []byte) got {
	var g got
	data := sseData(body)
	if len(data) == 0 || string(data[len(data)-1]) != "[DONE]" {
		t.Fatalf("the stream does not end with [DONE]:\n%s", body)
	}
	for _, d := range data[:len(data)-1] {
		var ch struct {
			Choices []struct {
				Delta struct {
					Content   string     `json:"content"`
					ToolCalls []chatCall `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(d, &ch); err != nil {
			t.Fatal(err)
		}
		for _, c := range ch.Choices {
			g.Text += c.Delta.Content
			for _, tc := range c.Delta.ToolCalls {
				g.Calls = append(g.Calls, callString(tc.Function.Name, json.RawMessage(tc.Function.Arguments)))
			}
		}
	}
	return g
}

func readGeminiResponse(t *testing.T, b []byte, g *got) {
	var r struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text         string `json:"text"`
					FunctionCall *struct {
						Name string          `json:"name"`
						Args json.RawMessage `json:"args"`
					} `json:"functionCall"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Candidates {
		for _, p := range c.Content.Parts {
			g.Text += p.Text
			if p.FunctionCall != nil {
				g.Calls = append(g.Calls, callString(p.FunctionCall.Name, p.FunctionCall.Args))
			}
		}
	}
}

func readGemini(t *testing.T, body []byte) got {
	var g got
	readGeminiResponse(t, body, &g)
	return g
}

func readGeminiStream(t *testing.T, body []byte) got {
	var g got
	for _, d := range sseData(body) {
		readGeminiResponse(t, d, &g)
	}
	return g
}

// TestResponsesNamespace: a Responses call named namespace.name names its tool's namespace, as
// Codex's own tools in namespaces (collaboration.spawn_agent) are called.
func TestResponsesNamespace(t *testing.T) {
	hs := httptest.NewServer(New(Script{Conversations: []Conversation{{Replies: []Reply{
		{Calls: []ToolCall{{Name: "collaboration.spawn_agent", Args: json.RawMessage(`{"task_name":"t"}`)}, {Name: "shell"}}}}}}}))
	defer hs.Close()
	resp, err := http.Post(hs.URL+"/v1/responses", "application/json", strings.NewReader(`{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var got []string
	for _, d := range sseData(b) {
		var ev struct {
			Type string `json:"type"`
			Item struct {
				Type, Name string
				Namespace  *string
			} `json:"item"`
		}
		if err := json.Unmarshal(d, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type == "response.output_item.done" && ev.Item.Type == "function_call" {
			ns := "-"
			if ev.Item.Namespace != nil {
				ns = *ev.Item.Namespace
			}
			got = append(got, ns+" "+ev.Item.Name)
		}
	}
	if diff := cmp.Diff([]string{"collaboration spawn_agent", "- shell"}, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}
