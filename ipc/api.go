package ipc

import (
	"context"
	"path/filepath"

	"github.com/pondhq/pond/ipc/apitype"
)

// API is what the daemon serves, one method per route. The daemon implements it over the store;
// Client implements it over the socket; the CLI uses whichever applies. Methods return an
// *apitype.Error for failures the caller can act on; any other error is internal.
type API interface {
	Status(ctx context.Context) (*apitype.Status, error)
	Search(ctx context.Context, req *apitype.SearchRequest) (*apitype.SearchResult, error)
	GetSession(ctx context.Context, req *apitype.GetSessionRequest) (*apitype.SessionPage, error)
	GetMessage(ctx context.Context, req *apitype.GetMessageRequest) (*apitype.MessageDetail, error)
	SQL(ctx context.Context, req *apitype.SQLRequest) (*apitype.SQLResponse, error)
	Ingest(ctx context.Context, req *apitype.IngestRequest) (*apitype.IngestResponse, error)
	Adapters(ctx context.Context) (*apitype.AdaptersResponse, error)
	SetAdapters(ctx context.Context, req *apitype.AdapterRequest) (*apitype.AdaptersResponse, error)
	Consent(ctx context.Context) (*apitype.Consent, error)
	SetConsent(ctx context.Context, req *apitype.Consent) (*apitype.Consent, error)
	Sync(ctx context.Context, req *apitype.SyncRequest) (*apitype.SyncResponse, error)
	RebuildMirror(ctx context.Context, req *apitype.MirrorRebuildRequest) (*apitype.MirrorRebuild, error)
	Resume(ctx context.Context, req *apitype.ResumeRequest) (*apitype.ResumeOutcome, error)
	Model(ctx context.Context) (*apitype.ModelStatus, error)
	SetModel(ctx context.Context, req *apitype.ModelRequest) (*apitype.ModelStatus, error)
	VerifyModel(ctx context.Context, req *apitype.ModelVerifyRequest) (*apitype.ModelVerify, error)
	Optimize(ctx context.Context, req *apitype.OptimizeRequest) (*apitype.OptimizeResponse, error)
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
