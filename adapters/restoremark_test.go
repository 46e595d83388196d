package adapters

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/pondhq/pond/session"
)

// TestApplyRestoreMark: a mark links the copy to its original, unless the id it names could not
// name a stored session; then the copy keeps the mark but no parent, and still validates.
func TestApplyRestoreMark(t *testing.T) {
	for _, tc := range []struct {
		name, mark, wantParent string
	}{
		{"links", `{"session":"7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b","agent":"claude-code"}`, "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b"},
		{"hostile_id", `{"session":"x;touch${IFS}PWNED","agent":"claude-code"}`, ""},
		{"path", `{"session":"../../.bash_profile","agent":"claude-code"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := session.Session{ID: "0195a0c4-9999-7888-8777-666655554444", SourceAgent: "codex-cli", Project: "/p", CreatedAt: time.Unix(1, 0)}
			ApplyRestoreMark(&s, json.RawMessage(tc.mark))
			if s.ParentSessionID != tc.wantParent {
				t.Errorf("parent %q, want %q", s.ParentSessionID, tc.wantParent)
			}
			if len(s.Options["pond"]) == 0 {
				t.Error("the mark was not kept under options.pond")
			}
			var v session.Validator
			if err := v.Check(&session.Event{Session: &s}); err != nil {
				t.Errorf("the marked session does not validate: %v", err)
			}
		})
	}
}
