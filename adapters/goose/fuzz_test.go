package goose_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/goose"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/store/sqlite"
)

// FuzzRead writes arbitrary content_json and metadata_json into a message row of a real goose
// database and reads it: no panic, and every stream passes the store's validator (the collector
// checks).
func FuzzRead(f *testing.F) {
	f.Add(`[{"type":"text","text":"hi"}]`, `{"userVisible":true,"agentVisible":false}`, int64(1777626000))
	f.Add(`[{"type":"toolRequest","id":"a","toolCall":{"status":"success","value":{"name":"n","arguments":null}}},{"type":"toolResponse","id":"a","toolResult":{"status":"success","value":[{"type":"image"}]}}]`, ``, int64(1777626000000))
	f.Add(`[{"type":"toolResponse","toolResult":{"status":"error"}},{"type":"image","data":""},{"type":"thinking"},7,null]`, `[1]`, int64(-1))
	f.Add(`{"type":"text"}`, `{"userVisible":"yes"}`, int64(0))
	f.Add(`[{"type":"toolRequest","id":"x","toolCall":{"status":"success","value":{"name":"n","arguments":`+adaptertest.Hostile()[0]+`}}}]`, `null`, int64(9e18))
	f.Fuzz(func(t *testing.T, content, meta string, created int64) {
		root := t.TempDir()
		path := filepath.Join(root, "sessions", "sessions.db")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		var m any = meta
		if meta == "" {
			m = nil
		}
		rows := &restore.Rows{Create: goose.Schema, Inserts: []restore.Insert{
			{Table: "sessions", Columns: []string{"id", "working_dir"}, Values: []any{"20260101_1", "/w"}},
			{Table: "messages", Columns: []string{"session_id", "role", "content_json", "created_timestamp", "metadata_json"},
				Values: []any{"20260101_1", "assistant", content, created, m}},
		}}
		if _, err := sqlite.WriteAgentRows(context.Background(), path, rows); err != nil {
			t.Fatal(err)
		}
		readRoot(t, root)
	})
}
