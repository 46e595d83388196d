// Package apitype holds the wire types of the daemon's socket API (/v1): requests, responses,
// the error body and watch events. It imports nothing of Pond's but session, so the tray and
// the installer can speak the API without linking the store.
package apitype

import (
	"encoding/json"
	"strconv"
	"time"
)

// ProtocolVersion is the API's protocol version; requests carry it as protocol_version (0 or
// absent means this version).
const ProtocolVersion = 1

// Headers every response carries.
const (
	HeaderRequestID = "X-Pond-Request-Id"
	HeaderVersion   = "X-Pond-Version"
)

// MaxBodyBytes bounds a request body.
const MaxBodyBytes = 8 << 20

// MaxIngestEvents bounds the events of one ingest request.
const MaxIngestEvents = 1000

// Error codes, stable tokens for clients. The HTTP status of each is in ipc.
const (
	CodeValidation     = "validation_failed"
	CodeVersion        = "version_unsupported"
	CodeNamespace      = "namespace_unknown"
	CodeNotFound       = "not_found"
	CodeMethod         = "method_not_allowed"
	CodeTooLarge       = "payload_too_large"
	CodeForbidden      = "forbidden"
	CodeUnauthorized   = "unauthorized"
	CodeConflict       = "conflict" // e.g. another writer holds the store; retry
	CodeRefused        = "refused"  // a SQL statement the read-only gate refuses
	CodeStorage        = "storage_unavailable"
	CodeInternal       = "internal"
	CodeDeclined       = "consent_declined"
	CodeUnknownAdapter = "unknown_adapter"
	CodeSyncRunning    = "sync_running"
	CodeNotImplemented = "not_implemented"
)

// Error is the error body's inner object: {"error": {"code", "message", "details"}}.
type Error struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// ErrorBody is what every failed request answers.
type ErrorBody struct {
	Error *Error `json:"error"`
}

// Versioned is embedded in every request body.
type Versioned struct {
	ProtocolVersion int    `json:"protocol_version,omitempty"`
	Namespace       string `json:"namespace,omitempty"` // only "local" (or empty) in v1
}

// Version returns v itself, so the server can check any request that embeds it.
func (v *Versioned) Version() *Versioned { return v }

// Status is what GET /v1/status answers: the archive's counts, the adapters, the last sync and
// the daemon itself.
type Status struct {
	ProtocolVersion int          `json:"protocol_version"`
	Version         string       `json:"version"`
	Sessions        int64        `json:"sessions"`
	Messages        int64        `json:"messages"`
	Parts           int64        `json:"parts"`
	Agents          []AgentCount `json:"agents"`
	LastSync        *LastSync    `json:"last_sync,omitempty"`
	Consent         string       `json:"consent"`
	Adapters        []Adapter    `json:"adapters"`
	Embeddings      Embeddings   `json:"embeddings"`
	Indexes         []IndexState `json:"indexes"`
	// Upkeep is the daemon's last upkeep run (absent before its first, and without a daemon).
	Upkeep *Upkeep `json:"upkeep,omitempty"`
	// Daemon is set when a daemon answered (absent when the CLI read the store itself).
	Daemon *DaemonInfo `json:"daemon,omitempty"`
}

// AgentCount is one source agent's share of the archive.
type AgentCount struct {
	Agent    string `json:"agent"`
	Sessions int64  `json:"sessions"`
	Messages int64  `json:"messages"`
}

// LastSync is the record of the last finished sync.
type LastSync struct {
	FinishedAt       string  `json:"finished_at"`
	DurationSecs     float64 `json:"duration_secs"`
	SessionsInserted int     `json:"sessions_inserted"`
	MessagesInserted int     `json:"messages_inserted"`
	Outcome          string  `json:"outcome"`
	Error            string  `json:"error,omitempty"`
}

// Embeddings is the semantic-search state: whether it is on, how many messages carry an
// embedding (of any model) and how many searchable ones do not yet.
type Embeddings struct {
	Enabled  bool   `json:"enabled"`
	Model    string `json:"model,omitempty"`
	Embedded int64  `json:"embedded"`
	Pending  int64  `json:"pending"`
}

// IndexState is one Lance index and how far it covers its table.
type IndexState struct {
	Table         string `json:"table"`
	Name          string `json:"name"`
	Kind          string `json:"kind"`
	IndexedRows   *int64 `json:"indexed_rows,omitempty"`
	UnindexedRows *int64 `json:"unindexed_rows,omitempty"`
}

// DaemonInfo describes the running daemon.
type DaemonInfo struct {
	PID       int       `json:"pid"`
	StartedAt time.Time `json:"started_at"`
	Epoch     string    `json:"epoch"` // the boot epoch of its watch events
	Syncing   bool      `json:"syncing"`
	// LastError is the last automatic sync's failure, kept until one succeeds.
	LastError string `json:"last_error,omitempty"`
	Watching  int    `json:"watching"` // directories under watch
}

