package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/store"
	"github.com/pondhq/pond/store/lance"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestOptimizeText: what `pond optimize` prints, with no flags (the diagnosis and a command per
// due step) and after a run, against testdata/optimize.txtar (-update rewrites it).
func TestOptimizeText(t *testing.T) {
	busy := &store.Diagnosis{KeepVersionsSecs: 600,
		Tables: []store.TableState{
			{Table: "sessions", Rows: 40, Fragments: 12, SmallFragments: 12, Versions: 30, OldVersions: 25},
			{Table: "messages", Rows: 1200, Fragments: 12, SmallFragments: 12, Versions: 34, OldVersions: 29, UnindexedRows: 35},
			{Table: "parts", Rows: 3100, Fragments: 3, SmallFragments: 3, Versions: 30, OldVersions: 25},
		},
		TextIndex:     store.IndexState{Exists: true, UnindexedRows: 35, Rows: 1200, BuildAt: 20000},
		FilterIndexes: store.IndexState{Exists: true, UnindexedRows: 35, Rows: 1200, BuildAt: 20000},
		VectorIndex:   store.IndexState{Rows: 800, BuildAt: 100000},
		Embeddings: store.Coverage{Model: "intfloat/e5-small-v2@int8",
			EmbedCounts: store.EmbedCounts{Searchable: 1180, Embedded: 800, ThisModel: 780, Pending: 380}},
		Due: []store.Due{
			{Step: store.StepEmbed, Why: "380 of 1180 searchable messages without a vector"},
			{Step: store.StepCompact, Why: "sessions: 12 small fragments; messages: 12 small fragments"},
			{Step: store.StepIndex, Why: "messages: 35 rows not in its indexes"},
			{Step: store.StepPrune, Why: "sessions: 25 old versions; messages: 29 old versions; parts: 25 old versions"},
		}}
	idle := &store.Diagnosis{KeepVersionsSecs: 3600, Tables: []store.TableState{{Table: "sessions", Rows: 40, Fragments: 1, SmallFragments: 1, Versions: 1}},
		TextIndex: store.IndexState{Rows: 1200, BuildAt: 20000}, FilterIndexes: store.IndexState{Rows: 1200, BuildAt: 20000},
		VectorIndex: store.IndexState{BuildAt: 100000},
		Embeddings:  store.Coverage{EmbedCounts: store.EmbedCounts{Searchable: 1180}}, Due: []store.Due{}}
	ran := &store.UpkeepReport{Ran: []store.Step{store.StepEmbed, store.StepCompact, store.StepPrune},
		Embed: &store.BackfillReport{Model: "intfloat/e5-small-v2@int8", Embedded: 256, Batches: 1, Remaining: 124, Elapsed: 32 * time.Second},
		Tables: []store.TableUpkeep{{Table: "messages", FragmentsBefore: 12, FragmentsAfter: 1, OptimizeResult: lance.OptimizeResult{
			Compaction: &lance.Compaction{FragmentsRemoved: 12, FragmentsAdded: 1},
			Prune:      &lance.Prune{BytesRemoved: 3 << 20, OldVersions: 29}}}},
		After:   &store.Diagnosis{KeepVersionsSecs: 3600, Due: []store.Due{{Step: store.StepEmbed, Why: "124 of 1180 searchable messages without a vector"}}},
		Elapsed: 40 * time.Second}

	var b strings.Builder
	for _, c := range []struct {
		name string
		rep  OptimizeReport
	}{
		{"pond optimize --keep-versions 10m", OptimizeReport{Diagnosis: busy}},
		{"pond optimize", OptimizeReport{Diagnosis: idle}},
		{"pond optimize --run", OptimizeReport{Diagnosis: busy, Report: ran}},
	} {
		b.WriteString("-- " + c.name + " --\n" + c.rep.text())
	}
	path := filepath.Join("testdata", "optimize.txtar")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got; -update rewrites it):\n%s", path, diff)
	}
}
