package goose_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pondhq/pond/adapters/goose"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/store/sqlite"
)

// goose's schema history, written here from its published migrations (aaif-goose/goose commit
// 017176d06077b119ade382d3bb710e56c8c04e90, session_manager.rs: apply_migration 1–17). v0 is
// the first SQLite store: the columns no migration adds. A database at version N is v0 plus
// migrations 1..N, as goose leaves a store it last opened at version N.
const gooseV0 = `CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}',
    total_tokens INTEGER,
    input_tokens INTEGER,
    output_tokens INTEGER,
    accumulated_total_tokens INTEGER,
    accumulated_input_tokens INTEGER,
    accumulated_output_tokens INTEGER,
    schedule_id TEXT,
    recipe_json TEXT
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content_json TEXT NOT NULL,
    created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    tokens INTEGER
);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE INDEX idx_messages_timestamp ON messages(timestamp);
CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC);`

var gooseMigrations = map[int]string{
	1:  `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)`,
	2:  `ALTER TABLE sessions ADD COLUMN user_recipe_values_json TEXT`,
	3:  `ALTER TABLE messages ADD COLUMN metadata_json TEXT`,
	4:  `ALTER TABLE sessions ADD COLUMN name TEXT DEFAULT ''; ALTER TABLE sessions ADD COLUMN user_set_name BOOLEAN DEFAULT FALSE`,
	5:  `ALTER TABLE sessions ADD COLUMN session_type TEXT NOT NULL DEFAULT 'user'; CREATE INDEX idx_sessions_type ON sessions(session_type)`,
	6:  `ALTER TABLE sessions ADD COLUMN provider_name TEXT; ALTER TABLE sessions ADD COLUMN model_config_json TEXT`,
	7:  `ALTER TABLE messages ADD COLUMN message_id TEXT; UPDATE messages SET message_id = 'msg_' || session_id || '_' || id; CREATE INDEX idx_messages_message_id ON messages(message_id)`,
	8:  `ALTER TABLE sessions ADD COLUMN goose_mode TEXT NOT NULL DEFAULT 'auto'`,
	9:  `UPDATE sessions SET session_type = 'acp' WHERE session_type = 'user' AND name = 'ACP Session' AND user_set_name = FALSE`,
	10: `ALTER TABLE sessions ADD COLUMN thread_id TEXT; CREATE INDEX IF NOT EXISTS idx_sessions_thread ON sessions(thread_id); CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT 'New Chat', user_set_name BOOLEAN DEFAULT FALSE, working_dir TEXT, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, archived_at TIMESTAMP, metadata_json TEXT DEFAULT '{}'); CREATE TABLE IF NOT EXISTS thread_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, thread_id TEXT NOT NULL REFERENCES threads(id), session_id TEXT, message_id TEXT, role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, metadata_json TEXT DEFAULT '{}')`,
	11: ``, // provider inventory tables, nothing sessions read
	12: `ALTER TABLE sessions ADD COLUMN archived_at TIMESTAMP; ALTER TABLE sessions ADD COLUMN project_id TEXT`,
	13: `ALTER TABLE sessions ADD COLUMN accumulated_cost REAL`,
	14: `ALTER TABLE sessions ADD COLUMN cache_read_tokens INTEGER; ALTER TABLE sessions ADD COLUMN cache_write_tokens INTEGER; ALTER TABLE sessions ADD COLUMN accumulated_cache_read_tokens INTEGER; ALTER TABLE sessions ADD COLUMN accumulated_cache_write_tokens INTEGER`,
	15: `ALTER TABLE sessions ADD COLUMN parent_session_id TEXT; CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id); CREATE TABLE IF NOT EXISTS usage_ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, created_timestamp INTEGER NOT NULL, model TEXT, input_tokens INTEGER, output_tokens INTEGER, total_tokens INTEGER, cache_read_tokens INTEGER, cache_write_tokens INTEGER, cost REAL, cost_source TEXT, is_compaction INTEGER DEFAULT 0)`,
	16: `CREATE INDEX IF NOT EXISTS idx_messages_session_created ON messages(session_id, created_timestamp, id)`,
	17: `ALTER TABLE sessions ADD COLUMN parent_delegation TEXT`,
}

// migrate brings db from version from to version to, as goose's run_migrations does.
func migrate(t *testing.T, db *sql.DB, from, to int) {
	t.Helper()
	for v := from + 1; v <= to; v++ {
		if s := gooseMigrations[v]; s != "" {
			if _, err := db.Exec(s); err != nil {
				t.Fatalf("migration %d: %v", v, err)
			}
		}
		if v >= 1 {
			if _, err := db.Exec(`INSERT INTO schema_version (version) VALUES (?)`, v); err != nil {
				t.Fatalf("schema_version %d: %v", v, err)
			}
		}
	}
}

