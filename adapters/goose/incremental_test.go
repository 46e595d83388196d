package goose_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters/goose"
)

// TestIncremental: after each kind of write goose makes, the root's stamp moves and exactly the
// session written to gets a new stamp (a new message; a compaction that only flips
// agentVisible on rows already there; a rename), so a sync reads that session again and
// leaves the others alone.
func TestIncremental(t *testing.T) {
	root := fixtureRoot(t)
	env := testEnv(t)
	a := goose.New()
	ctx := context.Background()
	stamps := func() (string, map[string]string) {
		t.Helper()
		rs, err := a.RootStamp(ctx, env, root)
		if err != nil || rs == "" {
			t.Fatalf("root stamp %q: %v", rs, err)
		}
		srcs, err := a.Scan(ctx, env, root)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, s := range srcs {
			out[s.Hint] = s.Stamp
		}
		return rs, out
	}
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(root, "sessions", "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range []struct{ name, session, write string }{
		{"message", "20260501_3", `INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json)
			VALUES ('msg_20260501_3_new', '20260501_3', 'user', '[{"type":"text","text":"again"}]', 1777700000, '{"userVisible":true,"agentVisible":true}')`},
		{"compaction", "20260502_4", `UPDATE messages SET metadata_json = '{"userVisible":true,"agentVisible":false}' WHERE session_id = '20260502_4'`},
		{"rename", "20260502_2", `UPDATE sessions SET name = 'renamed' WHERE id = '20260502_2'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root0, before := stamps()
			if _, err := db.Exec(tc.write); err != nil {
				t.Fatal(err)
			}
			root1, after := stamps()
			if root0 == root1 {
				t.Errorf("the root's stamp did not move")
			}
			for id, s := range after {
				if changed := before[id] != s; changed != (id == tc.session) {
					t.Errorf("session %s: stamp changed %v, want %v", id, changed, id == tc.session)
				}
			}
			c := readRoot(t, root)
			if _, ok := c.Sessions()[tc.session]; !ok {
				t.Errorf("session %s not read after the write", tc.session)
			}
		})
	}
}
