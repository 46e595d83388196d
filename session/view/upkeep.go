package view

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// KeepVersions is how long upkeep keeps a version of a table on an object store once a newer
// one replaced it, unless told otherwise: long enough for a read another machine began on it
// to finish, short enough that the files a compaction replaced (as much again as the table)
// leave the store minutes after it. A local archive keeps none by default: the Pond processes
// that read it say so, and their versions are kept as long as they read.
const KeepVersions = 2 * time.Minute

// KeepFor resolves a keep time as upkeep's options give it: 0 is the default for where the
// tables are (KeepVersions on an object store, none on local disk), a negative one keeps no
// replaced version.
func KeepFor(keep time.Duration, remote bool) time.Duration {
	if keep == 0 && remote {
		return KeepVersions
	}
	return max(keep, 0)
}

// Step is one kind of upkeep work.
type Step string

// The steps, in the order upkeep runs them: embedding first, as it leaves fragments to compact
// and rows to index. The text index's first build runs before the compaction (store.Upkeep).
const (
	StepEmbed   Step = "embed"   // embed the messages that have no vector yet
	StepCompact Step = "compact" // merge small fragments
	StepIndex   Step = "index"   // fold new rows into the indexes; build the text and vector indexes once due
	StepPrune   Step = "prune"   // remove table versions older than the keep time
)

// Steps lists every step in the order upkeep runs them (but for the text index's first build).
var Steps = []Step{StepEmbed, StepCompact, StepIndex, StepPrune}

