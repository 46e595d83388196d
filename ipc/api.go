package ipc

import (
	"context"
	"io"
	"path/filepath"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// API is what the daemon serves, one method per route. The daemon implements it over the store;
// Client implements it over the socket; the CLI uses whichever applies. Methods return an
// *apitype.Error for failures the caller can act on; any other error is internal.
//
// Three routes stream: Export and SQLExport write their answer to w as it is produced, Import
// reads its request's Events to their end, and Watch calls fn for each event until ctx ends,
// fn fails or the stream ends (then it returns nil, and the caller resumes with the last
// event's Cursor).
type API interface {
	Status(ctx context.Context) (*view.Status, error)
	Search(ctx context.Context, req *apitype.SearchRequest) (*view.SearchResult, error)
	GetSession(ctx context.Context, req *apitype.GetSessionRequest) (*view.SessionPage, error)
	GetMessage(ctx context.Context, req *apitype.GetMessageRequest) (*view.MessageDetail, error)
	SQL(ctx context.Context, req *apitype.SQLRequest) (*view.SQLResult, error)
	Ingest(ctx context.Context, req *apitype.IngestRequest) (*apitype.IngestResponse, error)
	Adapters(ctx context.Context) (*apitype.AdaptersResponse, error)
	SetAdapters(ctx context.Context, req *apitype.AdapterRequest) (*apitype.AdaptersResponse, error)
	Consent(ctx context.Context) (*apitype.Consent, error)
	SetConsent(ctx context.Context, req *apitype.Consent) (*apitype.Consent, error)
	Sync(ctx context.Context, req *apitype.SyncRequest) (*apitype.SyncResponse, error)
	RebuildMirror(ctx context.Context, req *apitype.MirrorRebuildRequest) (*apitype.MirrorRebuild, error)
	VerifyMirror(ctx context.Context, req *apitype.MirrorVerifyRequest) (*apitype.MirrorVerify, error)
	Resume(ctx context.Context, req *apitype.ResumeRequest) (*view.ResumeOutcome, error)
	Model(ctx context.Context) (*view.ModelStatus, error)
	SetModel(ctx context.Context, req *apitype.ModelRequest) (*view.ModelStatus, error)
	VerifyModel(ctx context.Context, req *apitype.ModelVerifyRequest) (*view.ModelVerify, error)
	Optimize(ctx context.Context, req *apitype.OptimizeRequest) (*apitype.OptimizeResponse, error)
	Erase(ctx context.Context, req *apitype.EraseRequest) (*view.EraseReport, error)
	Lift(ctx context.Context, req *apitype.LiftRequest) (*view.LiftReport, error)
	Privacy(ctx context.Context) (*apitype.Privacy, error)
	SetPrivacy(ctx context.Context, req *apitype.PrivacyRequest) (*apitype.Privacy, error)
	Redact(ctx context.Context, req *apitype.RedactRequest) (*view.RedactReport, error)
	Import(ctx context.Context, req *apitype.ImportRequest) (*view.ImportSummary, error)
	Export(ctx context.Context, req *apitype.ExportRequest, w io.Writer) (*apitype.ExportSummary, error)
	SQLExport(ctx context.Context, req *apitype.SQLExportRequest, w io.Writer) (*view.SQLExport, error)
	Watch(ctx context.Context, since string, fn func(apitype.Event) error) error
}

// Socket file names in the runtime directory.
const (
	APISocketName = "pond.sock"
	MCPSocketName = "mcp.sock"
)

// APISocket is the HTTP API's socket in runtimeDir.
func APISocket(runtimeDir string) string { return filepath.Join(runtimeDir, APISocketName) }

// MCPSocket is the MCP server's socket in runtimeDir.
func MCPSocket(runtimeDir string) string { return filepath.Join(runtimeDir, MCPSocketName) }
