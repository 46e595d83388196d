package session

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 5, 1, 10, 0, 0, 123456789, time.UTC)

func validStream() []Event {
	s := &Session{ID: "s1", SourceAgent: "claude-code", Project: "/work/proj", CreatedAt: t0}
	m := &Message{SessionID: "s1", ID: "m1", Role: RoleUser, Timestamp: t0}
	p := &Part{SessionID: "s1", MessageID: "m1", ID: "p1", Type: PartText, Provenance: Conversational, Text: "hi"}
	return []Event{{Session: s}, {Message: m}, {Part: p}}
}

func TestValidatorRejects(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func([]Event) []Event
		field  string
		reason string
	}{
		{"session_without_id", func(e []Event) []Event { e[0].Session.ID = ""; return e }, "id", "missing"},
		{"session_without_agent", func(e []Event) []Event { e[0].Session.SourceAgent = ""; return e }, "source_agent", "missing"},
		{"session_without_project", func(e []Event) []Event { e[0].Session.Project = "  "; return e }, "project", "missing"},
		{"session_without_time", func(e []Event) []Event { e[0].Session.CreatedAt = time.Time{}; return e }, "created_at", "missing"},
		{"cut_point_without_parent", func(e []Event) []Event { e[0].Session.ParentMessageID = "m0"; return e }, "parent_message_id", "without parent_session_id"},
		{"own_parent", func(e []Event) []Event { e[0].Session.ParentSessionID = "s1"; return e }, "parent_session_id", "itself"},
		{"hostile_id", func(e []Event) []Event { e[0].Session.ID = "x;touch${IFS}PWNED"; return e }, "id", "letters, digits"},
		{"id_with_separator", func(e []Event) []Event { e[0].Session.ID = "../../.bash_profile"; return e }, "id", "starts with a letter or digit"},
		{"id_like_a_flag", func(e []Event) []Event { e[0].Session.ID = "-rf"; return e }, "id", "starts with a letter or digit"},
		{"id_with_dot_dot", func(e []Event) []Event { e[0].Session.ID = "a/../../b"; return e }, "id", "starts with a letter or digit"},
		{"id_absolute", func(e []Event) []Event { e[0].Session.ID = "/etc/passwd"; return e }, "id", "starts with a letter or digit"},
		{"id_trailing_slash", func(e []Event) []Event { e[0].Session.ID = "a/"; return e }, "id", "ends with"},
		{"id_too_long", func(e []Event) []Event { e[0].Session.ID = strings.Repeat("a", MaxIDBytes+1); return e }, "id", "more than"},
		{"hostile_parent", func(e []Event) []Event { e[0].Session.ParentSessionID = "p/../../x"; return e }, "parent_session_id", "starts with a letter or digit"},
		{"message_without_id", func(e []Event) []Event { e[1].Message.ID = ""; return e }, "id", "missing"},
		{"message_before_session", func(e []Event) []Event { return e[1:] }, "", "comes before its session"},
		{"unknown_role", func(e []Event) []Event { e[1].Message.Role = "robot"; return e }, "role", "unknown role"},
		{"message_without_time", func(e []Event) []Event { e[1].Message.Timestamp = time.Time{}; return e }, "timestamp", "missing"},
		{"part_before_message", func(e []Event) []Event { return []Event{e[0], e[2]} }, "", "comes before its message"},
		{"part_of_other_session", func(e []Event) []Event { e[2].Part.SessionID = "s2"; return e }, "", "comes before its message"},
		{"part_without_id", func(e []Event) []Event { e[2].Part.ID = ""; return e }, "id", "missing"},
		{"unknown_part_type", func(e []Event) []Event { e[2].Part.Type = "video"; return e }, "type", "unknown part type"},
		{"missing_provenance", func(e []Event) []Event { e[2].Part.Provenance = ""; return e }, "provenance", "must be"},
		{"negative_ordinal", func(e []Event) []Event { e[2].Part.Ordinal = -1; return e }, "ordinal", "negative"},
		{"file_without_data", func(e []Event) []Event { e[2].Part.Type = PartFile; return e }, "", "needs data"},
		{"bad_params", func(e []Event) []Event {
			e[2].Part.Type, e[2].Part.Params = PartToolCall, json.RawMessage("{nope")
			return e
		}, "", "not valid JSON"},
		{"options_not_json", func(e []Event) []Event { e[1].Message.Options = Options{"source": json.RawMessage("{oops")}; return e }, "options.source", "not valid JSON"},
		{"approval_without_id", func(e []Event) []Event { e[2].Part.Type = PartToolApprovalResponse; return e }, "", "approval_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := tc.mutate(validStream())
			var v Validator
			var err error
			for i := range events {
				if err = v.Check(&events[i]); err != nil {
					break
				}
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a ValidationError", err)
			}
			if ve.Field != tc.field || !strings.Contains(ve.Reason, tc.reason) {
				t.Fatalf("got field %q reason %q, want field %q reason containing %q", ve.Field, ve.Reason, tc.field, tc.reason)
			}
		})
	}
}

