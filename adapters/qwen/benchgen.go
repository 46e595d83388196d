package qwen

import (
	"fmt"
	"path/filepath"

	"github.com/pondhq/pond/adapters/corpus"
)

// qwenFormat writes Qwen Code transcripts: <home>/.qwen/projects/<sanitized cwd>/chats/<id>.jsonl,
// one record per line chained by parentUuid: a user record per prompt, an assistant record per
// answer or tool call, a tool_result record per result.
type qwenFormat struct{}

// Corpus implements corpus.Generator.
func (Adapter) Corpus(corpus.Env) corpus.Format { return qwenFormat{} }

// qwenTools are Qwen's names for the corpus's tools.
var qwenTools = map[string]string{"bash": "run_shell_command", "read": "read_file", "edit": "edit", "grep": "grep_search"}

func (qwenFormat) Root(home string) string { return filepath.Join(home, ".qwen") }

func (qwenFormat) Messages(c *corpus.Conv) int {
	texts, tools := c.CountTurns()
	return texts + 2*tools
}

func (qwenFormat) Finish(string) error { return nil }

func (qwenFormat) Write(root string, c *corpus.Conv) (int64, error) {
	var lines [][]byte
	parent := any(nil)
	n := 0
	record := func(typ, prov string, at corpus.Turn, message any, extra ...corpus.Field) {
		n++
		uuid := fmt.Sprintf("%s-%08x", c.ID[:23], n)
		fields := []corpus.Field{
			corpus.KV("uuid", uuid), corpus.KV("parentUuid", parent), corpus.KV("sessionId", c.ID),
			corpus.KV("timestamp", corpus.ISO(at.At)), corpus.KV("type", typ), corpus.KV("provenance", prov),
			corpus.KV("cwd", c.Cwd), corpus.KV("version", "0.24.4"), corpus.KV("gitBranch", "main"),
		}
		fields = append(fields, extra...)
		fields = append(fields, corpus.KV("message", message))
		lines = append(lines, corpus.Obj(fields...))
		parent = uuid
	}
	usage := corpus.KV("usageMetadata", corpus.Obj(corpus.KV("promptTokenCount", 4012), corpus.KV("candidatesTokenCount", 30), corpus.KV("totalTokenCount", 4042)))
	for i, t := range c.Turns {
		switch t.Kind {
		case corpus.UserText:
			record("user", "real_user", t, corpus.Obj(corpus.KV("role", "user"), corpus.KV("parts", corpus.Arr(corpus.Obj(corpus.KV("text", t.Text))))))
		case corpus.AssistantText:
			record("assistant", "assistant_output", t, corpus.Obj(corpus.KV("role", "model"), corpus.KV("parts", corpus.Arr(corpus.Obj(corpus.KV("text", t.Text))))),
				corpus.KV("model", "qwen3-coder-plus"), usage)
		case corpus.ToolRun:
			id := fmt.Sprintf("call_%s%04d", c.RandHex(20), i)
			name := qwenTools[t.Tool]
			record("assistant", "assistant_output", t, corpus.Obj(corpus.KV("role", "model"), corpus.KV("parts", corpus.Arr(corpus.Obj(
				corpus.KV("functionCall", corpus.Obj(corpus.KV("id", id), corpus.KV("name", name), corpus.KV("args", corpus.Obj(corpus.KV("command", t.Text))))))))),
				corpus.KV("model", "qwen3-coder-plus"), usage)
			key, status := "output", "success"
			if t.Failed {
				key, status = "error", "error"
			}
			record("tool_result", "tool_result", t, corpus.Obj(corpus.KV("role", "user"), corpus.KV("parts", corpus.Arr(corpus.Obj(
				corpus.KV("functionResponse", corpus.Obj(corpus.KV("id", id), corpus.KV("name", name), corpus.KV("response", corpus.Obj(corpus.KV(key, t.Output))))))))),
				corpus.KV("toolCallResult", corpus.Obj(corpus.KV("callId", id), corpus.KV("status", status), corpus.KV("resultDisplay", t.Output))))
		}
	}
	return corpus.WriteLines(filepath.Join(root, "projects", projectDir(c.Cwd), "chats", c.ID+".jsonl"), lines)
}