// storeAt makes ROOT/sessions/sessions.db at schema version v, holding one session with a
// tool call written with the columns that version has.
func storeAt(t *testing.T, v int) (root string, db *sql.DB) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "goose")
	path := filepath.Join(root, "sessions", "sessions.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(gooseV0); err != nil {
		t.Fatal(err)
	}
	migrate(t, db, 0, v)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("v%d: %s: %v", v, q, err)
		}
	}
	exec(`INSERT INTO sessions (id, description, working_dir, extension_data) VALUES ('20250301_1', 'old session', '/w/old', '{}')`)
	req := `[{"type":"text","text":"listing"},{"type":"toolRequest","id":"call_1","toolCall":{"status":"success","value":{"name":"developer__shell","arguments":{"command":"ls"}}}}]`
	res := `[{"type":"toolResponse","id":"call_1","toolResult":{"status":"success","value":[{"type":"text","text":"a.go"}]}}]`
	exec(`INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('20250301_1', 'user', '[{"type":"text","text":"what is here?"}]', 1740820000)`)
	exec(`INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('20250301_1', 'assistant', ?, 1740820005)`, req)
	exec(`INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('20250301_1', 'user', ?, 1740820005)`, res)
	return root, db
}

// TestSchemaVersions: stores of every version goose has had read (columns probed, never
// assumed), and a foreign restore into each satisfies goose's schema and reads back through
// queries shaped like goose's own session load, once goose has migrated the store.
func TestSchemaVersions(t *testing.T) {
	fixture := readRoot(t, fixtureRoot(t)).Transcripts()
	for _, v := range []int{0, 3, 5, 7, 9, 12, 14, 15, 17} {
		t.Run("v"+itoa(v), func(t *testing.T) {
			root, db := storeAt(t, v)
			c := readRoot(t, root)
			if got := c.Counts(); got.Sessions != 1 || got.Messages != 3 {
				t.Fatalf("read %+v, want 1 session, 3 messages", got)
			}
			var linked bool
			for _, p := range c.Parts() {
				linked = linked || p.CallID == "call_1" && p.Name == "developer__shell" && string(p.Result) == `"a.go"`
			}
			if !linked {
				t.Errorf("the tool response is not linked to its request: %+v", c.Parts())
			}

			// A foreign restore of the fixture's main session and its sub-agent.
			main, sub := fixture["20260501_1"], fixture["20260501_2"]
			main.Session.SourceAgent, sub.Session.SourceAgent = "claude-code", "claude-code/subagent"
			plan, err := goose.New().Encode(&restore.Job{Batch: []*restore.Transcript{main, sub}, Root: root, ImportDir: root})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range plan.Files {
				if f.Rows == nil {
					t.Fatalf("planned file %s carries no rows", f.Path)
				}
				left, err := sqlite.WriteAgentRows(context.Background(), f.Path, f.Rows)
				if err != nil {
					t.Fatalf("write %s: %v", f.ID, err)
				}
				if v < 15 && !contains(left, "sessions.parent_session_id") {
					t.Errorf("left out %v, want sessions.parent_session_id among them at v%d", left, v)
				}
				if v == 17 && len(left) > 0 {
					t.Errorf("left out %v at the current schema", left)
				}
			}
			// A second restore of the same session replaces nothing.
			if _, err := sqlite.WriteAgentRows(context.Background(), plan.Files[0].Path, plan.Files[0].Rows); err == nil {
				t.Errorf("a second restore of %s was written", plan.ID)
			}
			migrate(t, db, v, 17)
			checkLikeGoose(t, db, v, plan.ID, main.Session.Project)
			c = readRoot(t, root)
			s, ok := c.Sessions()[plan.ID]
			if !ok || s.ParentSessionID != "20260501_1" {
				t.Errorf("restored session %s read back as %+v, want it linked to its original", plan.ID, s)
			}
		})
	}
}

