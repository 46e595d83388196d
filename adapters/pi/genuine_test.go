package pi

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// TestGenuine reads pi 1.x's own output (scripts/fixtures.sh, testdata/genuine/versions.tsv): a
// turn with a bash call, a context_edit that replaces the tool result's content and one that
// omits the answer from the model's context, a usage entry, and a turn resumed from the file.
func TestGenuine(t *testing.T) {
	c := adaptertest.CheckGenuine(t, New())
	sessions := c.Sessions()
	if len(sessions) != 1 {
		t.Fatalf("%d sessions, want 1", len(sessions))
	}
	var s session.Session
	for _, v := range sessions {
		s = v
	}
	// pi 1.x names sessions by UUIDv7.
	if len(s.ID) != 36 || s.ID[14] != '7' {
		t.Errorf("session id %q is no UUIDv7", s.ID)
	}
	if s.Project != "/tmp/pond-fixtures/project" {
		t.Errorf("project %q", s.Project)
	}

	msgs := c.Messages()
	byID := map[string]session.Message{}
	for _, m := range msgs {
		byID[m.ID] = m
	}
	var edits []string
	usage := 0
	for _, m := range msgs {
		src := restore.Source(m.Options["source"])
		var rec struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(src["record"], &rec)
		switch rec.Type {
		case "context_edit":
			if m.Role != session.RoleSystem {
				t.Errorf("context_edit %s has role %s, want system", m.ID, m.Role)
			}
			target, ok := byID[src.Str("target_id")]
			if !ok {
				t.Errorf("context_edit %s: target %q is no message of the session", m.ID, src.Str("target_id"))
				continue
			}
			edits = append(edits, src.Str("context_edit")+" "+string(target.Role))
		case "usage":
			usage++
			if m.Role != session.RoleSystem || src.Str("usage_kind") != "cache_warm" || len(c.PartsOf(s.ID, m.ID)) > 0 {
				t.Errorf("usage entry %s: role %s, kind %q, want a system message without parts of kind cache_warm", m.ID, m.Role, src.Str("usage_kind"))
			}
		}
	}
	slices.Sort(edits)
	if want := []string{"omitted assistant", "replaced tool"}; !slices.Equal(edits, want) {
		t.Errorf("context edits %v, want %v", edits, want)
	}
	if usage != 1 {
		t.Errorf("%d usage entries, want 1", usage)
	}
	var calls, results int
	for _, p := range c.Parts() {
		switch p.Type {
		case session.PartToolCall:
			calls++
		case session.PartToolResult:
			results++
		}
	}
	if calls != 1 || results != 1 {
		t.Errorf("%d tool calls and %d results, want 1 and 1", calls, results)
	}
}
