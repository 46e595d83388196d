package goose

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters/corpus"
)

// gooseFormat writes ROOT/sessions/sessions.db: a sessions row per conversation, a messages
// row per turn, a tool run as an assistant row with one tool request and a user row with its
// response.
type gooseFormat struct {
	env     corpus.Env
	created bool
	rows    []corpusRow
	pending int
	days    map[string]int // the sessions numbered per day, as goose numbers them
}

type corpusRow struct {
	table  string
	values []any
}

// Corpus implements corpus.Generator: the database is written through env's SQLite writer.
func (Adapter) Corpus(env corpus.Env) corpus.Format {
	return &gooseFormat{env: env, days: map[string]int{}}
}

const corpusBatch = 20

func (*gooseFormat) Root(home string) string {
	return filepath.Join(home, ".local", "share", "goose")
}

func (*gooseFormat) Messages(c *corpus.Conv) int {
	texts, tools := c.CountTurns()
	return texts + 2*tools
}

func (g *gooseFormat) db(root string) string { return filepath.Join(root, filepath.FromSlash(dbRel)) }

func (g *gooseFormat) Write(root string, c *corpus.Conv) (int64, error) {
	if err := g.create(root); err != nil {
		return 0, err
	}
	var n int64
	insert := func(table string, values ...any) {
		for _, v := range values {
			if s, ok := v.(string); ok {
				n += int64(len(s))
			}
		}
		g.rows = append(g.rows, corpusRow{table, values})
	}
	day := c.Start.UTC().Format("20060102")
	g.days[day]++
	sid := day + "_" + strconv.Itoa(g.days[day])
	insert("sessions (id, name, session_type, working_dir, created_at, updated_at, extension_data, provider_name, goose_mode)",
		sid, "bench session", "user", c.Cwd, sqlTime(c.Start), sqlTime(c.LastAt), "{}", "anthropic", "auto")
	const msg = "messages (message_id, session_id, role, content_json, created_timestamp, timestamp, metadata_json)"
	visible := `{"userVisible":true,"agentVisible":true}`
	row := func(role string, blocks any, at int64) {
		b, _ := json.Marshal(blocks)
		insert(msg, "msg_"+sid+"_"+c.RandHex(32), sid, role, string(b), at, sqlTime(time.Unix(at, 0)), visible)
	}
	for i, t := range c.Turns {
		switch t.Kind {
		case corpus.UserText:
			row("user", []textBlock{{"text", t.Text}}, t.At.Unix())
		case corpus.AssistantText:
			row("assistant", []textBlock{{"text", t.Text}}, t.At.Unix())
		default:
			call := fmt.Sprintf("toolu_%s%05d", c.RandHex(16), i)
			args, _ := json.Marshal(map[string]string{"command": t.Text})
			req := requestBlock{Type: "toolRequest", ID: call}
			req.ToolCall.Status = "success"
			req.ToolCall.Value = callValue{Name: t.Tool, Arguments: args}
			row("assistant", []any{req}, t.At.Unix())
			res := responseBlock{Type: "toolResponse", ID: call}
			res.ToolResult.Status = "success"
			res.ToolResult.Value = resultValue{Content: []textBlock{{"text", t.Output}}, IsError: t.Failed}
			row("user", []any{res}, t.At.Unix()+1)
		}
	}
	g.pending++
	if g.pending >= corpusBatch {
		return n, g.flush(root)
	}
	return n, nil
}

func (g *gooseFormat) flush(root string) error {
	if g.pending == 0 {
		return nil
	}
	err := g.env.WriteDB(g.db(root), func(tx *sql.Tx) error {
		stmts := map[string]*sql.Stmt{}
		for _, r := range g.rows {
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
	g.rows, g.pending = g.rows[:0], 0
	return err
}

func (g *gooseFormat) Finish(root string) error {
	if err := g.create(root); err != nil {
		return err
	}
	return g.flush(root)
}

// create makes the database on first use (an empty one when no session was dealt to goose).
func (g *gooseFormat) create(root string) error {
	if g.created {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(g.db(root)), 0o700); err != nil {
		return err
	}
	if err := g.env.CreateDB(g.db(root), schema); err != nil {
		return err
	}
	g.created = true
	return nil
}
