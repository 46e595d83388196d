package restore

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
	text := func(s string) Item { return Item{Kind: ItemText, Text: s} }
	call := func(id string) Item { return Item{Kind: ItemCall, CallID: id} }
	result := func(id string) Item { return Item{Kind: ItemResult, CallID: id} }
	show := func(ts []Turn) []string {
		var out []string
		for _, t := range ts {
			var b strings.Builder
			b.WriteString(string(t.Role) + " " + t.ID + ":")
			for _, it := range t.Items {
				switch it.Kind {
				case ItemText:
					b.WriteString(" text " + it.Text)
				case ItemCall:
					b.WriteString(" call " + it.CallID)
				case ItemResult:
					b.WriteString(" result " + it.CallID)
				}
			}
			out = append(out, b.String())
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		role  session.Role
		items []Item
		want  []string
	}{
		{"text-then-call", session.RoleAssistant, []Item{text("looking"), call("c1"), result("c1")},
			[]string{"assistant m: text looking call c1", "tool m:results: result c1"}},
		{"answer-after-result", session.RoleAssistant, []Item{call("c1"), result("c1"), text("3 files")},
			[]string{"assistant m: call c1", "tool m:results: result c1", "assistant m:1: text 3 files"}},
		{"two-rounds", session.RoleAssistant, []Item{text("a"), call("c1"), result("c1"), text("b"), call("c2"), result("c2"), text("c")},
			[]string{"assistant m: text a call c1", "tool m:results: result c1", "assistant m:1: text b call c2",
				"tool m:results:1: result c2", "assistant m:2: text c"}},
		{"call-answered-elsewhere", session.RoleAssistant, []Item{call("c1"), text("then")},
			[]string{"assistant m: text then call c1"}},
		{"user-command", session.RoleUser, []Item{text("!ls"), call("c1"), result("c1")},
			[]string{"assistant m:calls: call c1", "tool m:results: result c1", "user m: text !ls"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := show(splitTurn(Turn{Role: tc.role, ID: "m", Items: tc.items}))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("got … want (-want +got):\n%s", diff)
			}
		})
	}
}
