package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/sqlite"
)

// A test key in the shape of a real AWS access key id (not a live one).
const testAWSKey = "AKIAQYLPMN5HHHFPZAM2"

func keySession(id string) []session.Event {
	t0 := time.Date(2026, 5, 2, 9, 0, 0, 0, time.UTC)
	raw := json.RawMessage(`{"record":{"text":"AWS_ACCESS_KEY_ID=` + testAWSKey + `"}}`)
	return []session.Event{
		{Session: &session.Session{ID: id, SourceAgent: "codex-cli", Project: "/home/dev/infra", CreatedAt: t0}},
		{Message: &session.Message{SessionID: id, ID: "m1", Role: session.RoleUser, Timestamp: t0, Options: session.Options{"source": raw}}},
		{Part: &session.Part{SessionID: id, MessageID: "m1", ID: "p0", Type: session.PartText, Provenance: session.Conversational,
			Text: "configure terraform with AWS_ACCESS_KEY_ID=" + testAWSKey + " for staging"}},
		{Part: &session.Part{SessionID: id, MessageID: "m1", ID: "p1", Type: session.PartToolCall, Provenance: session.Conversational,
			CallID: "c1", Name: "Bash", Params: json.RawMessage(`{"command":"aws configure set aws_access_key_id ` + testAWSKey + `"}`)}},
	}
}

func TestRedactionAtCapture(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	if err := s.SetRedaction(true); err != nil {
		t.Fatal(err)
	}
	upsert(t, s, keySession("k"))
	if found := findSecret(t, s, testAWSKey); len(found) > 0 {
		t.Errorf("secret stored with redaction on: %v", found)
	}
	tr, err := s.ReadTranscript(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(tr.Events())
	if n := strings.Count(string(b), "[REDACTED:aws-access-token]"); n < 3 {
		t.Errorf("markers in the transcript: %d, want 3 or more (text, params, raw record): %s", n, b)
	}
	res, err := s.Search(ctx, view.SearchRequest{Query: "terraform staging"})
	if err != nil || len(res.Sessions) == 0 {
		t.Errorf("search for the text around the secret: %+v %v", res, err)
	}
	red, err := s.Redaction()
	if err != nil || !red.Enabled || red.Rules["aws-access-token"] < 3 {
		t.Errorf("redaction status %+v %v", red, err)
	}
}

func TestRedactAllRewritesStoredSessions(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	upsert(t, s, keySession("k"))
	upsert(t, s, chat("plain", "codex-cli", "/p", "", base, "nothing secret here"))
	if found := findSecret(t, s, testAWSKey); len(found) == 0 {
		t.Fatal("the secret is not stored with redaction off: the check is blind")
	}
	ingest := func() string {
		tr, err := s.ReadTranscript(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		var o struct {
			Ingest json.RawMessage `json:"ingest"`
		}
		json.Unmarshal(tr.Messages[0].Options["pond"], &o)
		return string(o.Ingest)
	}
	captured := ingest()
	// The SQL surface reads raw records from Lance (messages.options): a reader that read the
	// secret before the rewrite, and keeps what it read, reads the redacted record after it.
	reader, err := sqlite.OpenReader(s.MirrorPath(), s.MirrorArchive())
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	sqlRecord := func() string {
		t.Helper()
		res, err := reader.Query(ctx, `SELECT json_extract(options, '$.source.record.text') AS text FROM messages WHERE session_id = 'k'`, sqlite.Options{})
		if err != nil || len(res.Rows) != 1 {
			t.Fatalf("raw record through SQL: %+v, %v", res, err)
		}
		return fmt.Sprint(res.Rows[0]["text"])
	}
	if got := sqlRecord(); !strings.Contains(got, testAWSKey) {
		t.Fatalf("raw record through SQL before the rewrite: %q", got)
	}
	rep, err := s.RedactAll(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := sqlRecord(); strings.Contains(got, testAWSKey) || !strings.Contains(got, "[REDACTED:aws-access-token]") {
		t.Errorf("raw record through SQL after the rewrite: %q", got)
	}
	if got := ingest(); captured == "" || got != captured {
		t.Errorf("who captured the rewritten message: %s, want it kept: %s", got, captured)
	}
	if rep.Scanned != 2 || rep.Sessions != 1 || rep.Rules["aws-access-token"] < 3 {
		t.Errorf("report %+v", rep)
	}
	if found := findSecret(t, s, testAWSKey); len(found) > 0 {
		t.Errorf("secret left after redact --all: %v", found)
	}
	c, err := s.mirror.Counts(ctx)
	if err != nil || c.Sessions != 2 || c.Messages != 2 {
		t.Errorf("counts after redact --all: %+v %v", c, err)
	}
	// Not denylisted: the session is stored, redacted.
	out := upsert(t, s, keySession("k"))
	if out.Erased != (view.Tally{}) {
		t.Errorf("a redacted session was denylisted: %+v", out.Erased)
	}
}
