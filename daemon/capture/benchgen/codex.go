package benchgen

import (
	"fmt"
	"path/filepath"
)

// codexFormat writes Codex CLI rollouts: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl,
// a session_meta line, then one response_item line per message, function call and call output.
type codexFormat struct{}

func (*codexFormat) root(home string) string { return filepath.Join(home, ".codex") }

func (*codexFormat) messages(c *conv) int {
	texts, tools := countTurns(c)
	return 1 + texts + 2*tools // session_meta is a system message
}

func (*codexFormat) finish(string) error { return nil }

func (*codexFormat) write(root string, c *conv) (int64, error) {
	line := func(at turn, typ string, payload any) []byte {
		return obj(kv{"timestamp", iso(at.at)}, kv{"type", typ}, kv{"payload", payload})
	}
	lines := [][]byte{line(turn{at: c.start}, "session_meta", obj(
		kv{"id", c.id}, kv{"timestamp", iso(c.start)}, kv{"cwd", c.cwd}, kv{"originator", "codex_cli_rs"},
		kv{"cli_version", "0.150.0"}, kv{"source", "cli"}, kv{"model_provider", "openai"},
		kv{"base_instructions", obj(kv{"text", "You are Codex, a coding agent."})},
	))}
	for i, t := range c.turns {
		switch t.kind {
		case userText:
			lines = append(lines, line(t, "response_item", obj(kv{"type", "message"}, kv{"id", fmt.Sprintf("msg_u%s%05d", c.randHex(12), i)},
				kv{"role", "user"}, kv{"content", arr(obj(kv{"type", "input_text"}, kv{"text", t.text}))})))
		case assistantText:
			lines = append(lines, line(t, "response_item", obj(kv{"type", "message"}, kv{"id", fmt.Sprintf("msg_a%s%05d", c.randHex(12), i)},
				kv{"role", "assistant"}, kv{"content", arr(obj(kv{"type", "output_text"}, kv{"text", t.text}))})))
		case toolRun:
			call := fmt.Sprintf("call_%s%05d", c.randHex(16), i)
			args := string(obj(kv{"cmd", t.text}, kv{"workdir", c.cwd}))
			lines = append(lines, line(t, "response_item", obj(kv{"type", "function_call"}, kv{"id", fmt.Sprintf("fc_%s%05d", c.randHex(12), i)},
				kv{"name", "exec_command"}, kv{"arguments", args}, kv{"call_id", call})))
			code := 0
			if t.failed {
				code = 1
			}
			out := fmt.Sprintf("Process exited with code %d\nOutput:\n%s", code, t.output)
			lines = append(lines, line(t, "response_item", obj(kv{"type", "function_call_output"}, kv{"call_id", call}, kv{"output", out})))
		}
	}
	local := c.start // Codex names files by local time; the corpus uses UTC
	name := fmt.Sprintf("rollout-%s-%s.jsonl", local.Format("2006-01-02T15-04-05"), c.id)
	return writeLines(filepath.Join(root, "sessions", local.Format("2006"), local.Format("01"), local.Format("02"), name), lines)
}
