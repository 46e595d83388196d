package redact

import (
	"encoding/json"
	"fmt"
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
	jsonStrings([]byte(`{"a":"x","b":{"c":"y\"z","n":3},"d":["e",{"f":"g"}],"h":true}`), func(k, v []byte) { got = append(got, string(k)+"="+string(v)) })
	if strings.Join(got, " ") != `a=x c=y"z =e f=g` {
		t.Errorf("jsonStrings: %q", got)
	}
	got = nil
	jsonStrings([]byte(`not json {"`), func(k, v []byte) { got = append(got, string(k)+"="+string(v)) })
	if len(got) != 1 || got[0] != `=not json {"` {
		t.Errorf("jsonStrings of non-JSON: %q", got)
	}
}

// The fields that hold the broad rule's keywords are chunked apart from the others (Events): a
// secret is found in either kind of field, whatever the batch's mix.
func TestFieldsWithAndWithoutBroadKeywords(t *testing.T) {
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	aws, gh, slack := testSecrets["aws-access-token"], testSecrets["github-pat"], testSecrets["slack-bot-token"]
	var events []session.Event
	text := func(id, s string) {
		events = append(events, session.Event{Part: &session.Part{SessionID: "s", MessageID: "m", ID: id, Type: session.PartText, Text: s}})
	}
	for i := range 300 {
		text(fmt.Sprintf("hot%d", i), fmt.Sprintf("the auth TOKEN of step %d was refreshed; the Api said fine", i))
	}
	text("cold-aws", "deploy with "+aws+" tonight")
	text("hot-gh", "my token is "+gh)
	text("cold-slack", "bot "+slack)
	for i := range 300 {
		text(fmt.Sprintf("cold%d", i), fmt.Sprintf("plain words number %d with nothing in them", i))
	}
	counts := r.Events(events)
	for _, e := range events {
		for _, secret := range []string{aws, gh, slack} {
			if strings.Contains(e.Part.Text, secret) {
				t.Errorf("%s still holds a secret: %q", e.Part.ID, e.Part.Text)
			}
		}
	}
	for _, rule := range []string{"aws-access-token", "github-pat", "slack-bot-token"} {
		if counts[rule] != 1 {
			t.Errorf("%s: %d replaced, want 1 (%v)", rule, counts[rule], counts)
		}
	}
	wakesBroad := func(s string) bool {
		_, _, w := look(r.keywords, s, nil)
		return len(w) > 0
	}
	if !wakesBroad("the AuTh header") || wakesBroad("plain words") || wakesBroad("ke") {
		t.Error("look folds case wrong or reads past the end")
	}
}

// JSON the scan cannot walk is scanned whole, after whatever strings it passed on.
func TestMalformedJSONIsScannedWhole(t *testing.T) {
	for _, raw := range []string{`{"a":"x"}}`, `{"a":"x`, `{"a":"\q` + testSecrets["github-pat"] + `"}`, `["x"`, `"x\`} {
		var got []string
		jsonStrings([]byte(raw), func(k, v []byte) { got = append(got, string(v)) })
		if len(got) == 0 || got[len(got)-1] != raw {
			t.Errorf("%s: passed %q, want the document whole last", raw, got)
		}
	}
}

// A value that is also a text of the batch is still scanned after a key that names it: the
// generic rules find such a secret only by its key.
func TestKeyedValueAlsoATextIsFound(t *testing.T) {
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	secret := "8dyfuiRyq=vVc3RRr_edRk-fK__JItpZ"
	events := []session.Event{
		{Part: &session.Part{SessionID: "s", MessageID: "m", ID: "t", Type: session.PartText, Text: secret}},
		{Part: &session.Part{SessionID: "s", MessageID: "m", ID: "c", Type: session.PartToolCall, Params: json.RawMessage(`{"client_secret":"` + secret + `"}`)}},
	}
	r.Events(events)
	if strings.Contains(events[0].Part.Text, secret) || strings.Contains(string(events[1].Part.Params), secret) {
		t.Errorf("not replaced: %q, %s", events[0].Part.Text, events[1].Part.Params)
	}
}
