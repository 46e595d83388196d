package view

import "time"

// EraseRequest selects sessions to erase: by id, or every session matching all of the filters
// given (a project and the folders under it, an agent, created before a time). The sub-agent
// sessions of a selected session go with it.
type EraseRequest struct {
	Sessions []string  `json:"sessions,omitempty"`
	Project  string    `json:"project,omitempty"`
	Agent    string    `json:"agent,omitempty"`
	Before   time.Time `json:"before,omitzero"`
	// DryRun lists what would go and changes nothing.
	DryRun bool `json:"dry_run,omitempty"`
	// Exports also removes the exports in the data directory's exports/ folder that hold an
	// erased session (they are listed either way).
	Exports bool `json:"exports,omitempty"`
}

// ErasedSession is one session an erase removed (or, in a dry run, would remove).
type ErasedSession struct {
	ID        string    `json:"id"`
	Agent     string    `json:"agent"`
	Project   string    `json:"project"`
	CreatedAt time.Time `json:"created_at"`
	Parent    string    `json:"parent,omitempty"`
	Messages  int       `json:"messages"`
	Parts     int       `json:"parts"`
}

// EraseReport is what an erase did: the sessions removed, the rows, the rows it rewrote to take
// the erased ones' bytes off the disk, and the bytes the data directory lost.
type EraseReport struct {
	DryRun   bool            `json:"dry_run"`
	Sessions []ErasedSession `json:"sessions"`
	// NotFound are ids asked for that the archive does not hold.
	NotFound []string `json:"not_found,omitempty"`
	Removed  Tally    `json:"removed"`
	// Rewritten counts the rows of other sessions that shared a data fragment with an erased
	// one and were written again, so that the fragment could go.
	Rewritten Tally `json:"rewritten"`
	// IndexesRebuilt names the indexes built again without the erased rows.
	IndexesRebuilt []string `json:"indexes_rebuilt,omitempty"`
	// Files counts the files removed from the data directory, each overwritten first.
	Files          int   `json:"files_removed"`
	BytesBefore    int64 `json:"bytes_before"`
	BytesAfter     int64 `json:"bytes_after"`
	BytesReclaimed int64 `json:"bytes_reclaimed"`
	// Exports are files under exports/ that hold an erased session; ExportsRemoved says whether
	// they were removed (EraseRequest.Exports).
	Exports        []string `json:"exports,omitempty"`
	ExportsRemoved bool     `json:"exports_removed,omitempty"`
	// Denylisted counts the ids now refused at capture (pond erase --lift takes one off).
	Denylisted int           `json:"denylisted"`
	Elapsed    time.Duration `json:"elapsed_ns"`
}

// EraseProgress is an erase_progress event's payload: the step an erase is at (delete,
// rewrite, index, prune, mirror, exports) and the table.
type EraseProgress struct {
	Step  string `json:"step"`
	Table string `json:"table,omitempty"`
}

// LiftRequest takes ids off the erase denylist, so a later sync captures them again.
type LiftRequest struct {
	Sessions []string `json:"sessions"`
}

// LiftReport says which ids were on the denylist and are no longer.
type LiftReport struct {
	Lifted   []string `json:"lifted"`
	NotFound []string `json:"not_found,omitempty"`
}

// EraseStarted is an erase_started event's payload.
type EraseStarted struct {
	Sessions int `json:"sessions"`
}

// EraseFinished is an erase_finished event's payload.
type EraseFinished struct {
	Error          string `json:"error,omitempty"`
	Removed        Tally  `json:"removed"`
	BytesReclaimed int64  `json:"bytes_reclaimed"`
}

// Redaction is whether secrets are replaced at capture, and how many were, per rule id of the
// rule set (gitleaks').
type Redaction struct {
	Enabled bool           `json:"enabled"`
	Total   int            `json:"total"`
	Rules   map[string]int `json:"rules"`
}

// RedactReport is what `pond redact --all` did: sessions scanned, rewritten with their
// secrets replaced (their old bytes erased), and the secrets replaced per rule.
type RedactReport struct {
	Scanned        int            `json:"scanned"`
	Sessions       int            `json:"sessions"`
	Total          int            `json:"total"`
	Rules          map[string]int `json:"rules"`
	BytesReclaimed int64          `json:"bytes_reclaimed"`
}
