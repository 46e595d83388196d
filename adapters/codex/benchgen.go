package codex

import (
	"fmt"
	"path/filepath"

	"github.com/pondhq/pond/adapters/corpus"
)

// codexFormat writes Codex CLI rollouts: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl,
// a session_meta line, then one response_item line per message, function call and call output.
type codexFormat struct{}

// Corpus implements corpus.Generator.
func (*Adapter) Corpus(corpus.Env) corpus.Format { return &codexFormat{} }

func (*codexFormat) Root(home string) string { return filepath.Join(home, ".codex") }

func (*codexFormat) Messages(c *corpus.Conv) int {
	texts, tools := c.CountTurns()
	return 1 + texts + 2*tools // session_meta is a system message
}

func (*codexFormat) Finish(string) error { return nil }

func (*codexFormat) Write(root string, c *corpus.Conv) (int64, error) {
	line := func(at corpus.Turn, typ string, payload any) []byte {
		return corpus.Obj(corpus.KV("timestamp", corpus.ISO(at.At)), corpus.KV("type", typ), corpus.KV("payload", payload))
	}
	lines := [][]byte{line(corpus.Turn{At: c.Start}, "session_meta", corpus.Obj(
		corpus.KV("id", c.ID), corpus.KV("timestamp", corpus.ISO(c.Start)), corpus.KV("cwd", c.Cwd), corpus.KV("originator", "codex_cli_rs"),
		corpus.KV("cli_version", "0.150.0"), corpus.KV("source", "cli"), corpus.KV("model_provider", "openai"),
		corpus.KV("base_instructions", corpus.Obj(corpus.KV("text", "You are Codex, a coding agent."))),
	))}
	for i, t := range c.Turns {
		switch t.Kind {
		case corpus.UserText:
			lines = append(lines, line(t, "response_item", corpus.Obj(corpus.KV("type", "message"), corpus.KV("id", fmt.Sprintf("msg_u%s%05d", c.RandHex(12), i)),
				corpus.KV("role", "user"), corpus.KV("content", corpus.Arr(corpus.Obj(corpus.KV("type", "input_text"), corpus.KV("text", t.Text)))))))
		case corpus.AssistantText:
			lines = append(lines, line(t, "response_item", corpus.Obj(corpus.KV("type", "message"), corpus.KV("id", fmt.Sprintf("msg_a%s%05d", c.RandHex(12), i)),
				corpus.KV("role", "assistant"), corpus.KV("content", corpus.Arr(corpus.Obj(corpus.KV("type", "output_text"), corpus.KV("text", t.Text)))))))
		case corpus.ToolRun:
			call := fmt.Sprintf("call_%s%05d", c.RandHex(16), i)
			args := string(corpus.Obj(corpus.KV("cmd", t.Text), corpus.KV("workdir", c.Cwd)))
			lines = append(lines, line(t, "response_item", corpus.Obj(corpus.KV("type", "function_call"), corpus.KV("id", fmt.Sprintf("fc_%s%05d", c.RandHex(12), i)),
				corpus.KV("name", "exec_command"), corpus.KV("arguments", args), corpus.KV("call_id", call))))
			code := 0
			if t.Failed {
				code = 1
			}
			out := fmt.Sprintf("Process exited with code %d\nOutput:\n%s", code, t.Output)
			lines = append(lines, line(t, "response_item", corpus.Obj(corpus.KV("type", "function_call_output"), corpus.KV("call_id", call), corpus.KV("output", out))))
		}
	}
	local := c.Start // Codex names files by local time; the corpus uses UTC
	name := fmt.Sprintf("rollout-%s-%s.jsonl", local.Format("2006-01-02T15-04-05"), c.ID)
	return corpus.WriteLines(filepath.Join(root, "sessions", local.Format("2006"), local.Format("01"), local.Format("02"), name), lines)
}
