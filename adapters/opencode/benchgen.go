package opencode

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pondhq/pond/adapters/corpus"
)

// opencodeFormat writes an OpenCode ≥1.2 database: <data dir>/opencode.db with the 1.18
// schema's project, session, message and part tables (and their indexes, which OpenCode's own
// reads and the adapter's rely on). A user turn and an answer are a message row with one text
// part; a tool run is an assistant message with one completed (or failed) tool part.
type opencodeFormat struct {
	env      corpus.Env
	stem     string // the data dir's and the database's name (Adapter.DBStem)
	created  bool
	projects map[string]bool
	rows     []corpusRow // not yet written
	pending  int         // sessions in rows
}

// Corpus implements corpus.Generator: the database is written through env's SQLite writer.
func (a Adapter) Corpus(env corpus.Env) corpus.Format {
	return &opencodeFormat{env: env, stem: a.stem()}
}

// corpusRow is one row to insert; table names the table and, for sessions, the columns.
type corpusRow struct {
	table  string
	values []any
}

// opencodeSchema is OpenCode 1.18's schema for the tables the adapter reads.
const opencodeSchema = "CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text, " +
	"`icon_url` text, `icon_url_override` text, `icon_color` text, `time_created` integer NOT NULL, " +
	"`time_updated` integer NOT NULL, `time_initialized` integer, `sandboxes` text NOT NULL, `commands` text);\n" +
	"CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `workspace_id` text, `parent_id` text, " +
	"`slug` text NOT NULL, `directory` text NOT NULL, `path` text, `title` text NOT NULL, `version` text NOT NULL, " +
	"`share_url` text, `summary_additions` integer, `summary_deletions` integer, `summary_files` integer, " +
	"`summary_diffs` text, `metadata` text, `cost` real DEFAULT 0 NOT NULL, `tokens_input` integer DEFAULT 0 NOT NULL, " +
	"`tokens_output` integer DEFAULT 0 NOT NULL, `tokens_reasoning` integer DEFAULT 0 NOT NULL, " +
	"`tokens_cache_read` integer DEFAULT 0 NOT NULL, `tokens_cache_write` integer DEFAULT 0 NOT NULL, `revert` text, " +
	"`permission` text, `agent` text, `model` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, " +
	"`time_compacting` integer, `time_archived` integer, " +
	"CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE);\n" +
	"CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, " +
	"`time_updated` integer NOT NULL, `data` text NOT NULL, " +
	"CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE);\n" +
	"CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, " +
	"`time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL, " +
	"CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE);\n" +
	"CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);\n" +
	"CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);\n" +
	"CREATE INDEX `part_session_idx` ON `part` (`session_id`);\n" +
	"CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);\n"

// opencodeBatch is how many sessions go into one write transaction.
const opencodeBatch = 20

func (o *opencodeFormat) Root(home string) string {
	return filepath.Join(home, ".local", "share", o.stem)
}

func (*opencodeFormat) Messages(c *corpus.Conv) int { return len(c.Turns) }

func (o *opencodeFormat) db(root string) string { return filepath.Join(root, o.stem+".db") }

