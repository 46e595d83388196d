package sqlite

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
)

// mapRecords is a Records over a map, counting its reads.
type mapRecords struct {
	sessions map[string]map[string]string
	gen      uint64
	reads    int
}

func (r *mapRecords) Records(_ context.Context, sessionIDs []string) (map[string]map[string]string, error) {
	r.reads++
	out := map[string]map[string]string{}
	for _, id := range sessionIDs {
		if byID, ok := r.sessions[id]; ok {
			out[id] = maps.Clone(byID)
		}
	}
	return out, nil
}

func (r *mapRecords) Generation() uint64 { return r.gen }

// A query over many sessions' messages reads each session's records once, in the order the
// messages were stored, and a write (a new generation) makes the next call read again.
func TestRecordsAreReadASessionAtATime(t *testing.T) {
	ctx := context.Background()
	m := tempMirror(t)
	records := &mapRecords{sessions: map[string]map[string]string{}}
	rows := &Rows{}
	seq := int64(1)
	for s := range 20 {
		sid := fmt.Sprintf("s%02d", s)
		rows.Sessions = append(rows.Sessions, SessionRow{SessionID: sid, SourceAgent: "a", CreatedAt: "2026-01-01T00:00:00Z", Project: "/p", IngestSeq: seq})
		seq++
		records.sessions[sid] = map[string]string{}
		for i := range 30 {
			mid := fmt.Sprintf("m%02d", i)
			rows.Messages = append(rows.Messages, MessageRow{SessionID: sid, MessageID: mid, Timestamp: "2026-01-01T00:00:00Z",
				Role: "user", SourceAgent: "a", Project: "/p", IngestSeq: seq})
			seq++
			records.sessions[sid][mid] = fmt.Sprintf(`{"record":"%s/%s"}`, sid, mid)
		}
	}
	if err := m.Apply(ctx, rows); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(m.Path(), records)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	count := func(q string) string {
		t.Helper()
		res, err := r.Query(ctx, q, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(res.Rows[0]["n"])
	}
	// Every record matches its own message, so none is read for another.
	if got := count(`SELECT count(*) AS n FROM messages WHERE json_extract(options, '$.record') = session_id || '/' || message_id`); got != "600" {
		t.Errorf("%s messages read back their own record, want 600", got)
	}
	// Read ahead from the second new session on: s00, then s01 with 1 more, s03 with 2,
	// s06 with 4, s11 with 8: 5 reads, not 20.
	if records.reads != 5 {
		t.Errorf("%d reads of the archive for 20 sessions in a scan, want 5", records.reads)
	}
	// Kept: the same session again reads nothing.
	before := records.reads
	count(`SELECT count(options) AS n FROM messages WHERE session_id = 's19'`)
	if records.reads != before {
		t.Errorf("a kept session was read again (%d reads)", records.reads-before)
	}
	// Going back to sessions asked for before is no scan: nothing is read ahead, and each
	// session not kept is one read of its own.
	records.gen++
	before = records.reads
	count(`SELECT count(options) AS n FROM messages WHERE session_id IN ('s02', 's09')`)
	count(`SELECT count(options) AS n FROM messages WHERE session_id = 's02'`)
	if records.reads-before != 2 {
		t.Errorf("%d reads for two sessions, then one kept, want 2", records.reads-before)
	}
	// A write changes the generation: the record is read again and the new one is seen.
	records.sessions["s19"]["m00"] = `{"record":"redacted"}`
	records.gen++
	if got := count(`SELECT count(*) AS n FROM messages WHERE options LIKE '%redacted%'`); got != "1" {
		t.Errorf("%s messages hold the rewritten record, want 1", got)
	}
	// Without an archive, the raw records are an error, and the other columns still read.
	bare, err := OpenReader(m.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	if _, err := bare.Query(ctx, `SELECT options FROM messages LIMIT 1`, Options{}); err == nil || !strings.Contains(err.Error(), "no archive") {
		t.Errorf("raw records without an archive: %v", err)
	}
	for _, q := range []string{
		`SELECT count(*) AS n FROM messages`,
		`SELECT sum(messages) AS n FROM session_summary`,
		`SELECT count(*) + 600 AS n FROM tool_calls`,
		`SELECT count(*) AS n FROM messages m JOIN sessions s USING (session_id) WHERE m.role = 'user'`,
	} {
		if res, err := bare.Query(ctx, q, Options{}); err != nil || fmt.Sprint(res.Rows[0]["n"]) != "600" {
			t.Errorf("%s without an archive: %v, %v", q, res, err)
		}
	}
}

// Who stored each session's first message is kept as messages arrive, and an erase forgets it.
func TestFirstIngestKept(t *testing.T) {
	ctx := context.Background()
	m := tempMirror(t)
	stamp := func(adapter string) string { return `{"pond":{"ingest":{"adapter":"` + adapter + `"}}}` }
	msg := func(sid, mid, opts string, seq int64) MessageRow {
		return MessageRow{SessionID: sid, MessageID: mid, Timestamp: "2026-01-01T00:00:00Z", Role: "user", SourceAgent: "a", Project: "/p", Options: opts, IngestSeq: seq}
	}
	// A batch whose first row is not the session's first message; another session's record
	// is not JSON.
	if err := m.Apply(ctx, &Rows{Messages: []MessageRow{msg("s", "m2", stamp("api"), 5), msg("s", "m1", stamp("claude-code"), 3), msg("t", "m1", "{oops", 4)}}); err != nil {
		t.Fatal(err)
	}
	// A later batch stores another message under another adapter: the first stays.
	if err := m.Apply(ctx, &Rows{Messages: []MessageRow{msg("s", "m3", stamp("import"), 9)}}); err != nil {
		t.Fatal(err)
	}
	got, err := m.FirstIngest(ctx, []string{"s", "t", "u"})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"s": "claude-code", "t": ""}; !maps.Equal(got, want) {
		t.Errorf("first ingest %v, want %v", got, want)
	}
	if err := m.Erase(ctx, []string{"s"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := m.FirstIngest(ctx, []string{"s"}); len(got) != 0 {
		t.Errorf("after the erase: %v", got)
	}
}
