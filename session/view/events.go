package view

// The payloads of the daemon's watch events (ipc/apitype names the event types). Their fields
// are in the order of their JSON names, as the events have always been written.

// SyncStarted is a sync_started event's payload.
type SyncStarted struct {
	Adapters []string `json:"adapters"`
	DryRun   bool     `json:"dry_run"`
}

// SyncFinished is a sync_finished event's payload.
type SyncFinished struct {
	DryRun   bool   `json:"dry_run"`
	Inserted Tally  `json:"inserted"`
	Outcome  string `json:"outcome"`
}

// Captured is a sessions_captured event's payload: rows a sync or an ingest added.
type Captured struct {
	Inserted Tally  `json:"inserted"`
	Source   string `json:"source"` // sync, ingest, import, or catch-up (other machines' rows of a shared archive)
}

// Failed is an error event's payload: what failed while doing what.
type Failed struct {
	During string `json:"during"`
	Error  string `json:"error"`
}

// ConsentChanged is a consent_changed event's payload.
type ConsentChanged struct {
	Capture string `json:"capture"`
	// Agent is set when the answer was one agent's (Capture is then that agent's answer).
	Agent string `json:"agent,omitempty"`
}

// AdaptersChanged is an adapters_changed event's payload.
type AdaptersChanged struct {
	Action   string   `json:"action"`
	Adapters []string `json:"adapters"`
}

// ModelChanged is a model_changed event's payload.
type ModelChanged struct {
	Action  string `json:"action"`
	Enabled bool   `json:"enabled"`
	Model   string `json:"model"`
}

// UpkeepStarted is an upkeep_started event's payload.
type UpkeepStarted struct {
	Steps   []Step `json:"steps"`
	Trigger string `json:"trigger"`
}

// Reset is a reset event's payload: why the stream could not resume where asked.
type Reset struct {
	Reason string `json:"reason"`
	Since  string `json:"since"`
}
