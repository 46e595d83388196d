package claudecode

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pondhq/pond/adapters/corpus"
)

// claudeFormat writes Claude Code transcripts: <config dir>/projects/<cwd with / as ->/<id>.jsonl,
// one line per user or assistant record. An answer and a tool call are assistant records of
// their own API response (distinct message.id, so the adapter does not merge them); a tool
// result is a user record.
type claudeFormat struct{}

// Corpus implements corpus.Generator.
func (Adapter) Corpus(corpus.Env) corpus.Format { return &claudeFormat{} }

// claudeTools are Claude Code's names for the corpus's tools.
var claudeTools = map[string]string{"bash": "Bash", "read": "Read", "edit": "Edit", "grep": "Grep"}

func (*claudeFormat) Root(home string) string { return filepath.Join(home, ".claude") }

func (*claudeFormat) Messages(c *corpus.Conv) int {
	texts, tools := c.CountTurns()
	return texts + 2*tools
}

func (*claudeFormat) Finish(string) error { return nil }

func (*claudeFormat) Write(root string, c *corpus.Conv) (int64, error) {
	var lines [][]byte
	parent := any(nil)
	n := 0
	record := func(typ string, at corpus.Turn, message any, extra ...corpus.Field) {
		n++
		uuid := fmt.Sprintf("%s-%08x", c.ID[:23], n)
		fields := []corpus.Field{
			corpus.KV("parentUuid", parent), corpus.KV("isSidechain", false), corpus.KV("userType", "external"),
			corpus.KV("cwd", c.Cwd), corpus.KV("sessionId", c.ID), corpus.KV("version", "2.1.42"), corpus.KV("gitBranch", "main"),
			corpus.KV("type", typ), corpus.KV("message", message),
		}
		fields = append(fields, extra...)
		fields = append(fields, corpus.KV("uuid", uuid), corpus.KV("timestamp", corpus.ISO(at.At)))
		lines = append(lines, corpus.Obj(fields...))
		parent = uuid
	}
	assistant := func(at corpus.Turn, content any) {
		record("assistant", at, corpus.Obj(
			corpus.KV("model", "claude-opus-4-7"), corpus.KV("id", fmt.Sprintf("msg_%s%04d", c.RandHex(20), n)),
			corpus.KV("type", "message"), corpus.KV("role", "assistant"), corpus.KV("content", content),
			corpus.KV("stop_reason", "end_turn"), corpus.KV("stop_sequence", nil),
			corpus.KV("usage", corpus.Obj(corpus.KV("input_tokens", 12), corpus.KV("cache_read_input_tokens", 4000), corpus.KV("output_tokens", 30))),
		), corpus.KV("requestId", "req_"+c.RandHex(24)))
	}
	for i, t := range c.Turns {
		switch t.Kind {
		case corpus.UserText:
			record("user", t, corpus.Obj(corpus.KV("role", "user"), corpus.KV("content", t.Text)))
		case corpus.AssistantText:
			assistant(t, corpus.Arr(corpus.Obj(corpus.KV("type", "text"), corpus.KV("text", t.Text))))
		case corpus.ToolRun:
			id := fmt.Sprintf("toolu_%s%04d", c.RandHex(18), i)
			assistant(t, corpus.Arr(corpus.Obj(corpus.KV("type", "tool_use"), corpus.KV("id", id), corpus.KV("name", claudeTools[t.Tool]), corpus.KV("input", corpus.Obj(corpus.KV("command", t.Text))))))
			record("user", t, corpus.Obj(corpus.KV("role", "user"), corpus.KV("content", corpus.Arr(corpus.Obj(
				corpus.KV("tool_use_id", id), corpus.KV("type", "tool_result"), corpus.KV("content", t.Output), corpus.KV("is_error", t.Failed),
			)))))
		}
	}
	dir := strings.ReplaceAll(c.Cwd, "/", "-")
	return corpus.WriteLines(filepath.Join(root, "projects", dir, c.ID+".jsonl"), lines)
}
