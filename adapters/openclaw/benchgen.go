package openclaw

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/pondhq/pond/adapters/corpus"
)

// openclawFormat writes OpenClaw's canonical era: agent main's database,
// <state dir>/agents/main/agent/openclaw-agent.sqlite, with the session_nodes, session_windows
// and transcript_events tables of agent schema 23 (OpenClaw 2026.9). A conversation is one
// node and its window, and its events are pi v3 lines (a session header, then one message
// entry per user turn, answer, tool call and tool result, each the child of the one before);
// an event of 1 KiB or more goes zstd-compressed into event_zstd, as OpenClaw stores it.
type openclawFormat struct {
	env     corpus.Env
	created bool
	enc     *zstd.Encoder
	rows    []corpusRow // not yet written
	pending int         // sessions in rows
}

// Corpus implements corpus.Generator: the database is written through env's SQLite writer.
func (Adapter) Corpus(env corpus.Env) corpus.Format { return &openclawFormat{env: env} }

type corpusRow struct {
	table  string
	values []any
}

// corpusSchema is agent schema 23's definition of the tables the adapter reads, without the
// checks and triggers that tie them to the rest of OpenClaw's schema.
const corpusSchema = `CREATE TABLE session_nodes (session_key TEXT NOT NULL PRIMARY KEY, current_session_id TEXT NOT NULL,
  entry_json TEXT NOT NULL, legacy_acp_migration_json TEXT, entry_valid INTEGER NOT NULL DEFAULT 0, updated_at INTEGER NOT NULL,
  status TEXT, created_at INTEGER, created_via TEXT, parent_session_key TEXT, spawned_by TEXT, fork_source_session_key TEXT,
  fork_source_session_id TEXT, fork_source_entry_id TEXT, label TEXT, display_name TEXT) STRICT;
CREATE TABLE session_windows (session_id TEXT NOT NULL PRIMARY KEY, session_key TEXT NOT NULL, previous_session_id TEXT,
  reason TEXT, session_scope TEXT NOT NULL DEFAULT 'conversation', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  started_at INTEGER, ended_at INTEGER, status TEXT, chat_type TEXT, model_provider TEXT, model TEXT,
  parent_session_key TEXT, spawned_by TEXT, display_name TEXT,
  FOREIGN KEY (session_key) REFERENCES session_nodes(session_key) ON DELETE CASCADE) STRICT;
CREATE INDEX idx_agent_session_windows_session_key ON session_windows(session_key);
CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL,
  event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT, PRIMARY KEY (session_id, seq),
  FOREIGN KEY (session_id) REFERENCES session_windows(session_id) ON DELETE CASCADE) STRICT;
`

// corpusBatch is how many sessions go into one write transaction.
const corpusBatch = 20

// zstdFrom is the size from which OpenClaw compresses an event.
const zstdFrom = 1024

func (*openclawFormat) Root(home string) string { return filepath.Join(home, ".openclaw") }

func (*openclawFormat) db(root string) string {
	return filepath.Join(root, "agents", "main", "agent", dbName)
}

func (*openclawFormat) Messages(c *corpus.Conv) int {
	texts, tools := c.CountTurns()
	return texts + 2*tools
}

func (o *openclawFormat) create(root string) error {
	if o.created {
		return nil
	}
	if err := mkdirFor(o.db(root)); err != nil {
		return err
	}
	if err := o.env.CreateDB(o.db(root), corpusSchema); err != nil {
		return err
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return err
	}
	o.created, o.enc = true, enc
	return nil
}

