package roocode

import (
	"fmt"
	"path/filepath"

	"github.com/pondhq/pond/adapters/cline"
	"github.com/pondhq/pond/adapters/corpus"
)

// rooFormat writes Roo Code task folders in VS Code's globalStorage:
// <home>/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/<id>/ with
// history_item.json and api_conversation_history.json in its version 2 form (AI-SDK messages:
// a tool run is an assistant tool-call and a tool message's tool-result).
type rooFormat struct{}

// Corpus implements corpus.Generator.
func (Adapter) Corpus(corpus.Env) corpus.Format { return rooFormat{} }

// rooTools are Roo Code's names for the corpus's tools.
var rooTools = map[string]string{"bash": "execute_command", "read": "read_file", "edit": "apply_diff", "grep": "search_files"}

func (rooFormat) Root(home string) string {
	return filepath.Join(home, ".config", "Code", "User", "globalStorage", ExtensionID)
}

func (rooFormat) Messages(c *corpus.Conv) int {
	texts, tools := c.CountTurns()
	return 1 + texts + 2*tools
}

func (rooFormat) Finish(string) error { return nil }

func (rooFormat) Write(root string, c *corpus.Conv) (int64, error) {
	dir := filepath.Join(root, "tasks", c.ID)
	var msgs []any
	for i, t := range c.Turns {
		at := corpus.KV("ts", corpus.Millis(t.At))
		switch t.Kind {
		case corpus.UserText:
			msgs = append(msgs, corpus.Obj(corpus.KV("role", "user"), corpus.KV("content", corpus.Arr(corpus.Obj(corpus.KV("type", "text"), corpus.KV("text", t.Text)))), at))
		case corpus.AssistantText:
			msgs = append(msgs, corpus.Obj(corpus.KV("role", "assistant"), corpus.KV("content", corpus.Arr(corpus.Obj(corpus.KV("type", "text"), corpus.KV("text", t.Text)))), at))
		case corpus.ToolRun:
			call := fmt.Sprintf("call_%s%04d", c.RandHex(20), i)
			name := rooTools[t.Tool]
			out := t.Output
			if t.Failed {
				out = "[ERROR] " + out
			}
			msgs = append(msgs, corpus.Obj(corpus.KV("role", "assistant"), corpus.KV("content", corpus.Arr(corpus.Obj(corpus.KV("type", "tool-call"),
				corpus.KV("toolCallId", call), corpus.KV("toolName", name), corpus.KV("input", corpus.Obj(corpus.KV("command", t.Text)))))), at))
			msgs = append(msgs, corpus.Obj(corpus.KV("role", "tool"), corpus.KV("content", corpus.Arr(corpus.Obj(corpus.KV("type", "tool-result"),
				corpus.KV("toolCallId", call), corpus.KV("toolName", name), corpus.KV("output", corpus.Obj(corpus.KV("type", "text"), corpus.KV("value", out)))))), at))
		}
	}
	item := corpus.Obj(corpus.KV("id", c.ID), corpus.KV("number", c.Index+1), corpus.KV("ts", corpus.Millis(c.Start)),
		corpus.KV("task", "session "+fmt.Sprint(c.Index)), corpus.KV("tokensIn", 1000), corpus.KV("tokensOut", 200),
		corpus.KV("totalCost", 0.01), corpus.KV("workspace", c.Cwd), corpus.KV("mode", "code"), corpus.KV("status", "completed"))
	n, err := corpus.WriteLines(filepath.Join(dir, "api_conversation_history.json"), [][]byte{corpus.Obj(corpus.KV("version", 2), corpus.KV("messages", corpus.Arr(msgs...)))})
	if err != nil {
		return 0, err
	}
	m, err := corpus.WriteLines(filepath.Join(dir, cline.HistoryItemFile), [][]byte{item})
	return n + m, err
}
