package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/lance"
	"github.com/pondhq/pond/store/sqlite"
)

// Long tool bodies and part records are kept by Lance alone: the mirror marks them, and its
// SQL surface reads them back from Lance, whole, as the views' columns.
func TestToolBodiesAreKeptInLanceAlone(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	ev := everyKind("kinds")
	upsert(t, s, ev)
	var left int
	if err := s.mirror.DB().QueryRowContext(ctx, `SELECT count(*) FROM part_rows
		WHERE variant_data_packed = x'00' OR options_packed = x'00'`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 2 { // the long tool result's body, the reasoning's long record
		t.Errorf("%d part values left to Lance, want 2", left)
	}
	reader, err := sqlite.OpenReader(s.MirrorPath(), s.MirrorArchive())
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	one := func(q string) string {
		t.Helper()
		res, err := reader.Query(ctx, q, sqlite.Options{})
		if err != nil || len(res.Rows) != 1 {
			t.Fatalf("%s: %+v, %v", q, res, err)
		}
		return fmt.Sprint(res.Rows[0]["v"])
	}
	var result, opts string
	for _, e := range ev {
		if p := e.Part; p != nil && p.MessageID == "m2" && p.ID == "p2" {
			json.Unmarshal(p.Result, &result)
		}
		if p := e.Part; p != nil && p.MessageID == "m2" && p.ID == "p0" {
			opts = string(p.Options["anthropic"])
		}
	}
	// The surface clips cells at 1,000 characters: compare lengths and ends.
	if got := one(`SELECT length(json_extract(variant_data, '$.result')) || ' ' || substr(json_extract(variant_data, '$.result'), -20) AS v
		FROM parts WHERE session_id = 'kinds' AND message_id = 'm2' AND id = 'p2'`); got != fmt.Sprint(len(result), " ", result[len(result)-20:]) {
		t.Errorf("tool result through SQL: %q", got)
	}
	if got := one(`SELECT result = ` + sqlQuote(result) + ` AS v FROM tool_calls WHERE session_id = 'kinds'`); got != "1" {
		t.Errorf("tool_calls.result is not the stored body: %s", got)
	}
	if got := one(`SELECT json_extract(options, '$.anthropic') = json(` + sqlQuote(opts) + `) AS v FROM parts WHERE session_id = 'kinds' AND message_id = 'm2' AND id = 'p0'`); got != "1" {
		t.Errorf("the reasoning's record through SQL: %s", got)
	}
}

func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// The parts table gets its session_id index with the filter indexes, and upkeep's diagnosis
// counts it among them: the mirror's reads of tool bodies go a session at a time.
func TestPartsSessionIndexBuiltWithTheFilterIndexes(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	upsert(t, s, everyKind("kinds"))
	s.textIndex.routeLimit = 1
	has := func() bool {
		t.Helper()
		ixs, err := s.tables[TableParts].Indexes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(ixs, func(ix lance.IndexInfo) bool { return ix.Name == partsSessionIndex.Name })
	}
	if d, err := s.Diagnose(ctx, 0); err != nil || d.FilterIndexes.Exists || has() {
		t.Fatalf("before maintenance: filter indexes exist %v, parts index %v, %v", d.FilterIndexes.Exists, has(), err)
	}
	if _, err := s.MaintainSearchIndexes(ctx, true); err != nil {
		t.Fatal(err)
	}
	if d, err := s.Diagnose(ctx, 0); err != nil || !d.FilterIndexes.Exists || !has() {
		t.Fatalf("after maintenance: filter indexes exist %v, parts index %v, %v", d.FilterIndexes.Exists, has(), err)
	}
	tr, err := s.ReadTranscript(ctx, "kinds")
	if err != nil || len(tr.Parts["m2"]) != 7 || len(tr.Parts["m2"][2].Result) < 300 {
		t.Fatalf("transcript through the index: %v", err)
	}
}

// A stored message whose tool result's body is left to Lance can still gain a text part: its
// search text is recomputed from what the mirror holds (the writer's connection reads no
// Lance value).
func TestMessageWithALanceBodyGainsText(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, t.TempDir())
	ev := everyKind("kinds")
	upsert(t, s, ev)
	more := []session.Event{ev[0]}
	for _, e := range ev {
		if e.Message != nil && e.Message.ID == "m2" {
			more = append(more, e)
		}
	}
	more = append(more, session.Event{Part: &session.Part{SessionID: "kinds", MessageID: "m2", ID: "p7", Ordinal: 7,
		Type: session.PartText, Provenance: session.Conversational, Text: "and the quokka fixture too"}})
	out := upsert(t, s, more)
	if out.Rejected != (view.Tally{}) || out.Inserted.Parts != 1 {
		t.Fatalf("a text part for a message with a body in Lance: %+v", out)
	}
	res, err := s.Search(ctx, view.SearchRequest{Query: "quokka"})
	if err != nil || len(res.Sessions) != 1 {
		t.Fatalf("search for the new text: %+v, %v", res, err)
	}
}
