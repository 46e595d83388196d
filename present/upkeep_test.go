package present

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/session/view"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestOptimize: what `pond optimize` prints, with no flags (the diagnosis and a command per
// due step) and after a run, against testdata/optimize.txtar (-update rewrites it).
func TestOptimize(t *testing.T) {
	busy := &view.Diagnosis{KeepVersionsSecs: 600,
		Tables: []view.TableState{
			{Table: "sessions", Rows: 40, Fragments: 12, SmallFragments: 12, Versions: 30, OldVersions: 25},
			{Table: "messages", Rows: 1200, Fragments: 12, SmallFragments: 12, Versions: 34, OldVersions: 29, UnindexedRows: 35},
			{Table: "parts", Rows: 3100, Fragments: 3, SmallFragments: 3, Versions: 30, OldVersions: 25},
		},
		TextIndex:     view.IndexState{Exists: true, UnindexedRows: 35, Rows: 1200, BuildAt: 20000},
		FilterIndexes: view.IndexState{Exists: true, UnindexedRows: 35, Rows: 1200, BuildAt: 20000},
		VectorIndex:   view.IndexState{Rows: 800, BuildAt: 100000},
		Embeddings: view.Coverage{Model: "intfloat/e5-small-v2@int8",
			EmbedCounts: view.EmbedCounts{Searchable: 1180, Embedded: 800, ThisModel: 780, Pending: 380}},
		Due: []view.Due{
			{Step: view.StepEmbed, Why: "380 of 1180 searchable messages without a vector"},
			{Step: view.StepCompact, Why: "sessions: 12 small fragments; messages: 12 small fragments"},
			{Step: view.StepIndex, Why: "messages: 35 rows not in its indexes"},
			{Step: view.StepPrune, Why: "sessions: 25 old versions; messages: 29 old versions; parts: 25 old versions"},
		}}
	idle := &view.Diagnosis{KeepDefault: true, Tables: []view.TableState{{Table: "sessions", Rows: 40, Fragments: 1, SmallFragments: 1, Versions: 1}},
		TextIndex: view.IndexState{Rows: 1200, BuildAt: 20000}, FilterIndexes: view.IndexState{Rows: 1200, BuildAt: 20000},
		VectorIndex: view.IndexState{BuildAt: 100000},
		Embeddings:  view.Coverage{EmbedCounts: view.EmbedCounts{Searchable: 1180}}, Due: []view.Due{}}
	ran := &view.UpkeepReport{Ran: []view.Step{view.StepEmbed, view.StepCompact, view.StepPrune},
		Embed: &view.BackfillReport{Model: "intfloat/e5-small-v2@int8", Embedded: 256, Batches: 1, Remaining: 124, Elapsed: 32 * time.Second},
		Tables: []view.TableUpkeep{{Table: "messages", FragmentsBefore: 12, FragmentsAfter: 1, OptimizeResult: view.OptimizeResult{
			Compaction: &view.Compaction{FragmentsRemoved: 12, FragmentsAdded: 1},
			Prune:      &view.Prune{BytesRemoved: 3 << 20, OldVersions: 29}}}},
		After:   &view.Diagnosis{KeepDefault: true, Due: []view.Due{{Step: view.StepEmbed, Why: "124 of 1180 searchable messages without a vector"}}},
		Elapsed: 40 * time.Second}

	var b strings.Builder
	for _, c := range []struct {
		name string
		d    *view.Diagnosis
		rep  *view.UpkeepReport
	}{
		{"pond optimize --keep-versions 10m", busy, nil},
		{"pond optimize", idle, nil},
		{"pond optimize --run", busy, ran},
	} {
		b.WriteString("-- " + c.name + " --\n" + Optimize(c.d, c.rep))
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

// TestStatusHealth: pond status names an agent whose capture is failing or whose latest files
// held records the adapter could not read, and says nothing about healthy ones.
func TestStatusHealth(t *testing.T) {
	st := &view.Status{LastSync: &view.LastSync{FinishedAt: "2026-12-01T10:00:00Z", Outcome: "partial", Health: []view.AdapterHealth{
		{Adapter: "claude-code", LastOK: "2026-12-01T10:00:00Z"},
		{Adapter: "codex-cli", Error: "permission denied", FailingSince: "2026-11-30T10:00:00Z"},
		{Adapter: "pi-coding-agent", LastOK: "2026-12-01T10:00:00Z", Malformed: 3, Unknown: map[string]int{"x": 1}},
	}}}
	out := Status(st, "/data", true, false)
	for _, want := range []string{"codex-cli", "failing since 2026-11-30T10:00:00Z: permission denied", "pi-coding-agent", "3 malformed records in its latest files; 1 record type kept but not read"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "  claude-code ") {
		t.Errorf("a healthy adapter got a line:\n%s", out)
	}
}
