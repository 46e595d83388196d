package hermes

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters/corpus"
)

// hermesFormat writes the default profile's state.db: a session row per conversation, a
// message row per turn, a tool run as an assistant row with one tool call and its tool row.
type hermesFormat struct {
	env     corpus.Env
	created bool
	rows    []corpusRow
	pending int
}

type corpusRow struct {
	table  string
	values []any
}

// Corpus implements corpus.Generator: the store is written through env's SQLite writer.
func (Adapter) Corpus(env corpus.Env) corpus.Format { return &hermesFormat{env: env} }

const corpusBatch = 20

func (*hermesFormat) Root(home string) string { return filepath.Join(home, ".hermes") }

func (*hermesFormat) Messages(c *corpus.Conv) int {
	texts, tools := c.CountTurns()
	return texts + 2*tools
}

func (h *hermesFormat) db(root string) string { return filepath.Join(root, "state.db") }

func secs(t time.Time) float64 { return float64(t.UnixMicro()) / 1e6 }

func (h *hermesFormat) Write(root string, c *corpus.Conv) (int64, error) {
	if err := h.create(root); err != nil {
		return 0, err
	}
	var n int64
	insert := func(table string, values ...any) {
		for _, v := range values {
			if s, ok := v.(string); ok {
				n += int64(len(s))
			}
		}
		h.rows = append(h.rows, corpusRow{table, values})
	}
	sid := c.Start.UTC().Format("20060102_150405") + "_" + c.RandHex(6)
	insert("sessions (id, source, model, model_config, started_at, ended_at, end_reason, message_count, cwd)",
		sid, "cli", "gpt-5.2", `{"cwd":`+quote(c.Cwd)+`}`, secs(c.Start), secs(c.LastAt), "user_exit", len(c.Turns), c.Cwd)
	const msg = "messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, finish_reason)"
	for i, t := range c.Turns {
		switch t.Kind {
		case corpus.UserText:
			insert(msg, sid, "user", t.Text, nil, nil, nil, secs(t.At), nil)
		case corpus.AssistantText:
			insert(msg, sid, "assistant", t.Text, nil, nil, nil, secs(t.At), "stop")
		default:
			call := fmt.Sprintf("call_%s%05d", c.RandHex(16), i)
			args, _ := json.Marshal(map[string]string{"command": t.Text})
			calls, _ := json.Marshal([]map[string]any{{"id": call, "type": "function",
				"function": map[string]string{"name": t.Tool, "arguments": string(args)}}})
			insert(msg, sid, "assistant", "", nil, string(calls), nil, secs(t.At), "tool_calls")
			out := t.Output
			if t.Failed { // as Hermes's registry answers a failed call (tool_error)
				b, _ := json.Marshal(map[string]string{"error": t.Output})
				out = string(b)
			}
			insert(msg, sid, "tool", out, call, nil, t.Tool, secs(t.At)+0.8, nil)
		}
	}
	h.pending++
	if h.pending >= corpusBatch {
		return n, h.flush(root)
	}
	return n, nil
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func (h *hermesFormat) flush(root string) error {
	if h.pending == 0 {
		return nil
	}
	err := h.env.WriteDB(h.db(root), func(tx *sql.Tx) error {
		stmts := map[string]*sql.Stmt{}
		for _, r := range h.rows {
			st := stmts[r.table]
			if st == nil {
				var err error
				if st, err = tx.Prepare("INSERT INTO " + r.table + " VALUES(?" + strings.Repeat(",?", len(r.values)-1) + ")"); err != nil {
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
	h.rows, h.pending = h.rows[:0], 0
	return err
}

func (h *hermesFormat) Finish(root string) error {
	if err := h.create(root); err != nil {
		return err
	}
	return h.flush(root)
}

// create makes the store on first use (an empty one when no session was dealt to Hermes, as
// Hermes leaves on first run).
func (h *hermesFormat) create(root string) error {
	if h.created {
		return nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	if err := h.env.CreateDB(h.db(root), schema); err != nil {
		return err
	}
	h.created = true
	return nil
}
