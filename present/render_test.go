package present

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pondhq/pond/session/view"
)

func TestSearchStaysWithinBudget(t *testing.T) {
	res := &view.SearchResult{Mode: view.ModeFTS, SortBy: view.SortRelevance, MatchedTotal: 400}
	for i := 0; i < view.MaxSearchLimit; i++ {
		g := view.SessionHits{SessionID: fmt.Sprintf("session-%03d", i), Project: "/home/dev/a/rather/long/project/path", SourceAgent: "claude-code"}
		for j := 0; j < 2; j++ {
			g.Matches = append(g.Matches, view.Hit{MessageID: fmt.Sprint(j), Role: "user", Text: strings.Repeat("words and more words ", 30)})
		}
		res.Sessions = append(res.Sessions, g)
	}
	for _, n := range []int{1, 5, 200} {
		r := *res
		r.Sessions = res.Sessions[:n]
		out := Search(&r, SearchTextBudget)
		if len(out) > SearchTextBudget {
			t.Errorf("%d sessions rendered in %d characters", n, len(out))
		}
		if !strings.Contains(out, "session-000") || (n == 200 && !strings.Contains(out, "more sessions past")) {
			t.Errorf("%d sessions: %s", n, out)
		}
	}
}