// A rejected session or message takes what depends on it with it, and nothing else.
func TestValidatorRejectsDependents(t *testing.T) {
	events := validStream()
	events[0].Session.Options = Options{"raw": json.RawMessage("{torn")}
	m2 := &Message{SessionID: "s2", ID: "m1", Role: RoleUser, Timestamp: t0, Options: Options{"raw": json.RawMessage("[1,")}}
	events = append(events,
		Event{Session: &Session{ID: "s2", SourceAgent: "pi-coding-agent", Project: "/p", CreatedAt: t0}},
		Event{Message: m2},
		Event{Part: &Part{SessionID: "s2", MessageID: "m1", ID: "p1", Type: PartText, Provenance: Conversational, Text: "x"}},
		Event{Message: &Message{SessionID: "s2", ID: "m2", Role: RoleAssistant, Timestamp: t0}},
		Event{Part: &Part{SessionID: "s2", MessageID: "m2", ID: "p1", Type: PartText, Provenance: Conversational, Text: "y"}},
	)
	want := []string{"options.raw: not valid JSON", "its session was rejected", "its message was rejected",
		"", "options.raw: not valid JSON", "its message was rejected", "", ""}
	var v Validator
	for i := range events {
		err := v.Check(&events[i])
		switch {
		case want[i] == "" && err != nil:
			t.Errorf("event %d (%s): %v", i, events[i].Key(), err)
		case want[i] != "" && (err == nil || !strings.Contains(err.Error(), want[i])):
			t.Errorf("event %d (%s): got %v, want %q", i, events[i].Key(), err, want[i])
		}
	}
}

func TestValidatorNormalises(t *testing.T) {
	events := validStream()
	events[1].Message.Timestamp = t0.In(time.FixedZone("X", 3600))
	events[1].Message.Options = Options{"pond": json.RawMessage(`{"ingest":{"host":"forged"},"restored_from":"s0"}`)}
	big := strings.Repeat("x", 100)
	events[2].Part.Text = big
	v := Validator{MaxValueBytes: 50}
	for i := range events {
		if err := v.Check(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	m := events[1].Message
	if m.Timestamp.Location() != time.UTC || m.Timestamp.Nanosecond()%1000 != 0 {
		t.Errorf("timestamp %v: want UTC at microsecond precision", m.Timestamp)
	}
	if got := string(m.Options["pond"]); got != `{"restored_from":"s0"}` {
		t.Errorf("options.pond = %s, want the forged ingest stamp removed and the rest kept", got)
	}
	p := events[2].Part
	if !strings.Contains(p.Text, "100 bytes") {
		t.Errorf("oversized text became %q, want a marker naming 100 bytes", p.Text)
	}
	if got := string(p.Options["pond"]); got != `{"truncated":{"text":100}}` {
		t.Errorf("options.pond = %s, want the truncation recorded", got)
	}
}

func TestEventJSONRoundTrip(t *testing.T) {
	events := []Event{
		{Session: &Session{ID: "s", ParentSessionID: "p", ParentMessageID: "pm", SourceAgent: "pi-coding-agent", Project: "/p", CreatedAt: t0.Truncate(time.Microsecond),
			Options: Options{"source": json.RawMessage(`{"type":"session","version":3}`)}}},
		{Message: &Message{SessionID: "s", ID: "m", Role: RoleSystem, Timestamp: t0.Truncate(time.Microsecond), Content: "be brief"}},
		{Part: &Part{SessionID: "s", MessageID: "m", ID: "f", Ordinal: 2, Type: PartFile, Provenance: Injected, MediaType: "image/png", FileName: "a.png",
			Data: &FileData{Kind: FileBytes, Bytes: []byte{0, 1, 2, 255}}}},
		{Part: &Part{SessionID: "s", MessageID: "m", ID: "c", Type: PartToolCall, Provenance: Conversational, CallID: "call_1", Name: "bash",
			Params: json.RawMessage(`{"cmd":"ls -la","n":1.50}`), ProviderExecuted: true}},
		{Part: &Part{SessionID: "s", MessageID: "m", ID: "r", Type: PartToolResult, Provenance: Conversational, CallID: "call_1", IsFailure: true,
			Result: json.RawMessage(`"exit 1"`)}},
		{Part: &Part{SessionID: "s", MessageID: "m", ID: "a", Type: PartToolApprovalResponse, Provenance: Conversational, ApprovalID: "ap", Approved: true, Reason: "ok"}},
	}
	for _, e := range events {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), `{"kind":"`+string(e.Kind())+`",`) {
			t.Errorf("encoding %s does not start with its kind", b)
		}
		var back Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("decode %s: %v", b, err)
		}
		if diff := cmp.Diff(e, back); diff != "" {
			t.Errorf("round trip of %s (-want +got):\n%s", e.Kind(), diff)
		}
	}
}