// Adapter is one adapter: configured, enabled, and where its data was found.
type Adapter struct {
	Name       string   `json:"name"`
	Configured bool     `json:"configured"`
	Enabled    bool     `json:"enabled"`
	Path       string   `json:"path,omitempty"`
	Found      []string `json:"found,omitempty"` // default roots that exist here
	Restore    bool     `json:"can_restore"`
}

// AdaptersResponse answers GET and POST /v1/adapters.
type AdaptersResponse struct {
	Adapters []Adapter `json:"adapters"`
	// Changed lists the adapters a POST changed; ConfigFile is where.
	Changed    []string `json:"changed,omitempty"`
	ConfigFile string   `json:"config_file,omitempty"`
}

// AdapterRequest changes adapters (POST /v1/adapters): Action "enable" or "disable" one Name
// (enable optionally with Path), or "discover" every adapter whose data exists and that is not
// configured yet.
type AdapterRequest struct {
	Versioned
	Action string `json:"action"`
	Name   string `json:"name,omitempty"`
	Path   string `json:"path,omitempty"`
}

// Consent is the capture consent (GET /v1/consent answers it, POST sets it).
type Consent struct {
	Versioned
	Capture    string `json:"capture"` // granted, declined or not_asked
	ConfigFile string `json:"config_file,omitempty"`
}

// SQLRequest is POST /v1/x/sql: one read-only statement over the SQLite mirror.
type SQLRequest struct {
	Versioned
	Query          string `json:"query"`
	SQL            string `json:"sql,omitempty"` // alias of query
	Limit          int    `json:"limit,omitempty"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty"`
}

// SQLResponse is a query's bounded answer.
type SQLResponse struct {
	Columns   []string         `json:"columns"`
	Rows      []map[string]any `json:"rows"`
	RowCount  int              `json:"row_count"`
	Truncated bool             `json:"truncated"`
	ElapsedMs int64            `json:"elapsed_ms"`
	Clipped   int              `json:"clipped_cells,omitempty"`
}

// IngestRequest is POST /v1/ingest: canonical events (session, message, part, each with its
// "kind"), at most MaxIngestEvents. Each event is decoded on its own, so one malformed event
// is one failed row.
type IngestRequest struct {
	Versioned
	Events []json.RawMessage `json:"events"`
}

// IngestResult is one event's outcome.
type IngestResult struct {
	Index  int             `json:"index"`
	Kind   string          `json:"kind,omitempty"`
	PK     json.RawMessage `json:"pk,omitempty"`
	Status string          `json:"status"` // inserted, matched or error
	Error  string          `json:"error,omitempty"`
}

// IngestResponse has an outcome per event; per-row errors still answer 200.
type IngestResponse struct {
	Accepted int            `json:"accepted"`
	Rejected int            `json:"rejected"`
	Results  []IngestResult `json:"results"`
}

// SyncRequest is POST /v1/sync: capture now, like `pond sync`.
type SyncRequest struct {
	Versioned
	Adapter string `json:"adapter,omitempty"`
	Path    string `json:"path,omitempty"`
	DryRun  bool   `json:"dry_run,omitempty"`
	Verify  bool   `json:"verify,omitempty"`
	// NoWait answers 409 sync_running at once when a sync is under way, instead of waiting.
	NoWait bool `json:"no_wait,omitempty"`
}

// SyncResponse is what a sync did: the report (the same JSON as `pond sync --format json`)
// and remarks for the user (e.g. the adapters a first sync enabled).
type SyncResponse struct {
	Report  json.RawMessage `json:"report"`
	Remarks []string        `json:"remarks,omitempty"`
}

// Event is one line of GET /v1/watch. IDs rise by one within an epoch (one daemon run); a
// client resumes with ?since=<epoch>:<id>, and gets a "reset" event when that is no longer
// possible (another epoch, or ids the daemon no longer holds).
type Event struct {
	Epoch string          `json:"epoch"`
	ID    uint64          `json:"id"`
	Type  string          `json:"type"`
	Time  time.Time       `json:"time"`
	Data  json.RawMessage `json:"data,omitempty"`
}

// Cursor is where a watch client resumes: "<epoch>:<id>".
func (e Event) Cursor() string { return e.Epoch + ":" + strconv.FormatUint(e.ID, 10) }

// Event types.
const (
	EventHello        = "hello" // first line of every stream: the current epoch and last id
	EventReset        = "reset" // since could not be honoured; re-read state
	EventSyncStarted  = "sync_started"
	EventSyncFinished = "sync_finished"
	EventCaptured     = "sessions_captured"
	EventError        = "error"
	EventConsent      = "consent_changed"
	EventAdapters     = "adapters_changed"
)

// MirrorRebuildRequest asks POST /v1/mirror/rebuild to recreate the mirror.
type MirrorRebuildRequest struct {
	Versioned
}

// MirrorRebuild is what POST /v1/mirror/rebuild recreated from the Lance tables.
type MirrorRebuild struct {
	Sessions int64 `json:"sessions"`
	Messages int64 `json:"messages"`
	Parts    int64 `json:"parts"`
}
