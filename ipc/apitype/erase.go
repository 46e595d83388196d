package apitype

import "github.com/pondhq/pond/session/view"

// EraseRequest is POST /v1/erase: sessions erased for good (`pond erase`), or with DryRun only
// listed. The answer comes when the erase is done; progress goes to /v1/watch meanwhile
// (erase_progress).
type EraseRequest struct {
	Versioned
	view.EraseRequest
}

// LiftRequest is POST /v1/erase/lift: ids taken off the erase denylist (`pond erase --lift`).
type LiftRequest struct {
	Versioned
	view.LiftRequest
}

// Erase events on /v1/watch.
const (
	EventEraseStarted  = "erase_started"
	EventEraseProgress = "erase_progress"
	EventEraseFinished = "erase_finished"
)