func (o *openclawFormat) Write(root string, c *corpus.Conv) (int64, error) {
	if err := o.create(root); err != nil {
		return 0, err
	}
	var n int64
	key := fmt.Sprintf("agent:main:pond-bench-%d", c.Index)
	start, last := corpus.Millis(c.Start), corpus.Millis(c.LastAt)
	entry := corpus.Obj(corpus.KV("sessionId", c.ID), corpus.KV("updatedAt", last), corpus.KV("chatType", "direct"))
	o.rows = append(o.rows,
		corpusRow{"session_nodes (session_key, current_session_id, entry_json, entry_valid, updated_at)", []any{key, c.ID, string(entry), 1, last}},
		corpusRow{"session_windows (session_id, session_key, session_scope, created_at, updated_at, started_at, model_provider, model)",
			[]any{c.ID, key, "conversation", start, last, start, "anthropic", "claude-sonnet-4-5"}})
	seq := 0
	event := func(line json.RawMessage, at int64) {
		n += int64(len(line))
		cols := []any{c.ID, seq, string(line), at, nil, nil, nil}
		if len(line) >= zstdFrom {
			nav := `{"version":1,"report":{"kind":"canonical"},"navigation":{},"reset":{},"model":{},"modelBytes":0,"modelWithoutCheckpointBytes":0,"withoutCustomDataBytes":0}`
			cols = []any{c.ID, seq, nil, at, o.enc.EncodeAll(line, nil), len(line), nav}
		}
		o.rows = append(o.rows, corpusRow{"transcript_events", cols})
		seq++
	}
	event(corpus.Obj(corpus.KV("type", "session"), corpus.KV("version", 3), corpus.KV("id", c.ID), corpus.KV("timestamp", corpus.ISO(c.Start)), corpus.KV("cwd", c.Cwd)), start)
	parent := any(nil)
	entryN := 0
	message := func(t corpus.Turn, msg json.RawMessage) {
		entryN++
		id := fmt.Sprintf("%08x", uint32(c.Index)<<20|uint32(entryN))
		event(corpus.Obj(corpus.KV("type", "message"), corpus.KV("id", id), corpus.KV("parentId", parent), corpus.KV("timestamp", corpus.ISO(t.At)), corpus.KV("message", msg)), corpus.Millis(t.At))
		parent = id
	}
	assistant := func(t corpus.Turn, content any, stop string) {
		message(t, corpus.Obj(corpus.KV("role", "assistant"), corpus.KV("content", content), corpus.KV("api", "anthropic-messages"),
			corpus.KV("provider", "anthropic"), corpus.KV("model", "claude-sonnet-4-5"),
			corpus.KV("usage", corpus.Obj(corpus.KV("input", 1200), corpus.KV("output", 80), corpus.KV("cacheRead", 0), corpus.KV("cacheWrite", 0), corpus.KV("totalTokens", 1280))),
			corpus.KV("stopReason", stop), corpus.KV("timestamp", corpus.Millis(t.At))))
	}
	for i, t := range c.Turns {
		switch t.Kind {
		case corpus.UserText:
			message(t, corpus.Obj(corpus.KV("role", "user"), corpus.KV("content", corpus.Arr(corpus.Obj(corpus.KV("type", "text"), corpus.KV("text", t.Text)))), corpus.KV("timestamp", corpus.Millis(t.At))))
		case corpus.AssistantText:
			assistant(t, corpus.Arr(corpus.Obj(corpus.KV("type", "text"), corpus.KV("text", t.Text))), "stop")
		case corpus.ToolRun:
			call := fmt.Sprintf("toolu_%s%05d", c.RandHex(16), i)
			assistant(t, corpus.Arr(corpus.Obj(corpus.KV("type", "toolCall"), corpus.KV("id", call), corpus.KV("name", t.Tool), corpus.KV("arguments", corpus.Obj(corpus.KV("command", t.Text))))), "toolUse")
			message(t, corpus.Obj(corpus.KV("role", "toolResult"), corpus.KV("toolCallId", call), corpus.KV("toolName", t.Tool),
				corpus.KV("content", corpus.Arr(corpus.Obj(corpus.KV("type", "text"), corpus.KV("text", t.Output)))), corpus.KV("isError", t.Failed), corpus.KV("timestamp", corpus.Millis(t.At))))
		}
	}
	o.pending++
	if o.pending >= corpusBatch {
		return n, o.flush(root)
	}
	return n, nil
}

func (o *openclawFormat) flush(root string) error {
	if o.pending == 0 {
		return nil
	}
	err := o.env.WriteDB(o.db(root), func(tx *sql.Tx) error {
		stmts := map[string]*sql.Stmt{}
		for _, r := range o.rows {
			st := stmts[r.table]
			if st == nil {
				q := "INSERT INTO " + r.table + " VALUES(?" + strings.Repeat(",?", len(r.values)-1) + ")"
				var err error
				if st, err = tx.Prepare(q); err != nil {
					return err
				}
				defer st.Close()
				stmts[r.table] = st
			}
			if _, err := st.Exec(r.values...); err != nil {
				return err
			}
		}
		return nil
	})
	o.rows, o.pending = o.rows[:0], 0
	return err
}

func (o *openclawFormat) Finish(root string) error {
	if err := o.create(root); err != nil {
		return err
	}
	err := o.flush(root)
	o.enc.Close()
	return err
}

func mkdirFor(path string) error { return os.MkdirAll(filepath.Dir(path), 0o755) }
