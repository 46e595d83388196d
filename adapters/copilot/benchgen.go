package copilot

import (
	"fmt"
	"path/filepath"

	"github.com/pondhq/pond/adapters/corpus"
)

// copilotFormat writes Copilot CLI event logs: <home>/.copilot/session-state/<id>/events.jsonl,
// events chained by parentId as 1.0.102 writes them: session.start, a user.message per prompt,
// an assistant.message per answer, and per tool run an assistant.message with the call, a
// tool.execution_start and a tool.execution_complete.
type copilotFormat struct{}

// Corpus implements corpus.Generator.
func (Adapter) Corpus(corpus.Env) corpus.Format { return copilotFormat{} }

// copilotTools are Copilot's names for the corpus's tools.
var copilotTools = map[string]string{"bash": "bash", "read": "view", "edit": "edit", "grep": "grep"}

func (copilotFormat) Root(home string) string { return filepath.Join(home, ".copilot") }

func (copilotFormat) Messages(c *corpus.Conv) int {
	texts, tools := c.CountTurns()
	return 1 + texts + 3*tools
}

func (copilotFormat) Finish(string) error { return nil }

func (copilotFormat) Write(root string, c *corpus.Conv) (int64, error) {
	var lines [][]byte
	parent := any(nil)
	n := 0
	event := func(typ string, at corpus.Turn, data any) {
		n++
		id := fmt.Sprintf("%s-%012x", c.ID[:23], n) // a UUID, as the CLI's envelope requires
		lines = append(lines, corpus.Obj(corpus.KV("type", typ), corpus.KV("data", data), corpus.KV("id", id),
			corpus.KV("timestamp", corpus.ISO(at.At)), corpus.KV("parentId", parent)))
		parent = id
	}
	event("session.start", corpus.Turn{At: c.Start}, corpus.Obj(corpus.KV("sessionId", c.ID), corpus.KV("version", 1),
		corpus.KV("producer", "copilot-agent"), corpus.KV("copilotVersion", "1.0.102"), corpus.KV("startTime", corpus.ISO(c.Start)),
		corpus.KV("selectedModel", "claude-sonnet-4.5"), corpus.KV("context", corpus.Obj(corpus.KV("cwd", c.Cwd))),
		corpus.KV("alreadyInUse", false)))
	for i, t := range c.Turns {
		switch t.Kind {
		case corpus.UserText:
			event("user.message", t, corpus.Obj(corpus.KV("content", t.Text),
				corpus.KV("transformedContent", "<current_datetime>"+corpus.ISO(t.At)+"</current_datetime>\n\n"+t.Text),
				corpus.KV("messageId", c.ID[:24]+c.RandHex(12)), corpus.KV("delivery", "idle")))
		case corpus.AssistantText:
			event("assistant.message", t, corpus.Obj(corpus.KV("messageId", c.ID[:24]+c.RandHex(12)), corpus.KV("model", "claude-sonnet-4.5"),
				corpus.KV("content", t.Text), corpus.KV("toolRequests", []any{}), corpus.KV("apiCallId", "msg_"+c.RandHex(24))))
		case corpus.ToolRun:
			id := fmt.Sprintf("toolu_%s%04d", c.RandHex(20), i)
			name := copilotTools[t.Tool]
			args := corpus.Obj(corpus.KV("command", t.Text), corpus.KV("description", "Run "+t.Tool))
			event("assistant.message", t, corpus.Obj(corpus.KV("messageId", c.ID[:24]+c.RandHex(12)), corpus.KV("model", "claude-sonnet-4.5"),
				corpus.KV("content", ""), corpus.KV("toolRequests", corpus.Arr(corpus.Obj(corpus.KV("toolCallId", id), corpus.KV("name", name),
					corpus.KV("arguments", args), corpus.KV("type", "function")))), corpus.KV("apiCallId", "msg_"+c.RandHex(24))))
			event("tool.execution_start", t, corpus.Obj(corpus.KV("toolCallId", id), corpus.KV("toolName", name), corpus.KV("arguments", args)))
			done := corpus.Obj(corpus.KV("toolCallId", id), corpus.KV("model", "claude-sonnet-4.5"), corpus.KV("success", true),
				corpus.KV("result", corpus.Obj(corpus.KV("content", t.Output))))
			if t.Failed {
				done = corpus.Obj(corpus.KV("toolCallId", id), corpus.KV("model", "claude-sonnet-4.5"), corpus.KV("success", false),
					corpus.KV("error", corpus.Obj(corpus.KV("message", t.Output), corpus.KV("code", "failure"))))
			}
			event("tool.execution_complete", t, done)
		}
	}
	return corpus.WriteLines(filepath.Join(root, "session-state", c.ID, "events.jsonl"), lines)
}