func (o *opencodeFormat) Write(root string, c *corpus.Conv) (int64, error) {
	if !o.created {
		if err := o.env.CreateDB(o.db(root), opencodeSchema); err != nil {
			return 0, err
		}
		o.created, o.projects = true, map[string]bool{}
	}
	var n int64
	insert := func(table string, values ...any) {
		for _, v := range values {
			switch v := v.(type) {
			case string:
				n += int64(len(v))
			case json.RawMessage:
				n += int64(len(v))
			}
		}
		o.rows = append(o.rows, corpusRow{table, values})
	}
	sum := sha256.Sum256([]byte(c.Cwd))
	projectID := hex.EncodeToString(sum[:20])
	if !o.projects[projectID] {
		o.projects[projectID] = true
		insert("project", projectID, c.Cwd, "git", filepath.Base(c.Cwd), nil, nil, nil,
			corpus.Millis(c.Start), corpus.Millis(c.Start), nil, "[]", nil)
	}
	sid := "ses_" + c.ID[:8] + c.RandHex(18)
	model := corpus.Obj(corpus.KV("id", "claude-sonnet-4"), corpus.KV("providerID", "anthropic"))
	insert("session (`id`, `project_id`, `slug`, `directory`, `title`, `version`, `permission`, `agent`, `model`, `time_created`, `time_updated`)",
		sid, projectID, "quiet-"+c.ID[:6], c.Cwd, "Session "+c.ID[:8], "1.18.33",
		`[{"permission":"question","pattern":"*","action":"deny"}]`, "build", model, corpus.Millis(c.Start), corpus.Millis(c.LastAt))
	prev := ""
	for i, t := range c.Turns {
		ms := corpus.Millis(t.At)
		mid := fmt.Sprintf("msg_%011x%05d", ms, i)
		pid := fmt.Sprintf("prt_%011x%05d", ms, i)
		var data, part json.RawMessage
		switch t.Kind {
		case corpus.UserText:
			data = corpus.Obj(corpus.KV("role", "user"), corpus.KV("time", corpus.Obj(corpus.KV("created", ms))), corpus.KV("agent", "build"), corpus.KV("model", corpus.Obj(corpus.KV("providerID", "anthropic"), corpus.KV("modelID", "claude-sonnet-4"))))
			part = corpus.Obj(corpus.KV("type", "text"), corpus.KV("text", t.Text))
		default:
			finish := "stop"
			if t.Kind == corpus.ToolRun {
				finish = "tool-calls"
			}
			data = corpus.Obj(corpus.KV("parentID", prev), corpus.KV("role", "assistant"), corpus.KV("mode", "build"), corpus.KV("agent", "build"),
				corpus.KV("path", corpus.Obj(corpus.KV("cwd", c.Cwd), corpus.KV("root", c.Cwd))), corpus.KV("cost", 0.01),
				corpus.KV("tokens", corpus.Obj(corpus.KV("total", 150), corpus.KV("input", 100), corpus.KV("output", 50), corpus.KV("reasoning", 0), corpus.KV("cache", corpus.Obj(corpus.KV("read", 0), corpus.KV("write", 0))))),
				corpus.KV("modelID", "claude-sonnet-4"), corpus.KV("providerID", "anthropic"), corpus.KV("time", corpus.Obj(corpus.KV("created", ms), corpus.KV("completed", ms+900))), corpus.KV("finish", finish))
			if t.Kind == corpus.AssistantText {
				part = corpus.Obj(corpus.KV("type", "text"), corpus.KV("text", t.Text), corpus.KV("time", corpus.Obj(corpus.KV("start", ms), corpus.KV("end", ms+10))))
				break
			}
			state := []corpus.Field{corpus.KV("status", "completed"), corpus.KV("input", corpus.Obj(corpus.KV("command", t.Text))), corpus.KV("output", t.Output), corpus.KV("title", t.Tool),
				corpus.KV("metadata", corpus.Obj()), corpus.KV("time", corpus.Obj(corpus.KV("start", ms), corpus.KV("end", ms+800)))}
			if t.Failed {
				state = []corpus.Field{corpus.KV("status", "error"), corpus.KV("input", corpus.Obj(corpus.KV("command", t.Text))), corpus.KV("error", t.Output),
					corpus.KV("time", corpus.Obj(corpus.KV("start", ms), corpus.KV("end", ms+800)))}
			}
			part = corpus.Obj(corpus.KV("type", "tool"), corpus.KV("callID", fmt.Sprintf("toolu_%s%05d", c.RandHex(16), i)), corpus.KV("tool", t.Tool), corpus.KV("state", corpus.Obj(state...)))
		}
		if t.Kind == corpus.UserText {
			prev = mid
		}
		insert("message", mid, sid, ms, ms+500, data)
		insert("part", pid, mid, sid, ms+10, ms+11, part)
	}
	o.pending++
	if o.pending >= opencodeBatch {
		return n, o.flush(root)
	}
	return n, nil
}

func (o *opencodeFormat) flush(root string) error {
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
			for i, v := range r.values {
				if raw, ok := v.(json.RawMessage); ok {
					r.values[i] = string(raw) // OpenCode's data columns are TEXT
				}
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

func (o *opencodeFormat) Finish(root string) error {
	if !o.created {
		// No session was dealt to OpenCode: an empty database, as OpenCode leaves on first run.
		if err := o.env.CreateDB(o.db(root), opencodeSchema); err != nil {
			return err
		}
		o.created = true
	}
	return o.flush(root)
}
