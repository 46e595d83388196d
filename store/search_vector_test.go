package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/session/view"
)

// TestSemanticSearch embeds the relevance set with the registry-packaged test model (the real
// ONNX pipeline), scores vector and hybrid search on it, then checks the vector index: built
// over a partly-null vector column, it serves the same searches and never returns a message
// without a vector, while hybrid search still finds those by their words.
func TestSemanticSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds a few hundred messages")
	}
	d := loadRelevance(t)
	s := relevanceStore(t, d, 0)
	ctx := context.Background()

	// Embeddings on, nothing embedded yet: vector search falls back to full text and says so.
	s.UseEmbedder(openEmbedder(t, ""))
	res, err := s.Search(ctx, view.SearchRequest{Query: "pgxpool", Mode: view.ModeVector})
	if err != nil || res.Mode != view.ModeFTS || len(res.Notes) == 0 || !strings.Contains(strings.Join(res.Notes, " "), "embedded yet") {
		t.Fatalf("fallback before embedding: %+v %v", res, err)
	}

	if _, err := s.Backfill(ctx, s.embedder, BackfillOptions{}); err != nil {
		t.Fatal(err)
	}
	fts := scoreRelevance(t, s, d, view.ModeFTS)
	vec := scoreRelevance(t, s, d, view.ModeVector)
	hyb := scoreRelevance(t, s, d, view.ModeHybrid)
	var lines []string
	for _, m := range []struct {
		name   string
		scores map[string]*relevanceScore
	}{{"fts", fts}, {"vector", vec}, {"hybrid", hyb}} {
		for _, kind := range []string{"exact", "paraphrase", "crosslang", "all"} {
			lines = append(lines, fmt.Sprintf("%-6s %-10s %v", m.name, kind, m.scores[kind]))
		}
	}
	t.Log("relevance with the test model (e5-small-v2 int8, English-only):\n" + strings.Join(lines, "\n"))
	rate := func(sc *relevanceScore) float64 { return float64(sc.at5) / float64(sc.n) }
	if rate(vec["paraphrase"]) <= rate(fts["paraphrase"]) {
		t.Errorf("vector search finds no more paraphrases than full text: %v vs %v", vec["paraphrase"], fts["paraphrase"])
	}
	if rate(hyb["all"]) < rate(fts["all"]) || rate(hyb["all"]) < rate(vec["all"]) {
		t.Errorf("hybrid does worse than an arm alone: hybrid %v, fts %v, vector %v", hyb["all"], fts["all"], vec["all"])
	}

	// A session stored after the backfill has no vectors: the column is partly null.
	upsert(t, s, chat("late", "codex-cli", "/home/dev/late", "", time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC),
		"zanzibar quokka migration of the billing ledger", "The ledger migration to the quokka schema is done."))
	s.vectorIndexMin = 100
	indexed, err := s.EnsureVectorIndex(ctx)
	if err != nil || !indexed {
		t.Fatalf("vector index over a partly-null column: %v %v", indexed, err)
	}
	idx, err := s.tables[TableMessages].Indexes(ctx)
	if err != nil || !slices.ContainsFunc(idx, isCurrentVectorIndex) {
		t.Fatalf("no IVF_PQ vector index after EnsureVectorIndex: %+v %v", idx, err)
	}
	withIndex := scoreRelevance(t, s, d, view.ModeVector)
	if withIndex["all"].at5 < vec["all"].at5*9/10 {
		t.Errorf("indexed vector search lost recall: %v, exact search %v", withIndex["all"], vec["all"])
	}
	res, err = s.Search(ctx, view.SearchRequest{Query: "quokka ledger migration", Mode: view.ModeVector, Limit: 200})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range res.Sessions {
		if g.SessionID == "late" {
			t.Errorf("a message without a vector came back from vector search")
		}
	}
	res, err = s.Search(ctx, view.SearchRequest{Query: "quokka ledger migration", Mode: view.ModeHybrid})
	if err != nil || len(res.Sessions) == 0 || res.Sessions[0].SessionID != "late" {
		t.Errorf("hybrid search misses the unembedded session its words match: %+v %v", res, err)
	}
	// Filters are pushed into the vector arm.
	res, err = s.Search(ctx, view.SearchRequest{Query: "database connection pool", Mode: view.ModeVector, Filters: view.SearchFilters{SourceAgent: "gemini-cli", Role: "user"}, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range res.Sessions {
		for _, h := range g.Matches {
			if g.SourceAgent != "gemini-cli" || h.Role != "user" {
				t.Errorf("filtered vector search returned %s %s %s", g.SessionID, g.SourceAgent, h.Role)
			}
		}
	}
}

// TestLanceHitsDescribedByTheMirror: the vector arm takes only each neighbour's key from Lance
// and its role, project, agent and time from the mirror, in the hits' order; a hit the mirror
// does not hold (Lance commits a write before the mirror does) is left out.
func TestLanceHitsDescribedByTheMirror(t *testing.T) {
	s := searchStore(t)
	ctx := context.Background()
	db, err := s.searchDB()
	if err != nil {
		t.Fatal(err)
	}
	hits := []candidate{
		{sessionID: "react", messageID: "m01", score: 0.9},
		{sessionID: "not-in-the-mirror", messageID: "m00", score: 0.8},
		{sessionID: "pg-sub", messageID: "m00", score: 0.7},
		{sessionID: "pg", messageID: "m00", score: 0.6},
	}
	got, err := describeHits(ctx, db, hits)
	if err != nil {
		t.Fatal(err)
	}
	want := []candidate{
		{sessionID: "react", messageID: "m01", role: "assistant", project: "/home/dev/web", agent: "codex-cli", timestamp: "2026-03-05T10:01:00.000000Z", score: 0.9},
		{sessionID: "pg-sub", messageID: "m00", role: "user", project: "/home/dev/payments", agent: "claude-code/subagent", timestamp: "2026-03-02T10:00:00.000000Z", score: 0.7},
		{sessionID: "pg", messageID: "m00", role: "user", project: "/home/dev/payments", agent: "claude-code", timestamp: "2026-03-02T10:00:00.000000Z", score: 0.6},
	}
	if !slices.Equal(got, want) {
		t.Errorf("described hits:\n got %+v\nwant %+v", got, want)
	}
	if got, err := describeHits(ctx, db, nil); err != nil || len(got) != 0 {
		t.Errorf("no hits: %v, %v", got, err)
	}
}

// TestVectorRefine pins how many full vectors a query re-ranks on: ten times k for the first
// pools, then about vectorRefineRows, and never under twice k.
func TestVectorRefine(t *testing.T) {
	for k, want := range map[int]int{1: 10, 40: 10, 50: 10, 51: 10, 200: 3, 250: 2, 800: 2, 12_800: 2} {
		if got := vectorRefine(k); got != want {
			t.Errorf("vectorRefine(%d) = %d, want %d", k, got, want)
		}
	}
}