// checkLikeGoose checks the database as goose would use it: its constraints hold, and the
// session loads through goose's get_session and get_conversation queries, every message's
// content parsing as goose's content blocks, every tool response answering a request before it.
func checkLikeGoose(t *testing.T, db *sql.DB, v int, id, project string) {
	t.Helper()
	var ok string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Errorf("integrity_check: %q %v", ok, err)
	}
	rows, err := db.Query(`PRAGMA foreign_key_check`)
	if err != nil {
		t.Fatal(err)
	}
	if rows.Next() {
		t.Errorf("a foreign key is broken")
	}
	rows.Close()
	var wd, name, kind, created, updated, ext, mode string
	var parent sql.NullString
	err = db.QueryRow(`SELECT id, working_dir, name, description, user_set_name, session_type, created_at, updated_at, extension_data,
		total_tokens, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
		accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens,
		accumulated_cache_read_tokens, accumulated_cache_write_tokens, accumulated_cost,
		schedule_id, recipe_json, user_recipe_values_json, provider_name, model_config_json, goose_mode,
		archived_at, project_id, parent_session_id FROM sessions WHERE id = ?`, id).Scan(
		new(string), &wd, &name, new(string), new(sql.NullBool), &kind, &created, &updated, &ext,
		new(sql.NullInt64), new(sql.NullInt64), new(sql.NullInt64), new(sql.NullInt64), new(sql.NullInt64),
		new(sql.NullInt64), new(sql.NullInt64), new(sql.NullInt64), new(sql.NullInt64), new(sql.NullInt64), new(sql.NullFloat64),
		new(sql.NullString), new(sql.NullString), new(sql.NullString), new(sql.NullString), new(sql.NullString), &mode,
		new(sql.NullString), new(sql.NullString), &parent)
	if err != nil {
		t.Fatalf("goose's get_session: %v", err)
	}
	// created_at as CURRENT_TIMESTAMP writes it, which sqlx reads as goose's DateTime<Utc>.
	var plain bool
	if err := db.QueryRow(`SELECT created_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]' FROM sessions WHERE id = ?`, id).Scan(&plain); err != nil || !plain {
		t.Errorf("created_at not as CURRENT_TIMESTAMP writes it: %v", err)
	}
	if wd != project || kind != "user" || mode != "auto" || !json.Valid([]byte(ext)) {
		t.Errorf("session row: working_dir %q type %q mode %q created %q extension_data %s", wd, kind, mode, created, ext)
	}
	var subParent string
	// The link to a parent came with v15: an older store takes the sub-agent without it.
	if err := db.QueryRow(`SELECT parent_session_id FROM sessions WHERE session_type = 'sub_agent' AND parent_session_id = ?`, id).Scan(&subParent); v >= 15 && err != nil {
		t.Errorf("no sub_agent session under %s: %v", id, err)
	}
	msgs, err := db.Query(`SELECT role, content_json, created_timestamp, metadata_json, message_id FROM messages WHERE session_id = ? ORDER BY created_timestamp, id`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer msgs.Close()
	requested := map[string]bool{}
	n, prev := 0, int64(0)
	for msgs.Next() {
		var role, content string
		var created int64
		var meta, mid sql.NullString
		if err := msgs.Scan(&role, &content, &created, &meta, &mid); err != nil {
			t.Fatal(err)
		}
		n++
		if role != "user" && role != "assistant" {
			t.Errorf("role %q, which goose skips", role)
		}
		if created < prev {
			t.Errorf("created_timestamp %d after %d", created, prev)
		}
		prev = created
		if !strings.HasPrefix(mid.String, "msg_"+id+"_") {
			t.Errorf("message_id %q", mid.String)
		}
		var md struct {
			UserVisible, AgentVisible *bool
		}
		// A store older than v3 has no metadata_json: goose reads NULL as visible to both.
		if err := json.Unmarshal([]byte(meta.String), &md); meta.Valid && (err != nil || md.UserVisible == nil || md.AgentVisible == nil) {
			t.Errorf("metadata_json %q: %v", meta.String, err)
		}
		var blocks []struct {
			Type     string `json:"type"`
			Text     *string
			ID       string `json:"id"`
			ToolCall *struct {
				Status string `json:"status"`
				Value  struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"value"`
			} `json:"toolCall"`
			ToolResult *struct {
				Status string `json:"status"`
				Value  struct {
					Content []struct{ Type, Text string } `json:"content"`
				} `json:"value"`
			} `json:"toolResult"`
		}
		if err := json.Unmarshal([]byte(content), &blocks); err != nil || len(blocks) == 0 {
			t.Errorf("content_json %s: %v", content, err)
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				if b.Text == nil {
					t.Errorf("text block without text: %s", content)
				}
			case "toolRequest":
				if b.ToolCall == nil || b.ToolCall.Status != "success" || b.ToolCall.Value.Name == "" || b.ToolCall.Value.Arguments[0] != '{' {
					t.Errorf("toolRequest not as goose writes it: %s", content)
				}
				requested[b.ID] = true
			case "toolResponse":
				if b.ToolResult == nil || b.ToolResult.Status != "success" || !requested[b.ID] || role != "user" {
					t.Errorf("toolResponse not answering an earlier request in a user message: %s", content)
				}
			default:
				t.Errorf("block type %q", b.Type)
			}
		}
	}
	if n < 4 {
		t.Errorf("%d messages restored", n)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func itoa(n int) string { return strconv.Itoa(n) }