// ParseStep reads a step's name.
func ParseStep(s string) (Step, error) {
	for _, st := range Steps {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("unknown upkeep step %q (want embed, compact, index or prune)", s)
}

// Diagnosis is what upkeep finds to do, from measurements cheap enough to take often.
type Diagnosis struct {
	Tables      []TableState `json:"tables"`
	TextIndex   IndexState   `json:"text_index"`
	VectorIndex IndexState   `json:"vector_index"`
	// FilterIndexes are the scalar indexes of the columns search filters name: Exists when all
	// are built, built together with the text index.
	FilterIndexes IndexState `json:"filter_indexes"`
	Embeddings    Coverage   `json:"embeddings"`
	// KeepVersionsSecs is the age past which a replaced version counts as old; KeepDefault
	// says it is the default for where the tables are (see KeepFor).
	KeepVersionsSecs int64 `json:"keep_versions_secs"`
	KeepDefault      bool  `json:"keep_default"`
	// Due is the work the measurements call for, in the order upkeep runs it.
	Due []Due `json:"due"`
}

// IsDue reports whether step is due.
func (d *Diagnosis) IsDue(step Step) bool {
	return slices.ContainsFunc(d.Due, func(x Due) bool { return x.Step == step })
}

// TableState is one Lance table's layout.
type TableState struct {
	Table          string `json:"table"`
	Rows           int64  `json:"rows"`
	Bytes          int64  `json:"bytes"`
	Fragments      int    `json:"fragments"`
	SmallFragments int    `json:"small_fragments"` // under 100,000 rows
	Versions       int    `json:"versions"`        // kept on disk
	OldVersions    int    `json:"old_versions"`    // of them, replaced longer ago than the keep time (an object store's: committed)
	UnindexedRows  int64  `json:"unindexed_rows"`  // rows an index of the table does not cover yet (the most of any index)
}

// IndexState is the text, filter or vector index of the messages table, as upkeep sees it.
type IndexState struct {
	Exists        bool  `json:"exists"`
	UnindexedRows int64 `json:"unindexed_rows,omitempty"`
	// Rows is what decides when the index is built: messages for the text index, embedded
	// messages for the vector index. BuildDue says Rows reached the threshold BuildAt and the
	// index does not exist yet.
	Rows     int64 `json:"rows"`
	BuildAt  int64 `json:"build_at"`
	BuildDue bool  `json:"build_due,omitempty"`
}

// Coverage is how much of the archive has vectors.
type Coverage struct {
	// Model is the embedder's (empty: semantic search is off, and embedding is never due).
	Model string `json:"model,omitempty"`
	EmbedCounts
}

// EmbedCounts say how much of the archive has vectors.
type EmbedCounts struct {
	Searchable int64 `json:"searchable"` // messages with search text
	Embedded   int64 `json:"embedded"`   // with a vector from any model
	ThisModel  int64 `json:"this_model"` // with a vector from the model asked about
	Pending    int64 `json:"pending"`    // searchable, without a vector
}

// Due is one step upkeep should run, and why.
type Due struct {
	Step Step   `json:"step"`
	Why  string `json:"why"`
}

// UpkeepProgress is where an upkeep run is: the payload of the upkeep_progress watch event.
type UpkeepProgress struct {
	Step  Step   `json:"step"`
	Table string `json:"table,omitempty"`
	Done  int    `json:"done,omitempty"` // embedding: messages embedded so far, of Total
	Total int    `json:"total,omitempty"`
}

// UpkeepReport is what an upkeep run did.
type UpkeepReport struct {
	// Before is the diagnosis the run acted on.
	Before        *Diagnosis      `json:"-"`
	Ran           []Step          `json:"ran"`
	Embed         *BackfillReport `json:"embed,omitempty"`
	Tables        []TableUpkeep   `json:"tables,omitempty"`
	SearchIndexes string          `json:"search_indexes,omitempty"`
	VectorIndex   string          `json:"vector_index,omitempty"`
	// Deferred says why the steps that rewrite the archive were left for later: another
	// machine sharing it holds its upkeep lease.
	Deferred string `json:"deferred,omitempty"`
	// After is the diagnosis once the run finished: what is still to do.
	After *Diagnosis `json:"after,omitempty"`
	// StepTimes are the compact and index steps' durations, in the order they ran.
	StepTimes []StepTime    `json:"step_times,omitempty"`
	Elapsed   time.Duration `json:"elapsed_ns"`
}

// StepTime is how long an upkeep step took.
type StepTime struct {
	Step    Step          `json:"step"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// TableUpkeep is what a run did to one table.
type TableUpkeep struct {
	Table           string `json:"table"`
	FragmentsBefore int    `json:"fragments_before"`
	FragmentsAfter  int    `json:"fragments_after"`
	OptimizeResult
}

// OptimizeResult is what Lance's optimize did to a table.
type OptimizeResult struct {
	Compaction    *Compaction `json:"compaction,omitempty"`
	IndexesFolded bool        `json:"indexes_folded,omitempty"`
	Prune         *Prune      `json:"prune,omitempty"`
}

// Compaction is what compacting a table did.
type Compaction struct {
	FragmentsRemoved int `json:"fragments_removed"`
	FragmentsAdded   int `json:"fragments_added"`
	FilesRemoved     int `json:"files_removed"`
	FilesAdded       int `json:"files_added"`
}

// Prune is what removing old versions did.
type Prune struct {
	BytesRemoved uint64 `json:"bytes_removed"`
	OldVersions  uint64 `json:"old_versions"`
}

// BackfillReport is what embedding messages did.
type BackfillReport struct {
	Model     string        `json:"model"`
	Embedded  int           `json:"embedded"`
	Batches   int           `json:"batches"`
	Truncated int           `json:"truncated"` // texts cut at the model's max_tokens before embedding
	Remaining int64         `json:"remaining"` // still to embed (non-zero after an interruption)
	Elapsed   time.Duration `json:"elapsed_ns"`
}

// Rewrote reports whether the run replaced table data or index files (a compaction, a folded
// or built index): the versions it replaced hold as much again as what it wrote, so a prune
// should follow once they are old.
func (r *UpkeepReport) Rewrote() bool {
	if r.SearchIndexes != "" || r.VectorIndex != "" {
		return true
	}
	for _, t := range r.Tables {
		if c := t.Compaction; t.IndexesFolded || c != nil && c.FragmentsRemoved > 0 {
			return true
		}
	}
	return false
}

// Summary says in a line per step what the run did, for logs, status and the CLI.
func (r *UpkeepReport) Summary() []string {
	var out []string
	if r.Deferred != "" {
		out = append(out, "left for later: "+r.Deferred)
	}
	if e := r.Embed; e != nil {
		line := fmt.Sprintf("embedded %d messages with %s", e.Embedded, e.Model)
		if e.Embedded > 0 && e.Elapsed > 0 {
			line += fmt.Sprintf(" (%.1f/s)", float64(e.Embedded)/e.Elapsed.Seconds())
		}
		if e.Truncated > 0 {
			line += fmt.Sprintf(", %d long ones from their first tokens only", e.Truncated)
		}
		if e.Remaining > 0 {
			line += fmt.Sprintf("; %d still to embed", e.Remaining)
		}
		out = append(out, line)
	}
	var folded []string
	var versions uint64
	var freed uint64
	for _, t := range r.Tables {
		if c := t.Compaction; c != nil && c.FragmentsRemoved > 0 {
			out = append(out, fmt.Sprintf("compacted %s: %d fragments -> %d", t.Table, t.FragmentsBefore, t.FragmentsAfter))
		}
		if t.IndexesFolded {
			folded = append(folded, t.Table)
		}
		if p := t.Prune; p != nil {
			versions += p.OldVersions
			freed += p.BytesRemoved
		}
	}
	if len(folded) > 0 {
		out = append(out, "folded new rows into the indexes of "+strings.Join(folded, ", "))
	}
	for _, s := range []string{r.SearchIndexes, r.VectorIndex} {
		if s != "" {
			out = append(out, s)
		}
	}
	if versions > 0 {
		out = append(out, fmt.Sprintf("pruned %d old table versions (%.1f MB)", versions, float64(freed)/(1<<20)))
	}
	if len(out) > 0 && len(r.StepTimes) > 0 {
		var took []string
		for _, st := range r.StepTimes {
			took = append(took, fmt.Sprintf("%s %.1f s", st.Step, st.Elapsed.Seconds()))
		}
		out = append(out, "took: "+strings.Join(took, ", "))
	}
	if len(out) == 0 {
		out = append(out, "nothing needed doing")
	}
	return out
}

// Upkeep is the outcome of an upkeep run, automatic or asked for: the payload of the
// upkeep_finished watch event, and the daemon's last run in the status.
type Upkeep struct {
	Trigger      string    `json:"trigger"` // "auto" or "request"
	StartedAt    time.Time `json:"started_at"`
	DurationSecs float64   `json:"duration_secs"`
	// Did says in a line per step what the run did; Due what is still due after it.
	Did   []string `json:"did"`
	Due   []string `json:"due,omitempty"`
	Error string   `json:"error,omitempty"`
}
