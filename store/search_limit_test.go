package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/session/view"
)

// TestLimitReturnsThatManySessions: the best-scoring messages of a query sit in three long
// sessions, and twelve more sessions hold one weaker match each. A limit of N sessions returns
// N of them (the first 50 messages alone name three), on both full-text engines, and says
// whether more exist.
func TestLimitReturnsThatManySessions(t *testing.T) {
	s := openTestStore(t, t.TempDir())
	t0 := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	for i := range 3 {
		var texts []string
		for range 60 {
			texts = append(texts, "flaky test flaky test: the flaky test failed again")
		}
		id := fmt.Sprintf("long-%d", i)
		upsert(t, s, chat(id, "claude-code", "/p", "", t0.Add(time.Duration(i)*time.Hour), texts...))
	}
	for i := range 12 {
		id := fmt.Sprintf("short-%02d", i)
		upsert(t, s, chat(id, "codex-cli", "/p", "", t0.Add(time.Duration(10+i)*time.Hour),
			"a long message that mentions a flaky test once among many other words about builds, caches, linkers and the weather "+strings.Repeat("filler ", 40)))
	}
	check := func(engine string) {
		t.Helper()
		for _, tc := range []struct {
			limit, want int
			more        bool
		}{{10, 10, true}, {15, 15, false}, {20, 15, false}, {2, 2, true}} {
			res, err := s.Search(context.Background(), view.SearchRequest{Query: "flaky test", Limit: tc.limit})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Sessions) != tc.want || res.HasMore != tc.more {
				t.Errorf("%s, limit %d: %d sessions, has_more %v; want %d, %v", engine, tc.limit, len(res.Sessions), res.HasMore, tc.want, tc.more)
			}
		}
	}
	check("FTS5")
	s.textIndex.routeLimit = 1
	if _, err := s.MaintainSearchIndexes(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	check("Lance")
}
