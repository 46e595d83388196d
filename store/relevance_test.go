package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/sessiongen"
	"github.com/pondhq/pond/session/view"
)

// The relevance harness scores search against the frozen set in testdata/relevance.json (its
// rules are checked by relevance_set_test.go): the set's sessions are stored among generated
// noise sessions of every agent, each query runs with limit 5, and a query succeeds at k when
// its expected session is among the first k sessions.

type relevanceData struct {
	Sessions []struct {
		ID, Agent, Project string
		CreatedAt          time.Time `json:"created_at"`
		Messages           []struct{ Role, Text string }
	}
	Queries []struct {
		ID, Query, Kind, Lang, Expect string
	}
}

func loadRelevance(t testing.TB) relevanceData {
	t.Helper()
	b, err := os.ReadFile("testdata/relevance.json")
	if err != nil {
		t.Fatal(err)
	}
	var d relevanceData
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// relevanceStore stores the set's sessions and noise sessions generated for every agent.
func relevanceStore(t testing.TB, d relevanceData, noiseSessions int) *Store {
	t.Helper()
	s := openTestStore(t, t.TempDir())
	var batch []session.Event
	for _, rs := range d.Sessions {
		var texts []string
		for _, m := range rs.Messages {
			texts = append(texts, m.Text)
		}
		ev := chat(rs.ID, rs.Agent, rs.Project, "", rs.CreatedAt, texts...)
		for _, e := range ev {
			if e.Message != nil && e.Message.ID != "" {
				i := int(e.Message.ID[1]-'0')*10 + int(e.Message.ID[2]-'0')
				e.Message.Role = session.Role(rs.Messages[i].Role)
			}
		}
		batch = append(batch, ev...)
	}
	cfg := sessiongen.Default()
	cfg.Sessions, cfg.MessagesPerSess = noiseSessions, 20
	g := sessiongen.New(cfg)
	for ev := g.Next(); ev != nil; ev = g.Next() {
		batch = append(batch, ev...)
	}
	if _, err := s.Upsert(context.Background(), batch, Stamp{Adapter: "relevance"}); err != nil {
		t.Fatal(err)
	}
	return s
}

// relevanceScore is Success@1 and Success@5 for one mode and query kind.
type relevanceScore struct {
	n, at1, at5 int
	misses      []string
}

func (r relevanceScore) String() string {
	return fmt.Sprintf("S@1 %.2f  S@5 %.2f  (%d queries)", float64(r.at1)/float64(r.n), float64(r.at5)/float64(r.n), r.n)
}

func scoreRelevance(t testing.TB, s *Store, d relevanceData, mode string) map[string]*relevanceScore {
	t.Helper()
	scores := map[string]*relevanceScore{}
	for _, q := range d.Queries {
		res, err := s.Search(context.Background(), view.SearchRequest{Query: q.Query, Mode: mode, Limit: 5})
		if err != nil {
			t.Fatalf("%s %q: %v", q.ID, q.Query, err)
		}
		for _, kind := range []string{q.Kind, "all"} {
			sc := scores[kind]
			if sc == nil {
				sc = &relevanceScore{}
				scores[kind] = sc
			}
			sc.n++
			rank := slices.IndexFunc(res.Sessions, func(g view.SessionHits) bool { return g.SessionID == q.Expect })
			switch {
			case rank == 0:
				sc.at1++
				sc.at5++
			case rank > 0:
				sc.at5++
			}
			if rank != 0 && kind != "all" {
				sc.misses = append(sc.misses, fmt.Sprintf("%s(%d)", q.ID, rank+1))
			}
		}
	}
	return scores
}

// TestRelevanceFullText scores full-text search on the set. Exact queries must mostly succeed;
// paraphrases and other-language queries are what the vector arm is for, so they are reported,
// not required.
func TestRelevanceFullText(t *testing.T) {
	d := loadRelevance(t)
	s := relevanceStore(t, d, 100)
	scores := scoreRelevance(t, s, d, view.ModeFTS)
	var lines []string
	for _, kind := range []string{"exact", "paraphrase", "crosslang", "all"} {
		lines = append(lines, fmt.Sprintf("fts %-10s %v misses %s", kind, scores[kind], strings.Join(scores[kind].misses, " ")))
	}
	t.Log("\n" + strings.Join(lines, "\n"))
	if e := scores["exact"]; float64(e.at5)/float64(e.n) < 0.9 || float64(e.at1)/float64(e.n) < 0.75 {
		t.Errorf("full text finds too few exact queries: %v", e)
	}
}
