package view

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Tally counts rows per table.
type Tally struct {
	Sessions int `json:"sessions"`
	Messages int `json:"messages"`
	Parts    int `json:"parts"`
}

// Add adds o to t.
func (t *Tally) Add(o Tally) {
	t.Sessions += o.Sessions
	t.Messages += o.Messages
	t.Parts += o.Parts
}

// SyncReport is what one sync did (`pond sync --format json`, the sync route's report).
type SyncReport struct {
	StartedAt  time.Time       `json:"started_at"`
	FinishedAt time.Time       `json:"finished_at"`
	DryRun     bool            `json:"dry_run,omitempty"`
	Adapters   []AdapterReport `json:"adapters"`
	Inserted   Tally           `json:"inserted"`
	// Outcome is ok, partial (some adapter failed) or failed (a named adapter failed).
	Outcome string `json:"outcome"`
}

// AdapterReport is what a sync did for one adapter.
type AdapterReport struct {
	Adapter string   `json:"adapter"`
	Roots   []string `json:"roots"`
	Sources int      `json:"sources"`
	// Sources by what happened to them.
	New     int            `json:"new"`
	Updated int            `json:"updated"`
	Skipped map[string]int `json:"skipped,omitempty"`
	// Rows written and rows already stored.
	Inserted Tally `json:"inserted"`
	Matched  Tally `json:"matched"`
	Rejected Tally `json:"rejected"`
	// Malformed records (counted; the first few listed) and record types the adapter keeps
	// only as raw options.
	MalformedCount int            `json:"malformed_count"`
	Malformed      []Problem      `json:"malformed,omitempty"`
	Unknown        map[string]int `json:"unknown,omitempty"`
	Unreadable     []Problem      `json:"unreadable,omitempty"`
	// Reason is a stable token when the whole adapter failed (not_found, unreadable), with Error
	// saying what happened.
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
	// Named is set when the user asked for this adapter by name.
	Named bool `json:"named,omitempty"`
}

// SortedSkips says the skip counts in a stable order, e.g. "3 fresh, 1 empty".
func (ar *AdapterReport) SortedSkips() string {
	var keys []string
	for k := range ar.Skipped {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", ar.Skipped[k], k)
	}
	return strings.Join(parts, ", ")
}

// Problem is a malformed record or an unreadable source, with where it was.
type Problem struct {
	Path  string `json:"path"`
	Line  int    `json:"line,omitempty"`
	Error string `json:"error"`
}

// SyncProgress is where a sync is: sources done of an adapter's total. It is the payload of
// the sync_progress watch event.
type SyncProgress struct {
	Adapter string `json:"adapter"`
	Done    int    `json:"done"`
	Total   int    `json:"total"`
}

// LastSync is the record of the last finished sync (kept in the state directory, and part of
// the status).
type LastSync struct {
	FinishedAt       string  `json:"finished_at"`
	DurationSecs     float64 `json:"duration_secs"`
	SessionsInserted int     `json:"sessions_inserted"`
	MessagesInserted int     `json:"messages_inserted"`
	Outcome          string  `json:"outcome"`
	Error            string  `json:"error,omitempty"`
	// Health is each adapter's capture health, carried over from earlier syncs for the
	// adapters this one did not run.
	Health []AdapterHealth `json:"health,omitempty"`
}

// AdapterHealth is how capture of one agent is doing, for the tray and `pond status`: an agent
// update that changes its format shows here as malformed lines, unknown record types or an
// error, next to when capture last worked.
type AdapterHealth struct {
	Adapter string `json:"adapter"`
	// LastOK is when a sync last ran this adapter without an error (RFC 3339; "" never).
	LastOK string `json:"last_ok,omitempty"`
	// Malformed and Unknown count what the last sync that read changed files found in them:
	// malformed records, and record types kept only as raw options. Problems are the first
	// few malformed ones.
	Malformed int            `json:"malformed,omitempty"`
	Unknown   map[string]int `json:"unknown,omitempty"`
	Problems  []Problem      `json:"problems,omitempty"`
	// Error is the last sync's error for the whole adapter; FailingSince when that started.
	Error        string `json:"error,omitempty"`
	FailingSince string `json:"failing_since,omitempty"`
}

// Failing reports whether the adapter's last sync failed.
func (h AdapterHealth) Failing() bool { return h.Error != "" }

// ImportSummary totals an import of canonical JSONL.
type ImportSummary struct {
	Events    int      `json:"events"`
	Malformed int      `json:"malformed_lines"`
	Inserted  Tally    `json:"inserted"`
	Matched   Tally    `json:"matched"`
	Rejected  Tally    `json:"rejected"`
	Errors    []string `json:"errors,omitempty"`
}
