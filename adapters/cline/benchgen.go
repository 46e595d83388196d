package cline

import (
	"fmt"
	"path/filepath"

	"github.com/pondhq/pond/adapters/corpus"
)

// clineFormat writes Cline's SDK store as cline 3.0.65 does: <home>/.cline/data/sessions/<id>/
// with the manifest <id>.json and the messages document <id>.messages.json, a user or
// assistant message per text turn and per tool run an assistant tool_use and a user
// tool_result.
type clineFormat struct{}

// Corpus implements corpus.Generator.
func (Adapter) Corpus(corpus.Env) corpus.Format { return clineFormat{} }

// clineTools are Cline's names for the corpus's tools.
var clineTools = map[string]string{"bash": "run_commands", "read": "read_files", "edit": "editor", "grep": "search_codebase"}

func (clineFormat) Root(home string) string { return filepath.Join(home, ".cline", "data") }

func (clineFormat) Messages(c *corpus.Conv) int {
	texts, tools := c.CountTurns()
	return 1 + texts + 2*tools
}

func (clineFormat) Finish(string) error { return nil }

func (clineFormat) Write(root string, c *corpus.Conv) (int64, error) {
	id := fmt.Sprintf("%d_%s", corpus.Millis(c.Start), c.RandHex(5))
	dir := filepath.Join(root, "sessions", id)
	msgPath := filepath.Join(dir, id+messagesSuffix)
	var msgs []any
	text := func(role string, t corpus.Turn, s string) {
		msgs = append(msgs, corpus.Obj(corpus.KV("id", "msg_"+c.RandHex(8)), corpus.KV("role", role),
			corpus.KV("content", corpus.Arr(corpus.Obj(corpus.KV("type", "text"), corpus.KV("text", s)))), corpus.KV("ts", corpus.Millis(t.At))))
	}
	for i, t := range c.Turns {
		switch t.Kind {
		case corpus.UserText:
			text("user", t, `<user_input mode="act">`+t.Text+"</user_input>")
		case corpus.AssistantText:
			text("assistant", t, t.Text)
		case corpus.ToolRun:
			call := fmt.Sprintf("toolu_%s%04d", c.RandHex(20), i)
			name := clineTools[t.Tool]
			msgs = append(msgs, corpus.Obj(corpus.KV("id", "msg_"+c.RandHex(8)), corpus.KV("role", "assistant"),
				corpus.KV("content", corpus.Arr(corpus.Obj(corpus.KV("type", "tool_use"), corpus.KV("id", call), corpus.KV("name", name),
					corpus.KV("input", corpus.Obj(corpus.KV("commands", corpus.Arr(t.Text))))))),
				corpus.KV("ts", corpus.Millis(t.At)), corpus.KV("modelInfo", corpus.Obj(corpus.KV("id", "claude-sonnet-4-6"), corpus.KV("provider", "anthropic")))))
			msgs = append(msgs, corpus.Obj(corpus.KV("id", "msg_"+c.RandHex(8)), corpus.KV("role", "user"),
				corpus.KV("content", corpus.Arr(corpus.Obj(corpus.KV("type", "tool_result"), corpus.KV("tool_use_id", call), corpus.KV("name", name),
					corpus.KV("content", t.Output), corpus.KV("is_error", t.Failed)))), corpus.KV("ts", corpus.Millis(t.At))))
		}
	}
	doc := corpus.Obj(corpus.KV("version", 1), corpus.KV("updated_at", corpus.ISO(c.LastAt)), corpus.KV("agent", "lead"),
		corpus.KV("sessionId", id), corpus.KV("messages", corpus.Arr(msgs...)), corpus.KV("system_prompt", "You are Cline."))
	man := corpus.Obj(corpus.KV("version", 1), corpus.KV("session_id", id), corpus.KV("source", "cli"), corpus.KV("pid", 4242),
		corpus.KV("started_at", corpus.ISO(c.Start)), corpus.KV("ended_at", corpus.ISO(c.LastAt)), corpus.KV("exit_code", 0),
		corpus.KV("status", "completed"), corpus.KV("interactive", true), corpus.KV("provider", "anthropic"),
		corpus.KV("model", "claude-sonnet-4-6"), corpus.KV("cwd", c.Cwd), corpus.KV("workspace_root", c.Cwd),
		corpus.KV("enable_tools", true), corpus.KV("enable_spawn", true), corpus.KV("enable_teams", false),
		corpus.KV("metadata", corpus.Obj(corpus.KV("title", "session "+fmt.Sprint(c.Index)))), corpus.KV("messages_path", msgPath))
	n, err := corpus.WriteLines(msgPath, [][]byte{doc})
	if err != nil {
		return 0, err
	}
	m, err := corpus.WriteLines(filepath.Join(dir, id+".json"), [][]byte{man})
	return n + m, err
}
