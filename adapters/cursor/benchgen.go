package cursor

import (
	"crypto/md5"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/pondhq/pond/adapters/corpus"
)

// cursorFormat writes the IDE's databases: User/globalStorage/state.vscdb with every session
// as a composer (composerData with its headers, one bubble a turn; a tool run is an assistant
// bubble with toolFormerData), and one workspaceStorage folder per project whose database
// lists its composers. Rows are written in batches of cursorBatch sessions.
type cursorFormat struct {
	env     corpus.Env
	created bool
	rows    [][2]string         // key, value: not yet written
	pending int                 // sessions in rows
	byCwd   map[string][]string // project → its composers
}

// Corpus implements corpus.Generator: the databases are written through env's SQLite writer.
func (Adapter) Corpus(env corpus.Env) corpus.Format {
	return &cursorFormat{env: env, byCwd: map[string][]string{}}
}

const (
	cursorBatch  = 20
	cursorSchema = "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);\n" +
		"CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);\n"
)

func (*cursorFormat) Root(home string) string { return filepath.Join(home, ".config", "Cursor") }

func (*cursorFormat) Messages(c *corpus.Conv) int { return len(c.Turns) }

func (f *cursorFormat) Write(root string, c *corpus.Conv) (int64, error) {
	if !f.created {
		if err := os.MkdirAll(filepath.Join(root, "User", "globalStorage"), 0o755); err != nil {
			return 0, err
		}
		if err := f.env.CreateDB(filepath.Join(root, filepath.FromSlash(globalDBRel)), cursorSchema); err != nil {
			return 0, err
		}
		f.created = true
	}
	var n int64
	put := func(key string, value json.RawMessage) {
		f.rows = append(f.rows, [2]string{key, string(value)})
		n += int64(len(key) + len(value))
	}
	headers := make([]any, 0, len(c.Turns))
	for i, t := range c.Turns {
		bid := fmt.Sprintf("%08x-%04x-4000-8000-%s", i, c.Index%0x10000, c.RandHex(12))
		typ := 2
		if t.Kind == corpus.UserText {
			typ = 1
		}
		headers = append(headers, corpus.Obj(corpus.KV("bubbleId", bid), corpus.KV("type", typ)))
		fields := []corpus.Field{corpus.KV("_v", 3), corpus.KV("type", typ), corpus.KV("bubbleId", bid)}
		switch t.Kind {
		case corpus.ToolRun:
			status := "completed"
			if t.Failed {
				status = "error"
			}
			args, _ := json.Marshal(map[string]string{"command": t.Text})
			res, _ := json.Marshal(map[string]string{"output": t.Output})
			fields = append(fields, corpus.KV("text", ""), corpus.KV("toolFormerData", corpus.Obj(
				corpus.KV("tool", 15), corpus.KV("toolCallId", "toolu_"+c.RandHex(24)), corpus.KV("status", status),
				corpus.KV("name", t.Tool), corpus.KV("rawArgs", string(args)), corpus.KV("result", string(res)),
				corpus.KV("additionalData", corpus.Obj(corpus.KV("status", status))))))
		default:
			fields = append(fields, corpus.KV("text", t.Text), corpus.KV("richText", ""))
		}
		fields = append(fields, corpus.KV("createdAt", corpus.ISO(t.At)), corpus.KV("tokenCount", corpus.Obj(corpus.KV("inputTokens", 100), corpus.KV("outputTokens", 50))))
		put(bubblePrefix+c.ID+":"+bid, corpus.Obj(fields...))
	}
	put(composerPrefix+c.ID, corpus.Obj(corpus.KV("_v", 10), corpus.KV("composerId", c.ID), corpus.KV("name", "Session "+c.ID[:8]),
		corpus.KV("createdAt", corpus.Millis(c.Start)), corpus.KV("lastUpdatedAt", corpus.Millis(c.LastAt)), corpus.KV("status", "completed"),
		corpus.KV("unifiedMode", "agent"), corpus.KV("modelConfig", corpus.Obj(corpus.KV("modelName", "claude-4.5-sonnet"))),
		corpus.KV("fullConversationHeadersOnly", corpus.Arr(headers...)), corpus.KV("conversationMap", corpus.Obj())))
	f.byCwd[c.Cwd] = append(f.byCwd[c.Cwd], c.ID)
	if f.pending++; f.pending >= cursorBatch {
		return n, f.flush(root)
	}
	return n, nil
}

func (f *cursorFormat) flush(root string) error {
	if len(f.rows) == 0 {
		return nil
	}
	err := f.env.WriteDB(filepath.Join(root, filepath.FromSlash(globalDBRel)), func(tx *sql.Tx) error {
		st, err := tx.Prepare("INSERT INTO cursorDiskKV VALUES(?, ?)")
		if err != nil {
			return err
		}
		defer st.Close()
		for _, r := range f.rows {
			if _, err := st.Exec(r[0], r[1]); err != nil {
				return err
			}
		}
		return nil
	})
	f.rows, f.pending = f.rows[:0], 0
	return err
}

// Finish writes the last batch and one workspace per project, named as VS Code names a folder's
// workspace (the md5 of its URI stands in for Cursor's own hash).
func (f *cursorFormat) Finish(root string) error {
	if !f.created {
		if err := os.MkdirAll(filepath.Join(root, "User", "globalStorage"), 0o755); err != nil {
			return err
		}
		if err := f.env.CreateDB(filepath.Join(root, filepath.FromSlash(globalDBRel)), cursorSchema); err != nil {
			return err
		}
		f.created = true
	}
	if err := f.flush(root); err != nil {
		return err
	}
	cwds := make([]string, 0, len(f.byCwd))
	for cwd := range f.byCwd {
		cwds = append(cwds, cwd)
	}
	sort.Strings(cwds)
	for _, cwd := range cwds {
		uri := "file://" + filepath.ToSlash(cwd)
		sum := md5.Sum([]byte(uri))
		dir := filepath.Join(root, filepath.FromSlash(workspaceRel), hex.EncodeToString(sum[:]))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "workspace.json"), corpus.Obj(corpus.KV("folder", uri)), 0o644); err != nil {
			return err
		}
		list := make([]any, 0, len(f.byCwd[cwd]))
		for _, id := range f.byCwd[cwd] {
			list = append(list, corpus.Obj(corpus.KV("type", "head"), corpus.KV("composerId", id)))
		}
		db := filepath.Join(dir, "state.vscdb")
		if err := f.env.CreateDB(db, cursorSchema); err != nil {
			return err
		}
		value := corpus.Obj(corpus.KV("allComposers", corpus.Arr(list...)))
		err := f.env.WriteDB(db, func(tx *sql.Tx) error {
			_, err := tx.Exec("INSERT INTO ItemTable VALUES('composer.composerData', ?)", string(value))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
