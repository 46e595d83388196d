// Package apitype holds the wire types of the daemon's socket API (/v1): requests, responses,
// the error body and watch events. It imports nothing of Pond's but session, so the tray and
// the installer can speak the API without linking the store. What the daemon answers is the read
// model of session/view, carried as it is; the types here are the requests, the envelopes and
// what only the wire has.
package apitype

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/pondhq/pond/session/view"
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
	CodeBusy           = "busy" // the daemon serves as many clients as it takes; retry
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

// AdaptersResponse answers GET and POST /v1/adapters.
type AdaptersResponse struct {
	Adapters []view.Adapter `json:"adapters"`
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

// Consent is the capture consent (GET /v1/consent answers it, POST sets it). A POST with Agent
// answers for that agent only (what a plugin sends); it becomes the global answer too only
// while the global one is not_asked. GET answers the global Capture and every agent's own.
type Consent struct {
	Versioned
	Capture    string            `json:"capture"` // granted, declined or not_asked
	Agent      string            `json:"agent,omitempty"`
	Agents     map[string]string `json:"agents,omitempty"`
	ConfigFile string            `json:"config_file,omitempty"`
}

// SQLRequest is POST /v1/x/sql: one read-only statement over the SQLite mirror.
type SQLRequest struct {
	Versioned
	Query          string `json:"query"`
	SQL            string `json:"sql,omitempty"` // alias of query
	Limit          int    `json:"limit,omitempty"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty"`
}

// SQLExportRequest is POST /v1/x/sql/export: one read-only statement's every row, written in
// Format (ndjson, csv or parquet) as the answer's body, at most 100 MiB; the trailer
// X-Pond-Summary holds the view.SQLExport.
type SQLExportRequest struct {
	Versioned
	Query          string `json:"query"`
	Format         string `json:"format"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty"`
}

// ExportRequest is POST /v1/export: the archive (or the Sessions named) as canonical JSONL, the
// answer's body; the trailer X-Pond-Summary holds the ExportSummary.
type ExportRequest struct {
	Versioned
	Sessions []string `json:"sessions,omitempty"`
}

// ExportSummary is what an export wrote.
type ExportSummary struct {
	Sessions int `json:"sessions"`
}

// ImportRequest is POST /v1/import: canonical JSONL (as an export writes it) read to its end,
// sent as the request's body. It answers a view.ImportSummary.
type ImportRequest struct {
	Events io.Reader `json:"-"`
}

// HeaderSummary is the trailer of a streamed answer: the JSON of its summary, or of an
// ErrorBody when the stream broke off.
const HeaderSummary = "X-Pond-Summary"

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
	// Automatic is capture nobody typed (`pond serve --with-sync`, a plugin): it reads only
	// the agents whose capture was granted.
	Automatic bool `json:"automatic,omitempty"`
}

// SyncResponse is what a sync did: the report (the same JSON as `pond sync --format json`)
// and remarks for the user (e.g. the adapters a first sync enabled).
type SyncResponse struct {
	Report  *view.SyncReport `json:"report"`
	Remarks []string         `json:"remarks,omitempty"`
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
	EventSyncProgress = "sync_progress" // live only: never replayed after a reconnect
	EventSyncFinished = "sync_finished"
	EventCaptured     = "sessions_captured"
	EventError        = "error"
	EventConsent      = "consent_changed"
	EventAdapters     = "adapters_changed"
)

// Payload decodes the event's data into the type its event type carries (nil for hello, and
// for a type this client does not know).
func (e Event) Payload() (any, error) {
	var p any
	switch e.Type {
	case EventReset:
		p = new(view.Reset)
	case EventSyncStarted:
		p = new(view.SyncStarted)
	case EventSyncProgress:
		p = new(view.SyncProgress)
	case EventSyncFinished:
		p = new(view.SyncFinished)
	case EventCaptured:
		p = new(view.Captured)
	case EventError:
		p = new(view.Failed)
	case EventConsent:
		p = new(view.ConsentChanged)
	case EventAdapters:
		p = new(view.AdaptersChanged)
	case EventModel:
		p = new(view.ModelChanged)
	case EventUpkeepStarted:
		p = new(view.UpkeepStarted)
	case EventUpkeepProgress:
		p = new(view.UpkeepProgress)
	case EventUpkeepFinished:
		p = new(view.Upkeep)
	case EventEraseStarted:
		p = new(view.EraseStarted)
	case EventEraseProgress:
		p = new(view.EraseProgress)
	case EventEraseFinished:
		p = new(view.EraseFinished)
	default:
		return nil, nil
	}
	if err := json.Unmarshal(e.Data, p); err != nil {
		return nil, fmt.Errorf("apitype: %s event: %w", e.Type, err)
	}
	return p, nil
}

// MirrorVerifyRequest is POST /v1/mirror/verify: compare the mirror with the Lance tables, key
// by key (`pond doctor --verify`).
type MirrorVerifyRequest struct {
	Versioned
}

// MirrorVerify is how each table's mirror differs from Lance.
type MirrorVerify struct {
	Tables []view.Drift `json:"tables"`
}

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
