package sqlite

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
)

// mapArchive is an Archive over maps, counting its reads.
type mapArchive struct {
	sessions  map[string]map[string]string // raw records by session and message id
	parts     map[string]map[string]string // part values by session and PartValueKey
	gen       uint64
	reads     int
	partReads int
}

func (r *mapArchive) Records(_ context.Context, sessionIDs []string) (map[string]map[string]string, error) {
	r.reads++
	return pick(r.sessions, sessionIDs), nil
}

func (r *mapArchive) PartValues(_ context.Context, sessionIDs []string) (map[string]map[string]string, error) {
	r.partReads++
	return pick(r.parts, sessionIDs), nil
}

func pick(all map[string]map[string]string, sessionIDs []string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, id := range sessionIDs {
		if byID, ok := all[id]; ok {
			out[id] = maps.Clone(byID)
		}
	}
	return out
}

func (r *mapArchive) Generation() uint64 { return r.gen }

// counter runs a query through r and gives its first row's column n.
func counter(t *testing.T, r *Reader) func(q string) string {
	return func(q string) string {
		t.Helper()
		res, err := r.Query(context.Background(), q, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(res.Rows[0]["n"])
	}
}

// A query over many sessions' messages reads each session's records once, in the order the
// messages were stored, and a write (a new generation) makes the next call read again.
func TestRecordsAreReadASessionAtATime(t *testing.T) {
	ctx := context.Background()
	m := tempMirror(t)
	records := &mapArchive{sessions: map[string]map[string]string{}}
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
	count := counter(t, r)
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

// Long tool bodies are left to the archive and read back a session at a time like raw
// records, read ahead in a scan; what the mirror keeps (a short result, a text) is read with
// no call into the archive.
func TestPartValuesAreReadASessionAtATime(t *testing.T) {
	ctx := context.Background()
	m := tempMirror(t)
	archive := &mapArchive{parts: map[string]map[string]string{}}
	rows := &Rows{}
	seq := int64(1)
	long := func(s string) string { return `{"result":"` + s + strings.Repeat(" ok", 100) + `"}` }
	for s := range 20 {
		sid := fmt.Sprintf("s%02d", s)
		rows.Sessions = append(rows.Sessions, SessionRow{SessionID: sid, SourceAgent: "a", CreatedAt: "2026-01-01T00:00:00Z", Project: "/p", IngestSeq: seq})
		// Later sessions are older and the agents alternate: messages_agent_time's order is
		// not the order the sessions were stored in.
		rows.Messages = append(rows.Messages, MessageRow{SessionID: sid, MessageID: "m", Timestamp: fmt.Sprintf("2026-01-01T00:%02d:00Z", 59-s),
			Role: "assistant", SourceAgent: []string{"a", "b"}[s%2], Project: "/p", SearchText: "hello", IngestSeq: seq + 1})
		archive.parts[sid] = map[string]string{}
		for i, typ := range []string{"tool_call", "tool_result", "tool_result", "text"} {
			p := PartRow{SessionID: sid, MessageID: "m", ID: fmt.Sprintf("p%d", i), Ordinal: i, Type: typ, Provenance: "conversational",
				CallID: "c", VariantData: long(sid + "/" + typ), IngestSeq: seq + 2 + int64(i)}
			switch i {
			case 2:
				p.VariantData = `{"result":"short"}`
			case 3:
				p.VariantData = `{"text":"hello"}`
			}
			rows.Parts = append(rows.Parts, p)
			archive.parts[sid][PartValueKey("m", p.ID, "variant_data")] = p.VariantData
		}
		seq += 10
	}
	if err := m.Apply(ctx, rows); err != nil {
		t.Fatal(err)
	}
	var left int
	m.db.QueryRowContext(ctx, `SELECT count(*) FROM part_rows WHERE variant_data_packed = x'00'`).Scan(&left)
	if left != 40 {
		t.Errorf("%d bodies left to the archive, want 40 (each session's long call and result)", left)
	}
	r, err := OpenReader(m.Path(), archive)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	count := counter(t, r)
	if got := count(`SELECT count(*) AS n FROM parts WHERE variant_data LIKE '%' || session_id || '/' || type || '%'`); got != "40" {
		t.Errorf("%s parts read back their own body, want 40", got)
	}
	if archive.partReads != 5 || archive.reads != 0 {
		t.Errorf("%d reads of the parts and %d of the records for 20 sessions in a scan, want 5 and 0", archive.partReads, archive.reads)
	}
	archive.gen++
	before := archive.partReads
	if got := count(`SELECT count(*) AS n FROM parts WHERE id IN ('p2', 'p3') AND variant_data IN ('{"result":"short"}', '{"text":"hello"}')`); got != "40" {
		t.Errorf("%s short results and texts, want 40", got)
	}
	if archive.partReads != before {
		t.Errorf("values the mirror keeps read %d times from the archive", archive.partReads-before)
	}
	// The tool_calls view joins a call's body with its result's, walking the calls in the
	// order they were stored whatever the question groups by: read ahead as a scan.
	archive.gen++
	before = archive.partReads
	res, err := r.Query(ctx, `SELECT source_agent, count(*) AS n FROM tool_calls WHERE result IS NOT NULL GROUP BY 1`, Options{})
	if err != nil || len(res.Rows) != 2 || fmt.Sprint(res.Rows[0]["n"]) != "20" || fmt.Sprint(res.Rows[1]["n"]) != "20" {
		t.Errorf("tool_calls by agent: %+v, %v", res, err)
	}
	if n := archive.partReads - before; n != 5 {
		t.Errorf("%d reads of the parts for every result's body, want 5", n)
	}
	if got := count(`SELECT count(*) AS n FROM tool_calls WHERE params IS NULL AND result LIKE 's05/tool_result%'`); got != "1" {
		t.Errorf("tool_calls: %s rows for s05's call, want 1", got)
	}
}