func TestEventJSONRejects(t *testing.T) {
	for _, in := range []string{
		`{"id":"s"}`,
		`{"kind":"thread","id":"s"}`,
		`{"kind":"session","id":"s","colour":"blue"}`,
		`not json`,
	} {
		var e Event
		if err := json.Unmarshal([]byte(in), &e); err == nil {
			t.Errorf("decode %s: got nil error", in)
		}
	}
}

func TestSearchText(t *testing.T) {
	parts := []Part{
		{MessageID: "m", Type: PartText, Provenance: Conversational, Text: "fix the build"},
		{MessageID: "m", Type: PartReasoning, Provenance: Conversational, Text: "thinking hard"},
		{MessageID: "m", Type: PartText, Provenance: Injected, Text: "<system-reminder>"},
		{MessageID: "m", Type: PartFile, Provenance: Conversational, FileName: "log.txt", MediaType: "text/plain"},
		{MessageID: "m", Type: PartToolCall, Provenance: Conversational, Name: "bash", Params: json.RawMessage(`{}`)},
		{MessageID: "other", Type: PartText, Provenance: Conversational, Text: "not mine"},
	}
	for _, tc := range []struct {
		role Role
		want string
	}{
		{RoleUser, "fix the build\nlog.txt text/plain"},
		{RoleAssistant, "fix the build\nlog.txt text/plain"},
		{RoleSystem, ""},
		{RoleTool, ""},
	} {
		if got := SearchText(&Message{ID: "m", Role: tc.role}, parts); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.role, got, tc.want)
		}
	}
}

func TestMessageOrder(t *testing.T) {
	a := &Message{ID: "b", Timestamp: t0}
	b := &Message{ID: "a", Timestamp: t0.Add(time.Second)}
	c := &Message{ID: "c", Timestamp: t0}
	if !a.Before(b) || b.Before(a) || !a.Before(c) || c.Before(a) {
		t.Fatal("want order by timestamp, then id")
	}
}

