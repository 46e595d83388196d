package sqlite

import (
	"context"
	"testing"
)

// The rank table holds a row for every message, follows deletions, and is filled again when a
// mirror is opened with rows or columns it lacks (a binary that did not keep them wrote it).
func TestRankTableFollowsMessages(t *testing.T) {
	ctx := context.Background()
	m := tempMirror(t)
	msg := func(id, agent, ts string, seq int64) MessageRow {
		return MessageRow{SessionID: "s", MessageID: id, Timestamp: ts, Role: "user", SourceAgent: agent, Project: "/p", SearchText: "the walrus " + id, IngestSeq: seq}
	}
	if err := m.Apply(ctx, &Rows{Messages: []MessageRow{
		msg("m1", "claude-code", "2026-06-01T09:00:01.000000Z", 1),
		msg("m2", "claude-code/subagent", "2026-06-01T09:00:02.000000Z", 2),
		msg("m3", "codex-cli", "2026-06-01T09:00:03.000000Z", 3),
	}}); err != nil {
		t.Fatal(err)
	}
	check := func(when string, want map[string][2]string) {
		t.Helper()
		rows, err := m.db.QueryContext(ctx, `SELECT m.message_id, `+SubagentSQL("r.source_agent")+`, r.timestamp FROM message_rows m JOIN _pond_search_rank r ON r.rid = m.rowid`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		got := map[string][2]string{}
		for rows.Next() {
			var id, sub, ts string
			if err := rows.Scan(&id, &sub, &ts); err != nil {
				t.Fatal(err)
			}
			got[id] = [2]string{sub, ts}
		}
		var n int
		if err := m.db.QueryRowContext(ctx, `SELECT count(*) FROM _pond_search_rank`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || n != len(want) {
			t.Fatalf("%s: rank rows %v (%d in all), want %v", when, got, n, want)
		}
		for id, w := range want {
			if got[id] != w {
				t.Fatalf("%s: %s ranks as %v, want %v", when, id, got[id], w)
			}
		}
	}
	all := map[string][2]string{
		"m1": {"0", "2026-06-01T09:00:01.000000Z"},
		"m2": {"1", "2026-06-01T09:00:02.000000Z"},
		"m3": {"0", "2026-06-01T09:00:03.000000Z"},
	}
	check("after the write", all)

	// A message applied again adds no second row.
	if err := m.Apply(ctx, &Rows{Messages: []MessageRow{msg("m1", "claude-code", "2026-06-01T09:00:01.000000Z", 4)}}); err != nil {
		t.Fatal(err)
	}
	check("after a replay", all)

	if _, err := m.db.ExecContext(ctx, `DELETE FROM message_rows WHERE message_id = 'm3'`); err != nil {
		t.Fatal(err)
	}
	delete(all, "m3")
	check("after a deletion", all)

	// Rows written without it, as an older binary would: the next open fills it again.
	if _, err := m.db.ExecContext(ctx, `DELETE FROM _pond_search_rank WHERE rid = (SELECT rowid FROM message_rows WHERE message_id = 'm2')`); err != nil {
		t.Fatal(err)
	}
	path := m.Path()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m, err := OpenMirror(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	check("after an open", all)

	// The table and trigger a binary kept before the agent and role were (another name, so that
	// such a binary still writes its own): the next open drops both, and a deletion after it
	// still succeeds, which a trigger left over its dropped table would make fail.
	for _, q := range []string{
		`CREATE TABLE _pond_message_rank (rid INTEGER PRIMARY KEY, subagent INTEGER NOT NULL, timestamp TEXT NOT NULL)`,
		`CREATE TRIGGER messages_rank_delete AFTER DELETE ON message_rows BEGIN DELETE FROM _pond_message_rank WHERE rid = old.rowid; END`,
		`INSERT INTO _pond_message_rank SELECT rowid, 0, timestamp FROM message_rows`} {
		if _, err := m.db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if m, err = OpenMirror(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	check("after an open over the older table", all)
	var left int
	if err := m.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name IN ('_pond_message_rank', 'messages_rank_delete')`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("the older table or its trigger is still there: %d (%v)", left, err)
	}
	var same int
	if err := m.db.QueryRowContext(ctx, `SELECT count(*) FROM message_rows m JOIN _pond_search_rank r ON r.rid = m.rowid
		WHERE r.source_agent = m.source_agent AND r.role = m.role`).Scan(&same); err != nil || same != len(all) {
		t.Fatalf("rank rows with the message's agent and role: %d of %d (%v)", same, len(all), err)
	}
	if _, err := m.db.ExecContext(ctx, `DELETE FROM message_rows WHERE message_id = 'm2'`); err != nil {
		t.Fatal(err)
	}
	delete(all, "m2")
	check("after a deletion over the older table's trigger", all)
}
