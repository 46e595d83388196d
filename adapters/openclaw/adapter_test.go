package openclaw

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store/sqlite"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The fixture's sessions (testdata/openclaw): in agent main's database, the main session, its
// sub-agent and the window a /reset opened after it; beside it, a compressed reset archive and
// the main session's own legacy transcript, which the database supersedes. In the legacy-only
// agent work, a session, its sub-agent (spawnedBy in sessions.json) and a deleted archive.
const (
	mainID     = "5f3c2a10-7b1e-4c8d-9a2f-0d1e2f3a4b5c"
	subID      = "8a7b6c5d-4e3f-4a1b-8c2d-3e4f5a6b7c8d"
	resetID    = "c0ffee00-1234-4abc-8def-0123456789ab"
	archivedID = "3b2a1908-f7e6-4d5c-9b4a-392817161514"
	workID     = "9c8b7a69-5847-4362-a514-030201f0e0d0"
	workSubID  = "1e2d3c4b-5a69-4788-9706-a5b4c3d2e1f0"
	deletedID  = "7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2918"
)

func testEnv(home string) adapters.Env {
	e := adaptertest.FakeEnv("linux", home, nil)
	e.OpenSQLite = sqlite.OpenAgentDB
	return e
}

// fixture copies the fixture (building its database) and returns its root.
func fixture(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "openclaw")
	adaptertest.CopyFixture(t, New(), root, sqlite.CreateFromScript)
	return root
}

func readFixture(t *testing.T) *adaptertest.Collector {
	t.Helper()
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, New(), testEnv(t.TempDir()), fixture(t), nil, &c)
	return &c
}