func TestValidatorKeepsUntrustedProvenanceApart(t *testing.T) {
	restoredFrom := json.RawMessage(`{"restored_from": {"session": "s0"}}`)
	record := json.RawMessage(`{"path": "projects/../../.bash_profile"}`)
	events := validStream()
	events[0].Session.Options = Options{"source": record, "pond": restoredFrom, "anthropic": json.RawMessage(`{"model":"m"}`)}
	events[1].Message.Options = Options{"pond": restoredFrom}
	events[2].Part.Options = Options{"source": record, "untrusted": json.RawMessage(`1`)}
	events[2].Part.Text = strings.Repeat("x", 300)
	v := Validator{MaxValueBytes: 200, Untrusted: true, AgentFamily: "api"}
	for i := range events {
		if err := v.Check(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		got  Options
		want map[string]string
	}{
		{"session", events[0].Session.Options, map[string]string{"anthropic": `{"model":"m"}`,
			"untrusted": `{"pond":{"restored_from": {"session": "s0"}},"source":{"path": "projects/../../.bash_profile"},"source_agent":"claude-code"}`}},
		{"message", events[1].Message.Options, map[string]string{"untrusted": `{"pond":{"restored_from": {"session": "s0"}}}`}},
		// Pond's own record of the truncation is written after the caller's options moved.
		{"part", events[2].Part.Options, map[string]string{"pond": `{"truncated":{"text":300}}`,
			"untrusted": `{"source":{"path": "projects/../../.bash_profile"},"untrusted":1}`}},
	} {
		got := map[string]string{}
		for k, v := range c.got {
			got[k] = string(v)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s options (-want +got):\n%s", c.name, diff)
		}
	}
	if got := events[0].Session.SourceAgent; got != "api" {
		t.Errorf("source_agent = %q, want api", got)
	}
	s := &Session{ID: "s2", SourceAgent: "api/tool", Project: "/p", CreatedAt: t0}
	if err := v.Check(&Event{Session: s}); err != nil || s.SourceAgent != "api/tool" {
		t.Errorf("source_agent in the family: got %q, %v; want it kept", s.SourceAgent, err)
	}
}

// TestValidatorRepairsUTF8: invalid UTF-8 anywhere in an event becomes U+FFFD, so the archive's
// text columns accept it; an options object keeps its bytes as written under OriginalKey, and
// Original gives them back exactly.
func TestValidatorRepairsUTF8(t *testing.T) {
	events := validStream()
	record := "{\"text\":\"caf\xe9 \xff\",\"n\":1}"
	events[1].Message.Options = Options{
		"source": json.RawMessage(`{"line":3,"record":` + record + `}`),
		"title":  json.RawMessage("\"bad \xc0\""),
		"empty":  json.RawMessage("{\"\xff\":1}"),
	}
	events[2].Part.Text = "t\xed\xa0\x80"
	events[2].Part.Name = "n\xff"
	v := Validator{}
	for i := range events {
		if err := v.Check(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	m, p := events[1].Message, events[2].Part
	for k, raw := range m.Options {
		if !utf8.Valid(raw) || !json.Valid(raw) {
			t.Errorf("options.%s = %q: want valid UTF-8 and JSON", k, raw)
		}
	}
	if got := string(m.Options["title"]); got != "\"bad \uFFFD\"" {
		t.Errorf("options.title = %q, want the invalid byte replaced", got)
	}
	orig, ok := Original(m.Options["source"])
	if !ok || string(orig) != `{"line":3,"record":`+record+`}` {
		t.Errorf("Original(options.source) = %q, %v; want the bytes as written", orig, ok)
	}
	var src struct {
		Line   int                   `json:"line"`
		Record struct{ Text string } `json:"record"`
	}
	if err := json.Unmarshal(m.Options["source"], &src); err != nil || src.Line != 3 || src.Record.Text != "caf\uFFFD \uFFFD" {
		t.Errorf("repaired options.source reads %+v, %v; want its fields with U+FFFD", src, err)
	}
	if _, ok := Original(m.Options["title"]); ok {
		t.Errorf("Original of a repaired string claims original bytes")
	}
	if p.Text != "t\uFFFD" || p.Name != "n\uFFFD" {
		t.Errorf("part text %q, name %q: want U+FFFD for the invalid bytes", p.Text, p.Name)
	}
	if _, ok := Original(json.RawMessage(`{"a":1}`)); ok {
		t.Errorf("Original of a value never repaired claims original bytes")
	}
}

// TestCheckIDAcceptsAgentsIDs: the ids agents give their sessions pass.
func TestCheckIDAcceptsAgentsIDs(t *testing.T) {
	for _, id := range []string{
		"7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b",                             // Claude Code, Codex, Gemini, pi
		"ses_3c6b1a2f0ffeTz8Yq2WbL0nJxu",                                   // OpenCode
		"rollout-2025-01-01T10-00-00-0195a0c4-9999-7888-8777-666655554444", // a Codex id from its file name
		"2026-01-01T10-00-00-000Z_0195a0c4.v2",
		"7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b/agent-a1b2c3d4e5f6a7b8c", // a Claude Code sub-agent
		strings.Repeat("a", MaxIDBytes),
	} {
		if err := CheckID(id); err != nil {
			t.Errorf("CheckID(%q) = %v, want nil", id, err)
		}
	}
}
