package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/lance"
	"github.com/pondhq/pond/store/sqlite"
)

var lanceQuote = lance.Quote

// noDrift fails t when the mirror of s differs from its Lance tables; what says when.
func noDrift(t *testing.T, s *Store, what string) {
	t.Helper()
	drift, err := s.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range drift {
		if !d.OK() {
			t.Errorf("%s: %+v", what, d)
		}
	}
}

func openTestStore(t testing.TB, dir string) *Store {
	t.Helper()
	s, err := Open(context.Background(), Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state"), Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var base = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// everyKind is one session whose messages hold a part of every kind.
func everyKind(id string) []session.Event {
	s := &session.Session{ID: id, SourceAgent: "claude-code", Project: "/work/proj", CreatedAt: base,
		Options: session.Options{"source": json.RawMessage(`{"record":{"type":"session","x":"<b>&"}}`)}}
	m1 := &session.Message{SessionID: id, ID: "m1", Role: session.RoleUser, Timestamp: base.Add(time.Second)}
	m2 := &session.Message{SessionID: id, ID: "m2", Role: session.RoleAssistant, Timestamp: base.Add(2 * time.Second),
		Options: session.Options{"anthropic": json.RawMessage(`{"usage":{"input_tokens":12}}`)}}
	m3 := &session.Message{SessionID: id, ID: "m3", Role: session.RoleSystem, Timestamp: base.Add(3 * time.Second), Content: "compacted"}
	parts := []*session.Part{
		{SessionID: id, MessageID: "m1", ID: "p0", Ordinal: 0, Type: session.PartText, Provenance: session.Conversational, Text: "please fix the flaky test"},
		{SessionID: id, MessageID: "m1", ID: "p1", Ordinal: 1, Type: session.PartFile, Provenance: session.Conversational,
			MediaType: "image/png", FileName: "shot.png", Data: &session.FileData{Kind: session.FileBytes, Bytes: []byte{0x89, 'P', 'N', 'G', 0, 1}}},
		{SessionID: id, MessageID: "m1", ID: "p2", Ordinal: 2, Type: session.PartText, Provenance: session.Injected, Text: "<system-reminder>x</system-reminder>"},
		{SessionID: id, MessageID: "m2", ID: "p0", Ordinal: 0, Type: session.PartReasoning, Provenance: session.Conversational, Text: "look at the test",
			Options: session.Options{"anthropic": json.RawMessage(`{"signature":"` + strings.Repeat("abc", 100) + `"}`)}},
		{SessionID: id, MessageID: "m2", ID: "p1", Ordinal: 1, Type: session.PartToolCall, Provenance: session.Conversational,
			CallID: "toolu_1", Name: "Bash", Params: json.RawMessage(`{"command":"go test ./..."}`)},
		{SessionID: id, MessageID: "m2", ID: "p2", Ordinal: 2, Type: session.PartToolResult, Provenance: session.Conversational,
			CallID: "toolu_1", Name: "Bash", IsFailure: true, Result: json.RawMessage(`"FAIL: TestX` + strings.Repeat(`\n    x_test.go:12: got 1, want 2`, 12) + `"`)},
		{SessionID: id, MessageID: "m2", ID: "p3", Ordinal: 3, Type: session.PartToolApprovalRequest, Provenance: session.Conversational,
			ApprovalID: "ap1", ToolCallID: "toolu_1"},
		{SessionID: id, MessageID: "m2", ID: "p4", Ordinal: 4, Type: session.PartToolApprovalResponse, Provenance: session.Conversational,
			ApprovalID: "ap1", Approved: true, Reason: "looks safe"},
		{SessionID: id, MessageID: "m2", ID: "p5", Ordinal: 5, Type: session.PartFile, Provenance: session.Conversational,
			MediaType: "text/html", FileName: "doc.html", Data: &session.FileData{Kind: session.FileURL, Value: "https://example.test/doc.html"}},
		{SessionID: id, MessageID: "m2", ID: "p6", Ordinal: 6, Type: session.PartText, Provenance: session.Conversational, Text: "The test races on a temp dir."},
	}
	ev := []session.Event{{Session: s}, {Message: m1}}
	for _, p := range parts[:3] {
		ev = append(ev, session.Event{Part: p})
	}
	ev = append(ev, session.Event{Message: m2})
	for _, p := range parts[3:] {
		ev = append(ev, session.Event{Part: p})
	}
	return append(ev, session.Event{Message: m3})
}

// clone deep-copies events through JSON, so a test can keep its inputs while the store
// normalises what it is given.
func clone(t testing.TB, ev []session.Event) []session.Event {
	t.Helper()
	out := make([]session.Event, len(ev))
	for i, e := range ev {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &out[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func upsert(t testing.TB, s *Store, ev []session.Event) *Outcome {
	t.Helper()
	out, err := s.Upsert(context.Background(), clone(t, ev), Stamp{Adapter: "test", PondVersion: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// withoutIngestStamp drops options.pond.ingest so stored messages compare with their inputs.
var withoutIngestStamp = cmp.Transformer("dropIngest", func(o session.Options) session.Options {
	if raw, ok := o["pond"]; ok {
		var pond map[string]json.RawMessage
		json.Unmarshal(raw, &pond)
		delete(pond, "ingest")
		o = o.Clone()
		if len(pond) == 0 {
			delete(o, "pond")
		} else {
			o["pond"], _ = json.Marshal(pond)
		}
	}
	if len(o) == 0 {
		return nil
	}
	return o
})

func TestRoundTripEveryPartKind(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	in := everyKind("s1")
	out := upsert(t, s, in)
	if out.Inserted != (view.Tally{Sessions: 1, Messages: 3, Parts: 10}) || out.Rejected != (view.Tally{}) {
		t.Fatalf("first ingest: inserted %+v rejected %+v, want 1/3/10 and none", out.Inserted, out.Rejected)
	}
	tr, err := s.ReadTranscript(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	want := clone(t, in)
	var v session.Validator
	for i := range want {
		if err := v.Check(&want[i]); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(want, tr.Events(), withoutIngestStamp); diff != "" {
		t.Fatalf("stored transcript differs (-want +got):\n%s", diff)
	}
	// Ingest provenance is stamped on every message, never on parts or sessions.
	for _, m := range tr.Messages {
		if !strings.Contains(string(m.Options["pond"]), `"ingest"`) {
			t.Errorf("message %s lacks options.pond.ingest: %s", m.ID, m.Options["pond"])
		}
	}
	var st string
	s.Mirror().DB().QueryRow(`SELECT search_text FROM messages WHERE message_id = 'm1'`).Scan(&st)
	if st != "please fix the flaky test\nshot.png image/png" {
		t.Errorf("search_text of m1 = %q", st)
	}
	var failures int
	s.Mirror().DB().QueryRow(`SELECT count(*) FROM parts WHERE tool_name = 'Bash' AND is_failure = 1`).Scan(&failures)
	if failures != 1 {
		t.Errorf("mirror has %d failed Bash results, want 1", failures)
	}
}

func TestReingestMatchesEverything(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	in := everyKind("s1")
	upsert(t, s, in)
	out := upsert(t, s, in)
	if out.Inserted != (view.Tally{}) || out.Matched != (view.Tally{Sessions: 1, Messages: 3, Parts: 10}) {
		t.Fatalf("re-ingest: inserted %+v matched %+v; want nothing inserted, all matched", out.Inserted, out.Matched)
	}
	for _, r := range out.Rows {
		if r.Status != Matched {
			t.Fatalf("row %d %s: %s, want matched", r.Index, r.Key, r.Status)
		}
	}
	c, _ := s.Mirror().Counts(context.Background())
	if c.Sessions != 1 || c.Messages != 3 || c.Parts != 10 {
		t.Fatalf("mirror counts %+v after re-ingest", c)
	}
	n, _ := s.Table(TableParts).Count(context.Background(), "")
	if n != 10 {
		t.Fatalf("Lance parts = %d, want 10", n)
	}
}

// A fork replays its parent's message ids; keyed by session it is stored in full.
func TestForkSharingMessageIDs(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	upsert(t, s, everyKind("parent"))
	fork := everyKind("fork")
	fork[0].Session.ParentSessionID, fork[0].Session.ParentMessageID = "parent", "m2"
	out := upsert(t, s, fork)
	if out.Inserted != (view.Tally{Sessions: 1, Messages: 3, Parts: 10}) {
		t.Fatalf("fork: inserted %+v, want all of it", out.Inserted)
	}
	tr, err := s.ReadTranscript(context.Background(), "fork")
	if err != nil || len(tr.Messages) != 3 || tr.Session.ParentMessageID != "m2" {
		t.Fatalf("fork transcript: %+v, %v", tr, err)
	}
}

func TestRelabelKeepsStoredLabels(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	upsert(t, s, everyKind("s1"))
	again := everyKind("s1")
	again[0].Session.SourceAgent, again[0].Session.Project = "codex-cli", "/elsewhere"
	again = append(again, session.Event{Message: &session.Message{SessionID: "s1", ID: "m4", Role: session.RoleUser, Timestamp: base.Add(time.Hour)}})
	out := upsert(t, s, again)
	if out.Relabeled != 1 || out.Inserted.Messages != 1 {
		t.Fatalf("relabeled %d, inserted %+v; want 1 relabel, 1 new message", out.Relabeled, out.Inserted)
	}
	var agent, project string
	s.Mirror().DB().QueryRow(`SELECT source_agent, project FROM messages WHERE message_id = 'm4'`).Scan(&agent, &project)
	if agent != "claude-code" || project != "/work/proj" {
		t.Fatalf("new message labelled %s %s, want the stored claude-code /work/proj", agent, project)
	}
}

func TestInvalidRowsAreRejectedOneByOne(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	in := everyKind("s1")
	in[2].Part.Type = "hologram"    // m1/p0: rejected alone
	in[5].Message.Role = "narrator" // m2: rejected, and its parts with it
	out := upsert(t, s, in)
	if out.Rejected != (view.Tally{Sessions: 0, Messages: 1, Parts: 8}) || out.Inserted != (view.Tally{Sessions: 1, Messages: 2, Parts: 2}) {
		t.Fatalf("rejected %+v inserted %+v", out.Rejected, out.Inserted)
	}
	if !strings.Contains(out.Rows[2].Error, "unknown part type") || !strings.Contains(out.Rows[6].Error, "before its message") {
		t.Fatalf("errors: %q / %q", out.Rows[2].Error, out.Rows[6].Error)
	}
}

// Content (raw JSON, sizes) is checked only on rows to insert: a bad value in a new message
// rejects it and its parts, while the same bad value on a row already stored is left alone.
func TestContentIsCheckedOnRowsToInsert(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	// Not through upsert: its JSON clone would refuse the invalid values.
	write := func(ev []session.Event) *Outcome {
		t.Helper()
		out, err := s.Upsert(context.Background(), ev, Stamp{})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	in := everyKind("s1")
	in[5].Message.Options = session.Options{"raw": json.RawMessage(`{"broken"`)} // m2
	out := write(in)
	if out.Rejected != (view.Tally{Sessions: 0, Messages: 1, Parts: 7}) || out.Inserted != (view.Tally{Sessions: 1, Messages: 2, Parts: 3}) {
		t.Fatalf("rejected %+v inserted %+v", out.Rejected, out.Inserted)
	}
	if !strings.Contains(out.Rows[5].Error, "options.raw: not valid JSON") || !strings.Contains(out.Rows[6].Error, "its message was rejected") {
		t.Fatalf("errors: %q / %q", out.Rows[5].Error, out.Rows[6].Error)
	}

	again := everyKind("s1")
	again[1].Message.Options = session.Options{"raw": json.RawMessage(`{"broken"`)} // m0, stored
	out = write(again)
	if out.Rejected != (view.Tally{}) || out.Inserted != (view.Tally{Sessions: 0, Messages: 1, Parts: 7}) || out.Rows[1].Status != Matched {
		t.Fatalf("re-ingest: rejected %+v inserted %+v, m0 %s", out.Rejected, out.Inserted, out.Rows[1].Status)
	}

	bad := everyKind("s2")
	bad[0].Session.Options = session.Options{"raw": json.RawMessage(`nope`)}
	out = write(bad)
	if out.Inserted != (view.Tally{}) || out.Rejected != (view.Tally{Sessions: 1, Messages: 3, Parts: 10}) {
		t.Fatalf("bad session: rejected %+v inserted %+v", out.Rejected, out.Inserted)
	}
}

// TestEscapingInLanceFilters: file payloads are read back from Lance by a filter on the session
// id, for every shape of id the store takes (lance.TestQuote covers quoting itself). Ids with
// quotes, backslashes, spaces or other scripts are refused before they reach a filter
// (session.CheckID).
func TestEscapingInLanceFilters(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	for _, id := range []string{`it's`, `back\slash`, `50% off`, `日本語`} {
		if out := upsert(t, s, everyKind(id)); out.Rejected.Sessions != 1 {
			t.Errorf("session %q: rejected %+v, want the session refused for its id", id, out.Rejected)
		}
	}
	for _, id := range []string{`a.b_c-D9`, `7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b/agent-a1`} {
		upsert(t, s, everyKind(id))
		tr, err := s.ReadTranscript(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		var png []byte
		for _, p := range tr.Parts["m1"] {
			if p.ID == "p1" {
				png = p.Data.Bytes
			}
		}
		if len(png) != 6 {
			t.Errorf("session %q: file payload %v, want its 6 bytes back from Lance", id, png)
		}
	}
}

func TestReopenMigratesMissingColumns(t *testing.T) {
	dir := t.TempDir()
	s := openTestStore(t, dir)
	upsert(t, s, everyKind("s1"))
	s.Close()
	s = openTestStore(t, dir)
	if n, err := s.Table(TableMessages).Count(context.Background(), "embedding_model IS NULL"); err != nil || n != 3 {
		t.Fatalf("after reopen: %d, %v", n, err)
	}
}

// TestLockContention runs a second process that holds the store lock and checks that a writer
// waits and names the holder, and that TryLock refuses.
func TestLockContention(t *testing.T) {
	if os.Getenv("POND_TEST_HOLD_LOCK") != "" {
		l, err := TryLock(os.Getenv("POND_TEST_HOLD_LOCK"), "lock-holder")
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		// Hold the lock until the parent closes our stdin: no sleep whose length a busy
		// machine could outlast.
		io.Copy(io.Discard, os.Stdin)
		l.Release()
		os.Exit(0)
	}
	state := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestLockContention$")
	cmd.Env = append(os.Environ(), "POND_TEST_HOLD_LOCK="+state)
	stdout, _ := cmd.StdoutPipe()
	release, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if _, err := stdout.Read(buf); err != nil || string(buf) != "locked\n" {
		t.Fatalf("helper said %q, %v", buf, err)
	}
	_, err := TryLock(state, "second")
	var le *LockedError
	if !errors.As(err, &le) || le.Holder.Command != "lock-holder" || le.Holder.PID != cmd.Process.Pid {
		t.Fatalf("TryLock while held: %v, want a LockedError naming the helper", err)
	}
	var waitedFor Holder
	l, err := AcquireLock(context.Background(), state, "second", func(h Holder) {
		waitedFor = h
		release.Close() // the helper lets go once the writer is waiting
	})
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	if waitedFor.PID != cmd.Process.Pid {
		t.Fatalf("waited for %+v, want the helper", waitedFor)
	}
	cmd.Wait()
}

// A holder that dies (SIGKILL) never blocks the next writer.
func TestLockFreedWhenHolderDies(t *testing.T) {
	if os.Getenv("POND_TEST_DIE_HOLDING") != "" {
		TryLock(os.Getenv("POND_TEST_DIE_HOLDING"), "doomed")
		fmt.Println("locked")
		time.Sleep(time.Minute)
	}
	state := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestLockFreedWhenHolderDies$")
	cmd.Env = append(os.Environ(), "POND_TEST_DIE_HOLDING="+state)
	stdout, _ := cmd.StdoutPipe()
	cmd.Start()
	buf := make([]byte, 7)
	stdout.Read(buf)
	cmd.Process.Kill()
	cmd.Wait()
	l, err := TryLock(state, "next")
	if err != nil {
		t.Fatalf("after the holder died: %v", err)
	}
	l.Release()
}

func TestExportImportRoundTrip(t *testing.T) {
	ctx := context.Background()
	src := openTestStore(t, t.TempDir())
	upsert(t, src, everyKind("a"))
	fork := everyKind("b")
	fork[0].Session.ParentSessionID = "a"
	upsert(t, src, fork)

	var buf strings.Builder
	n, err := src.Export(ctx, &buf, nil)
	if err != nil || n != 2 {
		t.Fatalf("export: %d sessions, %v", n, err)
	}
	dst := openTestStore(t, t.TempDir())
	// A damaged line is reported and skipped; the rest is imported.
	in := buf.String() + "{not json\n"
	sum, err := dst.Import(ctx, strings.NewReader(in), 5, Stamp{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Malformed != 1 || sum.Inserted != (view.Tally{Sessions: 2, Messages: 6, Parts: 20}) {
		t.Fatalf("import: %+v", sum)
	}
	for _, id := range []string{"a", "b"} {
		a, _ := src.ReadTranscript(ctx, id)
		b, _ := dst.ReadTranscript(ctx, id)
		if diff := cmp.Diff(a.Events(), b.Events(), withoutIngestStamp); diff != "" {
			t.Errorf("session %s after export/import (-src +dst):\n%s", id, diff)
		}
	}
	// A session whose id could leave an agent's folder in a restore, or run in the shell
	// line that resumes it, is refused with its messages (session.CheckID).
	hostile := strings.ReplaceAll(buf.String(), `"a"`, `"../../x;touch${IFS}PWNED"`)
	other := openTestStore(t, t.TempDir())
	sum, err = other.Import(ctx, strings.NewReader(hostile), 5, Stamp{})
	if err != nil || sum.Rejected.Sessions != 2 || sum.Inserted.Sessions != 0 || len(sum.Errors) == 0 || !strings.Contains(strings.Join(sum.Errors, "\n"), "session id") {
		t.Fatalf("import of a hostile id: %+v, %v; want every session refused (b names it as parent), with the reason", sum, err)
	}
	// Importing again changes nothing.
	sum, _ = dst.Import(ctx, strings.NewReader(buf.String()), 5, Stamp{})
	if sum.Inserted != (view.Tally{}) || sum.Matched != (view.Tally{Sessions: 2, Messages: 6, Parts: 20}) {
		t.Fatalf("second import: %+v", sum)
	}
}

func TestMirrorRebuildAndVerify(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	upsert(t, s, everyKind("a"))
	upsert(t, s, everyKind("b"))
	noDrift(t, s, "fresh store drifts")
	// Lose rows from the mirror behind the store's back: verify sees it, rebuild mends it.
	if _, err := s.Mirror().DB().Exec(`DELETE FROM part_rows WHERE session_id = 'b'`); err != nil {
		t.Fatal(err)
	}
	drift, _ := s.Verify(ctx)
	if drift[2].OK() || drift[2].Mirror != 10 || len(drift[2].MissingMirror) != 10 {
		t.Fatalf("after losing parts: %+v", drift[2])
	}
	c, err := s.RebuildMirror(ctx)
	if err != nil || c.Parts != 20 || c.Messages != 6 || c.Sessions != 2 {
		t.Fatalf("rebuild: %+v, %v", c, err)
	}
	drift, _ = s.Verify(ctx)
	for _, d := range drift {
		if !d.OK() {
			t.Fatalf("after rebuild: %+v", d)
		}
	}
	// The rebuilt mirror is the one writes use.
	if out := upsert(t, s, everyKind("b")); out.Inserted != (view.Tally{}) {
		t.Fatalf("re-ingest after rebuild inserted %+v", out.Inserted)
	}
}

// TestMirrorOfAnotherLayoutIsRebuilt: a mirror written by a Pond with another mirror layout
// (an upgrade) is rebuilt from Lance when the store opens, with every row, once: a second
// process opening the archive meanwhile waits for the store lock and opens the rebuilt mirror.
func TestMirrorOfAnotherLayoutIsRebuilt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openTestStore(t, dir)
	upsert(t, s, everyKind("a"))
	if _, err := s.Mirror().DB().Exec(`UPDATE _pond_meta SET value = '4' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	var logs [2]bytes.Buffer
	var stores [2]*Store
	var wg sync.WaitGroup
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := Open(ctx, Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state"), Command: "test",
				Logger: slog.New(slog.NewTextHandler(&logs[i], &slog.HandlerOptions{Level: slog.LevelWarn}))})
			if err != nil {
				t.Error(err)
				return
			}
			stores[i] = st
			t.Cleanup(func() { st.Close() })
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if n := strings.Count(logs[0].String()+logs[1].String(), "rebuilding the SQL mirror"); n != 1 {
		t.Errorf("%d rebuilds for two stores opened together, want 1:\n%s\n%s", n, &logs[0], &logs[1])
	}
	for _, s := range stores {
		var v string
		if err := s.Mirror().DB().QueryRow(`SELECT value FROM _pond_meta WHERE key = 'schema_version'`).Scan(&v); err != nil || v != fmt.Sprint(sqlite.SchemaVersion) {
			t.Fatalf("layout after open: %q, %v", v, err)
		}
		noDrift(t, s, "after the rebuild")
	}
	// The raw records, which the old layout kept in the mirror, read from Lance.
	r, err := sqlite.OpenReader(stores[1].MirrorPath(), stores[1].MirrorArchive())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, err := r.Query(ctx, `SELECT json_extract(options, '$.anthropic.usage.input_tokens') AS n FROM messages WHERE message_id = 'm2'`, sqlite.Options{})
	if err != nil || len(res.Rows) != 1 || fmt.Sprint(res.Rows[0]["n"]) != "12" {
		t.Errorf("raw record after the rebuild: %+v, %v", res, err)
	}
}

func TestNewerLayoutIsRefused(t *testing.T) {
	dir := t.TempDir()
	openTestStore(t, dir).Close()
	os.WriteFile(filepath.Join(dir, "data", layoutFile), []byte(`{"schema_version": 99}`), 0o600)
	_, err := Open(context.Background(), Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state")})
	if err == nil || !strings.Contains(err.Error(), "upgrade Pond") {
		t.Fatalf("opening a newer layout: %v", err)
	}
}

// TestOlderLayoutIsMarked: an archive of an older layout is marked with this one when opened to
// write (an older Pond must then refuse what this one writes), and left alone when opened to read.
func TestOlderLayoutIsMarked(t *testing.T) {
	dir := t.TempDir()
	openTestStore(t, dir).Close()
	file := filepath.Join(dir, "data", layoutFile)
	opts := Options{DataDir: filepath.Join(dir, "data"), StateDir: filepath.Join(dir, "state")}
	for _, readOnly := range []bool{true, false} {
		os.WriteFile(file, []byte(`{"schema_version": 1}`), 0o600)
		opts.ReadOnly = readOnly
		s, err := Open(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		b, _ := os.ReadFile(file)
		want := `{"schema_version": 1}`
		if !readOnly {
			want = fmt.Sprintf("{\"schema_version\": %d}\n", SchemaVersion)
		}
		if string(b) != want {
			t.Errorf("read only %v: %s holds %q, want %q", readOnly, layoutFile, b, want)
		}
	}
}

// A message captured while the agent was still writing it gains its text later; its search
// text follows, in Lance and in the mirror.
func TestLateTextPartsReindexTheMessage(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	sess := &session.Session{ID: "s", SourceAgent: "claude-code", Project: "/p", CreatedAt: base}
	msg := &session.Message{SessionID: "s", ID: "m", Role: session.RoleAssistant, Timestamp: base}
	think := &session.Part{SessionID: "s", MessageID: "m", ID: "a", Type: session.PartReasoning, Provenance: session.Conversational, Text: "hmm"}
	upsert(t, s, []session.Event{{Session: sess}, {Message: msg}, {Part: think}})
	text := &session.Part{SessionID: "s", MessageID: "m", ID: "b", Ordinal: 1, Type: session.PartText, Provenance: session.Conversational, Text: "the fix is in main.go, it's done"}
	out := upsert(t, s, []session.Event{{Session: sess}, {Message: msg}, {Part: text}})
	if out.Reindexed != 1 || out.Inserted.Parts != 1 {
		t.Fatalf("outcome %+v", out)
	}
	var st string
	s.Mirror().DB().QueryRow(`SELECT search_text FROM messages WHERE message_id = 'm'`).Scan(&st)
	if st != text.Text {
		t.Fatalf("mirror search_text %q", st)
	}
	if n, err := s.Table(TableMessages).Count(ctx, "search_text = "+lanceQuote(text.Text)); err != nil || n != 1 {
		t.Fatalf("Lance search_text not updated: %d, %v", n, err)
	}
	// A rebuilt mirror replays the updated row from Lance.
	if _, err := s.RebuildMirror(ctx); err != nil {
		t.Fatal(err)
	}
	s.Mirror().DB().QueryRow(`SELECT search_text FROM messages WHERE message_id = 'm'`).Scan(&st)
	if st != text.Text {
		t.Fatalf("rebuilt mirror search_text %q", st)
	}
}

// TestManyLateTextPartsReindexInOneCommit: messages that gain text parts in one write have
// their search text set in one Lance commit, not one per message.
func TestManyLateTextPartsReindexInOneCommit(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	sess := &session.Session{ID: "s", SourceAgent: "claude-code", Project: "/p", CreatedAt: base}
	first, later := []session.Event{{Session: sess}}, []session.Event{{Session: sess}}
	const n = 40
	for i := range n {
		msg := &session.Message{SessionID: "s", ID: fmt.Sprintf("m%02d", i), Role: session.RoleAssistant, Timestamp: base.Add(time.Duration(i) * time.Second)}
		first = append(first, session.Event{Message: msg})
		later = append(later, session.Event{Message: msg}, session.Event{Part: &session.Part{SessionID: "s", MessageID: msg.ID, ID: "t",
			Type: session.PartText, Provenance: session.Conversational, Text: fmt.Sprintf("answer number %d", i)}})
	}
	upsert(t, s, first)
	v0, err := s.Table(TableMessages).Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if out := upsert(t, s, later); out.Reindexed != n {
		t.Fatalf("reindexed %d messages, want %d", out.Reindexed, n)
	}
	v1, err := s.Table(TableMessages).Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v1-v0 != 1 {
		t.Errorf("messages table: %d versions for the reindex, want 1", v1-v0)
	}
	if got, err := s.Table(TableMessages).Count(ctx, "search_text = 'answer number 7'"); err != nil || got != 1 {
		t.Errorf("Lance search_text of m07: %d rows, %v", got, err)
	}
	var st string
	s.Mirror().DB().QueryRow(`SELECT search_text FROM messages WHERE message_id = 'm07'`).Scan(&st)
	if st != "answer number 7" {
		t.Errorf("mirror search_text of m07: %q", st)
	}
}
