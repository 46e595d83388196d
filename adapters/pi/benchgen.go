package pi

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pondhq/pond/adapters/corpus"
)

// piFormat writes pi v3 sessions: <agent dir>/sessions/--<cwd with / as ->--/<time>_<id>.jsonl,
// a session header then one message entry per user turn, answer, tool call and tool result,
// each entry the child of the one before.
type piFormat struct{}

// Corpus implements corpus.Generator.
func (*Adapter) Corpus(corpus.Env) corpus.Format { return &piFormat{} }

func (*piFormat) Root(home string) string { return filepath.Join(home, ".pi", "agent") }

func (*piFormat) Messages(c *corpus.Conv) int {
	texts, tools := c.CountTurns()
	return texts + 2*tools
}

func (*piFormat) Finish(string) error { return nil }

func (*piFormat) Write(root string, c *corpus.Conv) (int64, error) {
	lines := [][]byte{corpus.Obj(corpus.KV("type", "session"), corpus.KV("version", 3), corpus.KV("id", c.ID), corpus.KV("timestamp", corpus.ISO(c.Start)), corpus.KV("cwd", c.Cwd))}
	parent := any(nil)
	n := 0
	entry := func(t corpus.Turn, message any) {
		n++
		id := fmt.Sprintf("%08x", uint32(c.Index)<<20|uint32(n))
		lines = append(lines, corpus.Obj(corpus.KV("type", "message"), corpus.KV("id", id), corpus.KV("parentId", parent), corpus.KV("timestamp", corpus.ISO(t.At)), corpus.KV("message", message)))
		parent = id
	}
	assistant := func(t corpus.Turn, content any, stop string) {
		entry(t, corpus.Obj(corpus.KV("role", "assistant"), corpus.KV("content", content), corpus.KV("api", "anthropic-messages"),
			corpus.KV("provider", "anthropic"), corpus.KV("model", "claude-sonnet-4-5"),
			corpus.KV("usage", corpus.Obj(corpus.KV("input", 1200), corpus.KV("output", 80), corpus.KV("cacheRead", 0), corpus.KV("cacheWrite", 0), corpus.KV("totalTokens", 1280))),
			corpus.KV("stopReason", stop), corpus.KV("timestamp", corpus.Millis(t.At))))
	}
	for i, t := range c.Turns {
		switch t.Kind {
		case corpus.UserText:
			entry(t, corpus.Obj(corpus.KV("role", "user"), corpus.KV("content", t.Text), corpus.KV("timestamp", corpus.Millis(t.At))))
		case corpus.AssistantText:
			assistant(t, corpus.Arr(corpus.Obj(corpus.KV("type", "text"), corpus.KV("text", t.Text))), "stop")
		case corpus.ToolRun:
			call := fmt.Sprintf("toolu_%s%05d", c.RandHex(16), i)
			assistant(t, corpus.Arr(corpus.Obj(corpus.KV("type", "toolCall"), corpus.KV("id", call), corpus.KV("name", t.Tool), corpus.KV("arguments", corpus.Obj(corpus.KV("command", t.Text))))), "toolUse")
			entry(t, corpus.Obj(corpus.KV("role", "toolResult"), corpus.KV("toolCallId", call), corpus.KV("toolName", t.Tool),
				corpus.KV("content", corpus.Arr(corpus.Obj(corpus.KV("type", "text"), corpus.KV("text", t.Output)))), corpus.KV("isError", t.Failed), corpus.KV("timestamp", corpus.Millis(t.At))))
		}
	}
	dir := "--" + strings.ReplaceAll(strings.TrimPrefix(c.Cwd, "/"), "/", "-") + "--"
	name := strings.ReplaceAll(corpus.ISO(c.Start), ":", "-")
	name = strings.Replace(name, ".", "-", 1) + "_" + c.ID + ".jsonl"
	return corpus.WriteLines(filepath.Join(root, "sessions", dir, name), lines)
}
