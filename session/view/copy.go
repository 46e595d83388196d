package view

import "time"

// CopyProgress is how far pond copy has come: its phase, and in the copy phase the source
// sessions that needed rows, done of total, and the messages inserted so far.
type CopyProgress struct {
	Phase    string `json:"phase"` // "plan", "copy", "vectors", "upkeep", "verify"
	Done     int    `json:"done"`
	Total    int    `json:"total"`
	Messages int    `json:"messages"`
}

// CopyReport is what pond copy did.
type CopyReport struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Sessions of the source: absent at the destination (appended whole), present but missing
	// rows (grown), present with every row (unchanged).
	Appended  int `json:"sessions_appended"`
	Grown     int `json:"sessions_grown"`
	Unchanged int `json:"sessions_unchanged"`
	// Inserted are the rows written; Erased the rows left out because the destination erased
	// their session (its erase denylist); Rejected the rows the destination refused.
	Inserted Tally    `json:"inserted"`
	Erased   Tally    `json:"erased"`
	Rejected Tally    `json:"rejected"`
	Errors   []string `json:"errors,omitempty"`
	// Vectors are the copied messages' embeddings taken along (the rest the destination's
	// backfill embeds).
	Vectors int `json:"vectors"`
	// ErasedAtSource counts the source's sessions on its erase denylist, never copied (an
	// unfinished erase may have left rows of them). ErasuresCarried counts the source's
	// erasures put on the destination's denylist; ErasedHeld lists the sessions erased at the
	// source that the destination holds (left there: `pond erase` them there to follow).
	ErasedAtSource  int      `json:"erased_at_source,omitempty"`
	ErasuresCarried int      `json:"erasures_carried"`
	ErasedHeld      []string `json:"erased_held,omitempty"`
	// Upkeep names the upkeep steps run at the destination afterwards (indexes, compaction,
	// pruning).
	Upkeep  []Step        `json:"upkeep"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Verification is the key-by-key check run after the copy (or alone: --verify-only).
	Verification *CopyVerification `json:"verification,omitempty"`
}

// CopyVerification is the key-by-key check of a copy: every row of the source present exactly
// once at the destination, read from both sides' Lance tables (the archive's truth, where a
// duplicated row would be), not their mirrors.
type CopyVerification struct {
	OK     bool         `json:"ok"`
	Tables []TableCheck `json:"tables"`
}

// TableCheck is one table's verification.
type TableCheck struct {
	Table       string `json:"table"`
	Source      int    `json:"source_rows"`
	Destination int    `json:"destination_rows"`
	// Missing counts source keys absent at the destination; Duplicates the destination's keys
	// stored more than once (any of them, copied or not); Erased the source keys whose session
	// the destination erased (its erase denylist), absent on purpose.
	Missing    int `json:"missing"`
	Duplicates int `json:"duplicates"`
	Erased     int `json:"erased"`
	// MissingKeys and DuplicateKeys name a few of them (session id, message id, part id,
	// joined by "/").
	MissingKeys   []string `json:"missing_keys,omitempty"`
	DuplicateKeys []string `json:"duplicate_keys,omitempty"`
}