func TestRoots(t *testing.T) {
	for _, tc := range []struct {
		name string
		vars map[string]string
		want []string
	}{
		{"default", nil, []string{"/home/u/.openclaw"}},
		{"state-dir", map[string]string{"OPENCLAW_STATE_DIR": " /srv/claw "}, []string{"/srv/claw"}},
		{"tilde", map[string]string{"OPENCLAW_STATE_DIR": "~/claw"}, []string{"/home/u/claw"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := New().Roots(adaptertest.FakeEnv("linux", "/home/u", tc.vars))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("roots (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScan: a source per window and per file, the database's sessions first; the legacy copy
// of a session the database holds is superseded; trajectory sidecars and the index are no
// sources.
func TestScan(t *testing.T) {
	srcs, err := New().Scan(context.Background(), testEnv(t.TempDir()), fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range srcs {
		got = append(got, s.Key+" "+s.Skip)
	}
	want := []string{
		"agents/main/agent/openclaw-agent.sqlite#" + mainID + " ",
		"agents/main/agent/openclaw-agent.sqlite#" + subID + " ",
		"agents/main/agent/openclaw-agent.sqlite#" + resetID + " ",
		"agents/main/sessions/" + mainID + ".jsonl superseded",
		"agents/main/sessions/" + archivedID + ".jsonl.reset.2026-11-20T08-59-59.000Z.zst ",
		"agents/work/sessions/" + workSubID + ".jsonl ",
		"agents/work/sessions/" + workID + ".jsonl ",
		"agents/work/sessions/" + deletedID + ".jsonl.deleted.2026-11-22T12-00-00.000Z ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
}

// TestLineage: sub-agents hang from the session that spawned them (the database's
// parent_session_key, the index's spawnedBy), a reset's window from the one before it; the
// archives are marked.
func TestLineage(t *testing.T) {
	c := readFixture(t)
	type view struct{ Agent, Parent, Project, Archived string }
	got := map[string]view{}
	for id, s := range c.Sessions() {
		v := view{Agent: s.SourceAgent, Parent: s.ParentSessionID, Project: s.Project}
		if strings.Contains(string(s.Options["openclaw"]), `"archived":"deleted"`) {
			v.Archived = "deleted"
		}
		if strings.Contains(string(s.Options["openclaw"]), `"archived":"reset"`) {
			v.Archived = "reset"
		}
		got[id] = v
	}
	want := map[string]view{
		mainID:     {"openclaw", "", "/work/proj", ""},
		subID:      {"openclaw/subagent", mainID, "/work/proj", ""},
		resetID:    {"openclaw", mainID, "/work/proj", ""},
		archivedID: {"openclaw", "", "/work/proj", "reset"},
		workID:     {"openclaw", "", "/work/service", ""},
		workSubID:  {"openclaw/subagent", workID, "/work/service", ""},
		deletedID:  {"openclaw", "", "/work/scratch", "deleted"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
}

// TestCompressedEvent: the event OpenClaw stored zstd-compressed is read like the others (a
// reader of event_json alone loses it).
func TestCompressedEvent(t *testing.T) {
	c := readFixture(t)
	parts := c.PartsOf(mainID, "d1e2f3a4")
	if len(parts) != 1 || parts[0].CallID != "toolu_01" || !strings.Contains(string(parts[0].Result), "file-0119.txt") {
		t.Errorf("the compressed tool result: %+v", parts)
	}
}

// TestGolden renders every event of the fixture against testdata/events.golden (rewrite with
// -update), raw records left out.
func TestGolden(t *testing.T) {
	c := readFixture(t)
	adaptertest.CheckGolden(t, filepath.Join("testdata", "events.golden"), c.Events, *update)
}

// TestStamps: a commit to one session's events changes that window's stamp alone, and the
// root's stamp (from the database's header and log, never its content); a legacy file
// changes the root's stamp too, and a root with a file written just now cannot be vouched for.
func TestStamps(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t.TempDir())
	root := fixture(t)
	old := time.Now().Add(-time.Hour)
	if err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			err = os.Chtimes(p, old, old)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	stamps := func() map[string]string {
		srcs, err := New().Scan(ctx, env, root)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, s := range srcs {
			out[s.Key] = s.Stamp
		}
		return out
	}
	before, rootBefore := stamps(), rootStamp(t, root)
	if rootBefore == "" {
		t.Fatal("no root stamp for a root untouched for an hour")
	}
	db := filepath.Join(root, "agents", "main", "agent", dbName)
	err := sqlite.WriteAgentDB(db, func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, 9, ?, 1795165299000)`,
			resetID, `{"type":"message","id":"7a7b7c7d","parentId":"6a6b6c6d","timestamp":"2026-11-20T09:01:39.000Z","message":{"role":"user","content":"and the smallest?"}}`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	after := stamps()
	for k, s := range before {
		if changed := after[k] != s; changed != strings.HasSuffix(k, "#"+resetID) {
			t.Errorf("%s: stamp %q then %q", k, s, after[k])
		}
	}
	rootAfter := rootStamp(t, root)
	if rootAfter == rootBefore || rootAfter == "" {
		t.Errorf("root stamp %q after a commit, %q before", rootAfter, rootBefore)
	}
	if err := os.WriteFile(filepath.Join(root, "agents", "work", "sessions", "0a1b2c3d-0000-4000-8000-000000000001.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := rootStamp(t, root); got != "" {
		t.Errorf("root stamp %q with a file written just now, want none", got)
	}
}

func rootStamp(t *testing.T, root string) string {
	t.Helper()
	s, err := New().RootStamp(context.Background(), testEnv(t.TempDir()), root)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSharedFixtures reads the OpenClaw transcripts among the shared fixtures (skipped without
// them) as legacy files: every line is kept verbatim as one record, and tool calls find their
// results.
func TestSharedFixtures(t *testing.T) {
	dir := "/work/shared/fixtures/openclaw/agent-sessions"
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) == 0 {
		t.Skipf("no shared fixtures in %s", dir)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			var c adaptertest.Collector
			adaptertest.ReadSource(t, New(), testEnv(t.TempDir()), "agents/main/sessions/"+filepath.Base(path), path, adapters.Cursor{}, &c)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			records := 0
			for _, e := range c.Events {
				var o session.Options
				switch {
				case e.Session != nil:
					o = e.Session.Options
				case e.Message != nil:
					o = e.Message.Options
				}
				if len(restore.Source(o["source"])["record"]) > 0 {
					records++
				}
			}
			if records != len(lines) || len(c.Bad) != 0 {
				t.Errorf("%d records kept of %d lines, %d malformed", records, len(lines), len(c.Bad))
			}
			calls, results := map[string]bool{}, map[string]bool{}
			for _, p := range c.Parts() {
				switch p.Type {
				case session.PartToolCall:
					calls[p.CallID] = true
				case session.PartToolResult:
					results[p.CallID] = true
				}
			}
			if diff := cmp.Diff(calls, results); diff != "" {
				t.Errorf("calls and results (-calls +results):\n%s", diff)
			}
			t.Logf("%v; drift %v", c.Counts(), c.Drift)
		})
	}
}

// TestColdArchive: a window whose events OpenClaw moved to cold storage (its archive in the
// database, or in sessions/cold/) reads as it did while its events were hot.
func TestColdArchive(t *testing.T) {
	for _, storage := range []string{"sqlite", "file"} {
		t.Run(storage, func(t *testing.T) {
			root := fixture(t)
			env := testEnv(t.TempDir())
			var hot adaptertest.Collector
			adaptertest.ReadRoot(t, New(), env, root, nil, &hot)
			db := filepath.Join(root, "agents", "main", "agent", dbName)
			err := sqlite.WriteAgentDB(db, func(tx *sql.Tx) error {
				var b bytes.Buffer
				b.WriteString(`{"kind":"header","version":1,"sessionId":"` + subID + `","generation":"g1"}` + "\n")
				rows, err := tx.Query(`SELECT seq, event_json, created_at FROM transcript_events WHERE session_id = ? ORDER BY seq`, subID)
				if err != nil {
					return err
				}
				for rows.Next() {
					var seq, at int64
					var ev string
					if err := rows.Scan(&seq, &ev, &at); err != nil {
						return err
					}
					line, _ := json.Marshal(map[string]any{"kind": "event", "row": map[string]any{"seq": seq, "event_json": ev, "created_at": at}})
					b.Write(append(line, '\n'))
				}
				rows.Close()
				b.WriteString(`{"kind":"index","row":{"indexed_seq":2,"leaf_event_id":null,"needs_rebuild":0,"active_event_count":3,"active_message_count":2,"updated_at":1}}` + "\n")
				enc, _ := zstd.NewWriter(nil)
				blob := enc.EncodeAll(b.Bytes(), nil)
				sum := sha256.Sum256(blob)
				name := hex.EncodeToString(sum[:]) + ".jsonl.zst"
				var kept any = blob
				if storage == "file" {
					dir := filepath.Join(root, "agents", "main", "sessions", "cold")
					if err := os.MkdirAll(dir, 0o755); err != nil {
						return err
					}
					if err := os.WriteFile(filepath.Join(dir, name), blob, 0o644); err != nil {
						return err
					}
					kept = nil
				}
				if _, err := tx.Exec(`CREATE TABLE session_transcript_cold_archives (session_id TEXT NOT NULL PRIMARY KEY, generation TEXT NOT NULL,
					archive_name TEXT NOT NULL UNIQUE, archive_sha256 TEXT NOT NULL, event_count INTEGER NOT NULL, raw_bytes INTEGER NOT NULL,
					archive_bytes INTEGER NOT NULL, last_seq INTEGER NOT NULL, archived_at INTEGER NOT NULL, storage TEXT NOT NULL, archive_blob BLOB) STRICT`); err != nil {
					return err
				}
				if _, err := tx.Exec(`INSERT INTO session_transcript_cold_archives VALUES (?, 'g1', ?, ?, 3, 0, ?, 2, 1795165400000, ?, ?)`,
					subID, name, hex.EncodeToString(sum[:]), len(blob), storage, kept); err != nil {
					return err
				}
				_, err = tx.Exec(`DELETE FROM transcript_events WHERE session_id = ?`, subID)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			var cold adaptertest.Collector
			adaptertest.ReadRoot(t, New(), env, root, nil, &cold)
			view := func(c *adaptertest.Collector) []string {
				var out []string
				for _, m := range c.Messages() {
					if m.SessionID == subID {
						out = append(out, m.ID+" "+string(m.Role))
					}
				}
				for _, p := range c.Parts() {
					if p.SessionID == subID {
						out = append(out, p.ID+" "+p.Text)
					}
				}
				return out
			}
			if diff := cmp.Diff(view(&hot), view(&cold)); diff != "" || len(view(&cold)) == 0 || len(cold.Bad) != len(hot.Bad) {
				t.Errorf("cold window (-hot +cold):\n%s\nmalformed %v", diff, cold.Bad)
			}
		})
	}
}

// TestFork: a forked conversation's first window hangs from the session it was forked from, cut
// at the node's fork_source_entry_id; its next window from that first one.
func TestFork(t *testing.T) {
	root := fixture(t)
	const forkID, laterID = "f0f0f0f0-1111-4222-8333-444455556666", "f1f1f1f1-1111-4222-8333-444455556666"
	err := sqlite.WriteAgentDB(filepath.Join(root, "agents", "main", "agent", dbName), func(tx *sql.Tx) error {
		for _, q := range []string{
			`INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, fork_source_session_key, fork_source_session_id, fork_source_entry_id)
			 VALUES ('agent:main:fork-1', '` + laterID + `', '{"sessionId":"` + laterID + `"}', 1795165500000, 'agent:main:main', '` + mainID + `', 'c1d2e3f4')`,
			`INSERT INTO session_windows (session_id, session_key, reason, created_at, updated_at) VALUES ('` + forkID + `', 'agent:main:fork-1', 'fork', 1795165400000, 1795165400000)`,
			`INSERT INTO session_windows (session_id, session_key, previous_session_id, reason, created_at, updated_at) VALUES ('` + laterID + `', 'agent:main:fork-1', '` + forkID + `', 'reset', 1795165500000, 1795165500000)`,
		} {
			if _, err := tx.Exec(q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, New(), testEnv(t.TempDir()), root, nil, &c)
	ss := c.Sessions()
	if s := ss[forkID]; s.ParentSessionID != mainID || s.ParentMessageID != "c1d2e3f4" {
		t.Errorf("fork: parent %q at %q, want %s at c1d2e3f4", s.ParentSessionID, s.ParentMessageID, mainID)
	}
	if s := ss[laterID]; s.ParentSessionID != forkID || s.ParentMessageID != "" {
		t.Errorf("after the fork: parent %q at %q, want %s", s.ParentSessionID, s.ParentMessageID, forkID)
	}
}

// TestIncrementalDB: a window read before goes on after its last seq: an appended event gives
// the session again and the new message only, with what a whole read gives it; a rewrite of
// the transcript (OpenClaw's watermark moves) reads it whole.
func TestIncrementalDB(t *testing.T) {
	root := fixture(t)
	env := testEnv(t.TempDir())
	var first adaptertest.Collector
	cursors := adaptertest.ReadRoot(t, New(), env, root, nil, &first)
	key := "agents/main/agent/" + dbName + "#" + resetID
	db := filepath.Join(root, "agents", "main", "agent", dbName)
	exec := func(q string, args ...any) {
		t.Helper()
		if err := sqlite.WriteAgentDB(db, func(tx *sql.Tx) error { _, err := tx.Exec(q, args...); return err }); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, 9, ?, 1795165299000)`, resetID,
		`{"type":"message","id":"7a7b7c7d","parentId":"6a6b6c6d","timestamp":"2026-11-20T09:01:39.000Z","message":{"role":"user","content":"and the smallest?"}}`)
	var next adaptertest.Collector
	cursors2 := adaptertest.ReadRoot(t, New(), env, root, cursors, &next)
	var got []string
	for _, e := range next.Events {
		got = append(got, e.Key().String())
	}
	want := []string{resetID, resetID + "/7a7b7c7d", resetID + "/7a7b7c7d/7a7b7c7d:0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("incremental read (-want +got):\n%s", diff)
	}
	var whole adaptertest.Collector
	adaptertest.ReadRoot(t, New(), env, root, nil, &whole)
	message := func(c *adaptertest.Collector) (m session.Message) {
		for _, x := range c.Messages() {
			if x.SessionID == resetID && x.ID == "7a7b7c7d" {
				m = x
			}
		}
		return m
	}
	if diff := cmp.Diff(message(&whole), message(&next)); diff != "" || message(&next).ID == "" {
		t.Errorf("the new message (-whole +incremental):\n%s", diff)
	}
	if c := cursors2[key]; c.Line != 5 {
		t.Errorf("cursor after %d events, want 5", c.Line)
	}

	exec(`CREATE TABLE transcript_rewrite_watermarks (session_id TEXT NOT NULL PRIMARY KEY, generation TEXT NOT NULL, updated_at INTEGER NOT NULL)`)
	exec(`INSERT INTO transcript_rewrite_watermarks VALUES (?, 'g2', 1795165300000)`, resetID)
	exec(`UPDATE session_windows SET updated_at = 1795165301000 WHERE session_id = ?`, resetID)
	var again adaptertest.Collector
	adaptertest.ReadRoot(t, New(), env, root, cursors2, &again)
	if n := len(again.Messages()); n != 3 {
		t.Errorf("after a rewrite, %d messages read, want the window's 3 again", n)
	}
}
