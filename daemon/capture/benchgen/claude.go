package benchgen

import (
	"fmt"
	"path/filepath"
	"strings"
)

// claudeFormat writes Claude Code transcripts: <config dir>/projects/<cwd with / as ->/<id>.jsonl,
// one line per user or assistant record. An answer and a tool call are assistant records of
// their own API response (distinct message.id, so the adapter does not merge them); a tool
// result is a user record.
type claudeFormat struct{}

// claudeTools are Claude Code's names for the corpus's tools.
var claudeTools = map[string]string{"bash": "Bash", "read": "Read", "edit": "Edit", "grep": "Grep"}

func (*claudeFormat) root(home string) string { return filepath.Join(home, ".claude") }

func (*claudeFormat) messages(c *conv) int {
	texts, tools := countTurns(c)
	return texts + 2*tools
}

func (*claudeFormat) finish(string) error { return nil }

func (*claudeFormat) write(root string, c *conv) (int64, error) {
	var lines [][]byte
	parent := any(nil)
	n := 0
	record := func(typ string, at turn, message any, extra ...kv) {
		n++
		uuid := fmt.Sprintf("%s-%08x", c.id[:23], n)
		fields := []kv{
			{"parentUuid", parent}, {"isSidechain", false}, {"userType", "external"},
			{"cwd", c.cwd}, {"sessionId", c.id}, {"version", "2.1.42"}, {"gitBranch", "main"},
			{"type", typ}, {"message", message},
		}
		fields = append(fields, extra...)
		fields = append(fields, kv{"uuid", uuid}, kv{"timestamp", iso(at.at)})
		lines = append(lines, obj(fields...))
		parent = uuid
	}
	assistant := func(at turn, content any) {
		record("assistant", at, obj(
			kv{"model", "claude-opus-4-7"}, kv{"id", fmt.Sprintf("msg_%s%04d", c.randHex(20), n)},
			kv{"type", "message"}, kv{"role", "assistant"}, kv{"content", content},
			kv{"stop_reason", "end_turn"}, kv{"stop_sequence", nil},
			kv{"usage", obj(kv{"input_tokens", 12}, kv{"cache_read_input_tokens", 4000}, kv{"output_tokens", 30})},
		), kv{"requestId", "req_" + c.randHex(24)})
	}
	for i, t := range c.turns {
		switch t.kind {
		case userText:
			record("user", t, obj(kv{"role", "user"}, kv{"content", t.text}))
		case assistantText:
			assistant(t, arr(obj(kv{"type", "text"}, kv{"text", t.text})))
		case toolRun:
			id := fmt.Sprintf("toolu_%s%04d", c.randHex(18), i)
			assistant(t, arr(obj(kv{"type", "tool_use"}, kv{"id", id}, kv{"name", claudeTools[t.tool]}, kv{"input", obj(kv{"command", t.text})})))
			record("user", t, obj(kv{"role", "user"}, kv{"content", arr(obj(
				kv{"tool_use_id", id}, kv{"type", "tool_result"}, kv{"content", t.output}, kv{"is_error", t.failed},
			))}))
		}
	}
	dir := strings.ReplaceAll(c.cwd, "/", "-")
	return writeLines(filepath.Join(root, "projects", dir, c.id+".jsonl"), lines)
}
