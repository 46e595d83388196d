package opencode

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// TestOpenCodeNoteFirst: OpenCode orders a session's messages by time, so the note must not
// be later than the first message, even when that message is stamped before the session (as
// in pi sessions whose header was written after the first prompt).
func TestOpenCodeNoteFirst(t *testing.T) {
	start := time.Date(2025, 11, 20, 23, 33, 50, 0, time.UTC)
	tr := &restore.Transcript{
		Session:  session.Session{ID: "s1", SourceAgent: "pi-coding-agent", Project: "/p", CreatedAt: start},
		Messages: []session.Message{{SessionID: "s1", ID: "m1", Role: session.RoleUser, Timestamp: start.Add(-2 * time.Second)}},
		Parts:    map[string][]session.Part{"m1": {{SessionID: "s1", MessageID: "m1", ID: "p1", Type: session.PartText, Text: "/mode"}}},
	}
	doc, _ := openCodeForeign(tr, "ses_x", "")
	var d struct {
		Messages []struct {
			Info struct {
				Time struct {
					Created int64 `json:"created"`
				} `json:"time"`
			} `json:"info"`
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Messages) != 2 {
		t.Fatalf("got %d messages, want the note and one", len(d.Messages))
	}
	note, first := d.Messages[0].Info.Time.Created, d.Messages[1].Info.Time.Created
	if note > first {
		t.Errorf("got the note at %d, after the first message at %d; want it no later", note, first)
	}
}

// TestOpenCodeLegacyImportable: OpenCode's legacy JSON tree recorded less than `opencode
// import` (1.18) requires: no session slug, an assistant's agent under "mode", user messages
// without agent or model. The native restore fills them in, as OpenCode's own migration of the
// tree does, or the import refuses the whole document ("Missing key at [slug]").
func TestOpenCodeLegacyImportable(t *testing.T) {
	src := func(file, rec string) session.Options {
		b, _ := json.Marshal(map[string]any{"file": file, "record": json.RawMessage(rec)})
		return session.Options{"source": b}
	}
	tr := &restore.Transcript{
		Session: session.Session{ID: "ses_legacy", SourceAgent: "opencode", Project: "/w",
			Options: src("session/p/ses_legacy.json", `{"id":"ses_legacy","version":"0.15.0","projectID":"p","directory":"/w","title":"t","time":{"created":1,"updated":2}}`)},
		Messages: []session.Message{
			{ID: "msg_1", Role: session.RoleUser, Options: src("message/ses_legacy/msg_1.json", `{"id":"msg_1","sessionID":"ses_legacy","role":"user","time":{"created":10}}`)},
			{ID: "msg_2", Role: session.RoleAssistant, Options: src("message/ses_legacy/msg_2.json",
				`{"id":"msg_2","sessionID":"ses_legacy","role":"assistant","time":{"created":20},"mode":"plan","providerID":"anthropic","modelID":"claude-sonnet-4"}`)},
		},
	}
	doc, _, _ := openCodeNative(tr)
	var d struct {
		Info     map[string]any `json:"info"`
		Messages []struct {
			Info map[string]any `json:"info"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	if slug, _ := d.Info["slug"].(string); slug == "" {
		t.Errorf("got session info %v, want a slug", d.Info)
	}
	if len(d.Messages) != 2 {
		t.Fatalf("got %d messages, want 2", len(d.Messages))
	}
	user, assistant := d.Messages[0].Info, d.Messages[1].Info
	if diff := cmp.Diff(map[string]any{"providerID": "anthropic", "modelID": "claude-sonnet-4"}, user["model"]); diff != "" || user["agent"] != "build" {
		t.Errorf("got user agent %v model %v; want build and the answer's model", user["agent"], user["model"])
	}
	if assistant["agent"] != "plan" {
		t.Errorf("got assistant agent %v, want plan (its mode)", assistant["agent"])
	}
}
