package resume

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/session"
)

// TestSplitTurn: the pieces of one stored message, in the order the providers need them and in
// the order they happened. Gemini CLI showed the old order: it closed the history after the
// answer of an OpenCode message (call, result, answer) with "[The previous response was
// interrupted before it completed.]", because the answer had been put before the call.
func TestSplitTurn(t *testing.T) {
	text := func(s string) item { return item{kind: itemText, text: s} }
	call := func(id string) item { return item{kind: itemCall, callID: id} }
	result := func(id string) item { return item{kind: itemResult, callID: id} }
	show := func(ts []turn) []string {
		var out []string
		for _, t := range ts {
			var b strings.Builder
			b.WriteString(string(t.role) + " " + t.id + ":")
			for _, it := range t.items {
				switch it.kind {
				case itemText:
					b.WriteString(" text " + it.text)
				case itemCall:
					b.WriteString(" call " + it.callID)
				case itemResult:
					b.WriteString(" result " + it.callID)
				}
			}
			out = append(out, b.String())
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		role  session.Role
		items []item
		want  []string
	}{
		{"text-then-call", session.RoleAssistant, []item{text("looking"), call("c1"), result("c1")},
			[]string{"assistant m: text looking call c1", "tool m:results: result c1"}},
		{"answer-after-result", session.RoleAssistant, []item{call("c1"), result("c1"), text("3 files")},
			[]string{"assistant m: call c1", "tool m:results: result c1", "assistant m:1: text 3 files"}},
		{"two-rounds", session.RoleAssistant, []item{text("a"), call("c1"), result("c1"), text("b"), call("c2"), result("c2"), text("c")},
			[]string{"assistant m: text a call c1", "tool m:results: result c1", "assistant m:1: text b call c2",
				"tool m:results:1: result c2", "assistant m:2: text c"}},
		{"call-answered-elsewhere", session.RoleAssistant, []item{call("c1"), text("then")},
			[]string{"assistant m: text then call c1"}},
		{"user-command", session.RoleUser, []item{text("!ls"), call("c1"), result("c1")},
			[]string{"assistant m:calls: call c1", "tool m:results: result c1", "user m: text !ls"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := show(splitTurn(turn{role: tc.role, id: "m", items: tc.items}))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("got … want (-want +got):\n%s", diff)
			}
		})
	}
}
