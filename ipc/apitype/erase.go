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

// PrivacyRequest is POST /v1/privacy: add a project glob to the ones never captured (Exclude),
// take one off (Include), or turn secret redaction at capture on or off (Redact).
type PrivacyRequest struct {
	Versioned
	Exclude string `json:"exclude,omitempty"`
	Include string `json:"include,omitempty"`
	Redact  *bool  `json:"redact,omitempty"`
}

// Privacy answers GET and POST /v1/privacy: the excluded project globs and redaction. After a
// glob was added, Stored lists what the archive already holds under it (a dry run of `pond
// erase --project GLOB`), for the caller to offer erasing.
type Privacy struct {
	ExcludeProjects []string          `json:"exclude_projects"`
	Redaction       view.Redaction    `json:"redaction"`
	Stored          *view.EraseReport `json:"stored,omitempty"`
}

// RedactRequest is POST /v1/redact: redaction applied to what is already stored (`pond redact
// --all`), the old bytes erased.
type RedactRequest struct {
	Versioned
	All bool `json:"all"`
}
