package apitype

import "github.com/pondhq/pond/session/view"

// OptimizeRequest is POST /v1/optimize: the archive's upkeep, as `pond optimize` asks for it.
// DryRun only diagnoses. Otherwise the Steps named run (embed, compact, index, prune) whatever
// the measurements say, or, with none named, every step that is due. The answer comes when the
// run is done, which for embedding can take hours: progress goes to /v1/watch meanwhile
// (upkeep_progress), and a client that hangs up stops the run after the current batch.
type OptimizeRequest struct {
	Versioned
	DryRun bool     `json:"dry_run,omitempty"`
	Steps  []string `json:"steps,omitempty"`
	// ForceEmbed also re-embeds the messages another model embedded (it implies the embed step).
	ForceEmbed bool `json:"force_embed,omitempty"`
	// BatchRows is how many messages are embedded and committed at once (default 256).
	BatchRows int `json:"batch_rows,omitempty"`
	// KeepVersionsSecs is the age past which prune removes a replaced table version (absent:
	// the default for where the tables are, none on local disk and 120 on an object store;
	// 0: every replaced version). A version a running read may be on is always kept.
	KeepVersionsSecs *int64 `json:"keep_versions_secs,omitempty"`
}

// OptimizeResponse is the diagnosis the run started from and, unless it was a dry run, its
// report (which ends with the diagnosis after it): the same JSON as `pond optimize --format
// json`.
type OptimizeResponse struct {
	Diagnosis *view.Diagnosis    `json:"diagnosis"`
	Report    *view.UpkeepReport `json:"report,omitempty"`
}

// Upkeep events on /v1/watch.
const (
	EventUpkeepStarted  = "upkeep_started"
	EventUpkeepProgress = "upkeep_progress"
	EventUpkeepFinished = "upkeep_finished"
)

// CodeEmbeddingsOff refuses embedding while semantic search is off (no model installed).
const CodeEmbeddingsOff = "embeddings_off"
