package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pondhq/pond/session"
)

// Test keys in the shape of real ones (none is live): each is found by a rule of gitleaks'
// default set.
var testSecrets = map[string]string{
	"aws-access-token": "AKIAQYLPMN5HHHFPZAM2",
	"github-pat":       "ghp_" + "9aB3dE6gH1jK4mN7pQ0sT2vX5yZ8cF1hJ3lN",
	"slack-bot-token":  "xoxb-" + "263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1",
}

func TestEventsRedactEverywhereConsistently(t *testing.T) {
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	aws, gh := testSecrets["aws-access-token"], testSecrets["github-pat"]
	raw := json.RawMessage(`{"record":{"text":"use ` + aws + ` and ` + gh + `"}}`)
	events := []session.Event{
		{Session: &session.Session{ID: "s", Options: session.Options{"source": raw}}},
		{Message: &session.Message{SessionID: "s", ID: "m", Options: session.Options{"source": raw}}},
		{Part: &session.Part{SessionID: "s", MessageID: "m", ID: "p0", Type: session.PartText, Text: "my key is " + aws + " ok"}},
		{Part: &session.Part{SessionID: "s", MessageID: "m", ID: "p1", Type: session.PartToolCall,
			Params: json.RawMessage(`{"command":"curl -H 'Authorization: token ` + gh + `'"}`)}},
		// The bare value, with no context a rule needs, is still replaced: it was found elsewhere.
		{Part: &session.Part{SessionID: "s", MessageID: "m", ID: "p2", Type: session.PartToolResult, Result: json.RawMessage(`"` + gh + `"`)}},
		{Part: &session.Part{SessionID: "s", MessageID: "m", ID: "p3", Type: session.PartFile,
			Data: &session.FileData{Kind: session.FileBytes, Bytes: []byte("AWS_ACCESS_KEY_ID=" + aws)}}},
	}
	counts := r.Events(events)
	b, _ := json.Marshal(events)
	for _, s := range []string{aws, gh} {
		if strings.Contains(string(b), s) {
			t.Errorf("secret %s left in %s", s, b)
		}
	}
	if counts["aws-access-token"] < 4 {
		t.Errorf("counts %v, want aws-access-token replaced 4 times or more", counts)
	}
	if !strings.Contains(events[2].Part.Text, "my key is [REDACTED:aws-access-token] ok") {
		t.Errorf("text: %q", events[2].Part.Text)
	}
	for _, e := range events {
		for _, v := range []json.RawMessage{partParams(e), partResult(e)} {
			if len(v) > 0 && !json.Valid(v) {
				t.Errorf("invalid JSON after redaction: %s", v)
			}
		}
	}
}

func partParams(e session.Event) json.RawMessage {
	if e.Part != nil {
		return e.Part.Params
	}
	return nil
}

func partResult(e session.Event) json.RawMessage {
	if e.Part != nil {
		return e.Part.Result
	}
	return nil
}

func TestStringLeavesPlainTextAlone(t *testing.T) {
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	in := "The pgx pool times out under load; raise MaxConns to 20."
	out, c := r.String(in)
	if out != in || len(c) != 0 {
		t.Errorf("got %q %v", out, c)
	}
	for rule, secret := range testSecrets {
		out, c := r.String("token: " + secret)
		if strings.Contains(out, secret) || c[rule] == 0 {
			t.Errorf("%s: got %q %v", rule, out, c)
		}
	}
}

// TestJSONIsScannedAsKeyedValues: a value a generic rule finds only by its key is still found
// when it sits in JSON (escaped, nested), and the JSON's keys and numbers alone are not text.
func TestJSONIsScannedAsKeyedValues(t *testing.T) {
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	secret := "8dyfuiRyq=vVc3RRr_edRk-fK__JItpZ"
	params := json.RawMessage(`{"env":{"input_tokens":12,"client_secret":"` + secret + `"},"args":["--quiet","line\nbreak \"quoted\""]}`)
	events := []session.Event{{Part: &session.Part{SessionID: "s", MessageID: "m", ID: "p", Type: session.PartToolCall, Params: params}}}
	counts := r.Events(events)
	if strings.Contains(string(events[0].Part.Params), secret) || len(counts) == 0 {
		t.Errorf("keyed secret not replaced: %s %v", events[0].Part.Params, counts)
	}
	if !json.Valid(events[0].Part.Params) {
		t.Errorf("invalid JSON after redaction: %s", events[0].Part.Params)
	}

	var got []string
	jsonStrings([]byte(`{"a":"x","b":{"c":"y\"z","n":3},"d":["e",{"f":"g"}],"h":true}`), func(k, v string) { got = append(got, k+"="+v) })
	if strings.Join(got, " ") != `a=x c=y"z =e f=g` {
		t.Errorf("jsonStrings: %q", got)
	}
	got = nil
	jsonStrings([]byte(`not json {"`), func(k, v string) { got = append(got, k+"="+v) })
	if len(got) != 1 || got[0] != `=not json {"` {
		t.Errorf("jsonStrings of non-JSON: %q", got)
	}
}
