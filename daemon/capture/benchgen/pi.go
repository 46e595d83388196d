package benchgen

import (
	"fmt"
	"path/filepath"
	"strings"
)

// piFormat writes pi v3 sessions: <agent dir>/sessions/--<cwd with / as ->--/<time>_<id>.jsonl,
// a session header then one message entry per user turn, answer, tool call and tool result,
// each entry the child of the one before.
type piFormat struct{}

func (*piFormat) root(home string) string { return filepath.Join(home, ".pi", "agent") }

func (*piFormat) messages(c *conv) int {
	texts, tools := countTurns(c)
	return texts + 2*tools
}

func (*piFormat) finish(string) error { return nil }

func (*piFormat) write(root string, c *conv) (int64, error) {
	lines := [][]byte{obj(kv{"type", "session"}, kv{"version", 3}, kv{"id", c.id}, kv{"timestamp", iso(c.start)}, kv{"cwd", c.cwd})}
	parent := any(nil)
	n := 0
	entry := func(t turn, message any) {
		n++
		id := fmt.Sprintf("%08x", uint32(c.index)<<20|uint32(n))
		lines = append(lines, obj(kv{"type", "message"}, kv{"id", id}, kv{"parentId", parent}, kv{"timestamp", iso(t.at)}, kv{"message", message}))
		parent = id
	}
	assistant := func(t turn, content any, stop string) {
		entry(t, obj(kv{"role", "assistant"}, kv{"content", content}, kv{"api", "anthropic-messages"},
			kv{"provider", "anthropic"}, kv{"model", "claude-sonnet-4-5"},
			kv{"usage", obj(kv{"input", 1200}, kv{"output", 80}, kv{"cacheRead", 0}, kv{"cacheWrite", 0}, kv{"totalTokens", 1280})},
			kv{"stopReason", stop}, kv{"timestamp", millis(t.at)}))
	}
	for i, t := range c.turns {
		switch t.kind {
		case userText:
			entry(t, obj(kv{"role", "user"}, kv{"content", t.text}, kv{"timestamp", millis(t.at)}))
		case assistantText:
			assistant(t, arr(obj(kv{"type", "text"}, kv{"text", t.text})), "stop")
		case toolRun:
			call := fmt.Sprintf("toolu_%s%05d", c.randHex(16), i)
			assistant(t, arr(obj(kv{"type", "toolCall"}, kv{"id", call}, kv{"name", t.tool}, kv{"arguments", obj(kv{"command", t.text})})), "toolUse")
			entry(t, obj(kv{"role", "toolResult"}, kv{"toolCallId", call}, kv{"toolName", t.tool},
				kv{"content", arr(obj(kv{"type", "text"}, kv{"text", t.output}))}, kv{"isError", t.failed}, kv{"timestamp", millis(t.at)}))
		}
	}
	dir := "--" + strings.ReplaceAll(strings.TrimPrefix(c.cwd, "/"), "/", "-") + "--"
	name := strings.ReplaceAll(iso(c.start), ":", "-")
	name = strings.Replace(name, ".", "-", 1) + "_" + c.id + ".jsonl"
	return writeLines(filepath.Join(root, "sessions", dir, name), lines)
}
