package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pondhq/pond/daemon/capture"
	"github.com/pondhq/pond/daemon/mcpserver"
	"github.com/pondhq/pond/internal/otheruser"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
)

// served is a real Service over a real store, served on real Unix sockets.
type served struct {
	dirs   paths.Dirs
	svc    *Service
	client *ipc.Client
	api    string // API socket
	mcp    string // MCP socket
}

// serve starts the API and MCP servers for a fresh archive in a temporary home holding the
// Claude Code fixtures.
func serve(t testing.TB, opts ipc.ListenOptions) *served {
	t.Helper()
	home := t.TempDir()
	copyTree(t, "../adapters/claudecode/testdata/projects", filepath.Join(home, ".claude", "projects"))
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	dirs := paths.Dirs{
		ConfigFile: paths.Path{Path: filepath.Join(home, "config.toml")},
		Data:       paths.Path{Path: filepath.Join(home, "data")},
		State:      paths.Path{Path: filepath.Join(home, "state")},
		Runtime:    paths.Path{Path: filepath.Join(home, "run")},
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, err := store.Open(ctx, store.Options{DataDir: dirs.Data.Path, StateDir: dirs.State.Path, Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	hub := ipc.NewHub(16)
	svc := &Service{Dirs: dirs, Store: st, Env: capture.Env(), Version: "test", Hub: hub}
	s := &served{dirs: dirs, svc: svc, api: ipc.APISocket(dirs.Runtime.Path), mcp: ipc.MCPSocket(dirs.Runtime.Path)}
	apiLn, err := ipc.Listen(s.api, opts)
	if err != nil {
		t.Fatal(err)
	}
	mcpLn, err := ipc.Listen(s.mcp, opts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); (&ipc.Server{API: svc, Hub: hub, Version: "test"}).Serve(ctx, apiLn) }()
	go func() { defer wg.Done(); mcpserver.ServeListener(ctx, mcpLn, mcpserver.New(svc, "test", nil), nil) }()
	s.client = ipc.NewClient(s.api)
	t.Cleanup(func() {
		s.client.Close()
		cancel()
		wg.Wait()
		svc.Close()
		st.Close()
	})
	return s
}

func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// raw sends one request and returns the status, the decoded error code (if any) and headers.
func (s *served) raw(t *testing.T, method, path string, body io.Reader) (int, string, http.Header) {
	t.Helper()
	resp, err := s.client.Do(context.Background(), method, path, body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var eb apitype.ErrorBody
	b, _ := io.ReadAll(resp.Body)
	json.Unmarshal(b, &eb)
	code := ""
	if eb.Error != nil {
		code = eb.Error.Code
		if eb.Error.Message == "" {
			t.Errorf("%s %s: error without a message: %s", method, path, b)
		}
	}
	return resp.StatusCode, code, resp.Header
}

func TestAPIRejectsBadRequests(t *testing.T) {
	s := serve(t, ipc.ListenOptions{})
	big := bytes.Repeat([]byte("x"), apitype.MaxBodyBytes+10)
	tests := []struct {
		name, method, path string
		body               io.Reader
		status             int
		code               string
	}{
		{"ok", "GET", "/v1/status", nil, 200, ""},
		{"malformed_json", "POST", "/v1/x/sql", strings.NewReader(`{"query": `), 400, apitype.CodeValidation},
		{"not_an_object", "POST", "/v1/x/sql", strings.NewReader(`[1,2]`), 400, apitype.CodeValidation},
		{"two_values", "POST", "/v1/x/sql", strings.NewReader(`{"query":"select 1"} {}`), 400, apitype.CodeValidation},
		{"empty_body", "POST", "/v1/consent", nil, 400, apitype.CodeValidation},
		{"unknown_field", "POST", "/v1/x/sql", strings.NewReader(`{"qeury":"select 1"}`), 400, apitype.CodeValidation},
		{"oversized", "POST", "/v1/ingest", io.MultiReader(strings.NewReader(`{"events":["`), bytes.NewReader(big), strings.NewReader(`"]}`)), 413, apitype.CodeTooLarge},
		{"unknown_route", "GET", "/v1/nope", nil, 404, apitype.CodeNotFound},
		{"outside_v1", "GET", "/", nil, 404, apitype.CodeNotFound},
		{"wrong_method", "DELETE", "/v1/status", nil, 405, apitype.CodeMethod},
		{"get_on_post_route", "GET", "/v1/sync", nil, 405, apitype.CodeMethod},
		{"future_protocol", "POST", "/v1/x/sql", strings.NewReader(`{"protocol_version":2,"query":"select 1"}`), 400, apitype.CodeVersion},
		{"unknown_namespace", "POST", "/v1/x/sql", strings.NewReader(`{"namespace":"team","query":"select 1"}`), 400, apitype.CodeNamespace},
		{"refused_sql", "POST", "/v1/sql", strings.NewReader(`{"sql":"DELETE FROM sessions"}`), 400, apitype.CodeRefused},
		{"bad_sql", "POST", "/v1/x/sql", strings.NewReader(`{"query":"SELECT nope FROM nowhere"}`), 400, apitype.CodeValidation},
		{"bad_consent", "POST", "/v1/consent", strings.NewReader(`{"capture":"maybe"}`), 400, apitype.CodeValidation},
		{"unknown_adapter", "POST", "/v1/adapters", strings.NewReader(`{"action":"enable","name":"vim"}`), 400, apitype.CodeUnknownAdapter},
		{"relative_sync_path", "POST", "/v1/sync", strings.NewReader(`{"adapter":"claude-code","path":"rel"}`), 400, apitype.CodeValidation},
		{"too_many_events", "POST", "/v1/ingest", strings.NewReader(`{"events":[` + strings.Repeat(`{},`, apitype.MaxIngestEvents) + `{}]}`), 400, apitype.CodeValidation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, code, h := s.raw(t, tt.method, tt.path, tt.body)
			if status != tt.status || code != tt.code {
				t.Errorf("got %d %q, want %d %q", status, code, tt.status, tt.code)
			}
			if id := h.Get(apitype.HeaderRequestID); !strings.HasPrefix(id, "req_") || len(id) != 40 {
				t.Errorf("request id %q, want req_<uuid>", id)
			}
			if v := h.Get(apitype.HeaderVersion); v != "test" {
				t.Errorf("version header %q, want test", v)
			}
			if tt.status == 405 && h.Get("Allow") == "" {
				t.Errorf("405 without Allow")
			}
		})
	}
	// Nothing above changed the archive or the config.
	st, err := s.client.Status(context.Background())
	if err != nil || st.Sessions != 0 || st.Consent != "not_asked" {
		t.Fatalf("status after bad requests: %+v, %v", st, err)
	}
}

func TestIngestReportsEachRow(t *testing.T) {
	s := serve(t, ipc.ListenOptions{})
	ctx := context.Background()
	ev := func(v string) json.RawMessage { return json.RawMessage(v) }
	req := &apitype.IngestRequest{Events: []json.RawMessage{
		ev(`{"kind":"session","id":"s1","source_agent":"api-test","project":"/p","created_at":"2026-01-02T03:04:05Z"}`),
		ev(`{"kind":"message","session_id":"s1","id":"m1","role":"user","timestamp":"2026-01-02T03:04:06Z","options":{"pond":{"ingest":{"adapter":"forged"}}}}`),
		ev(`{"kind":"part","session_id":"s1","message_id":"m1","id":"p1","ordinal":0,"type":"text","provenance":"conversational","text":"ingested over the socket"}`),
		ev(`{"kind":"message","session_id":"s1","id":"m2","role":"robot","timestamp":"2026-01-02T03:04:07Z"}`),
		ev(`{"kind":"comment"}`),
		ev(`"not an object"`),
		// A session id that would name a file outside an agent's folder in a restore, and
		// run in the shell line that resumes it (session.CheckID).
		ev(`{"kind":"session","id":"../../x;touch${IFS}PWNED","source_agent":"codex-cli","project":"/p","created_at":"2026-01-02T03:04:05Z"}`),
		ev(`{"kind":"session","id":"s9","parent_session_id":"../s1","source_agent":"codex-cli","project":"/p","created_at":"2026-01-02T03:04:05Z"}`),
	}}
	resp, err := s.client.Ingest(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range resp.Results {
		got = append(got, fmt.Sprintf("%d:%s", r.Index, r.Status))
	}
	want := "0:inserted 1:inserted 2:inserted 3:error 4:error 5:error 6:error 7:error"
	if strings.Join(got, " ") != want || resp.Accepted != 3 || resp.Rejected != 5 {
		t.Fatalf("results %v (accepted %d, rejected %d), want %s", got, resp.Accepted, resp.Rejected, want)
	}
	for _, r := range resp.Results[3:] {
		if r.Error == "" {
			t.Errorf("row %d rejected without a reason", r.Index)
		}
	}
	// Re-sending converges; the provenance is the store's, not the caller's.
	resp, err = s.client.Ingest(ctx, &apitype.IngestRequest{Events: req.Events[:3]})
	if err != nil || resp.Results[1].Status != "matched" {
		t.Fatalf("re-ingest: %+v, %v; want matched", resp, err)
	}
	res, err := s.client.SQL(ctx, &apitype.SQLRequest{Query: "SELECT json_extract(options, '$.pond.ingest.adapter') AS a, search_text FROM messages WHERE session_id = 's1'"})
	if err != nil || res.RowCount != 1 || res.Rows[0]["a"] != "api" || !strings.Contains(fmt.Sprint(res.Rows[0]["search_text"]), "ingested over the socket") {
		t.Fatalf("stored message: %+v, %v; want one row stamped by the api", res, err)
	}
}

func TestConfigRoutesAndWatch(t *testing.T) {
	s := serve(t, ipc.ListenOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := make(chan apitype.Event, 16)
	go s.client.Watch(ctx, "", func(ev apitype.Event) error { events <- ev; return nil })
	next := func(typ string) apitype.Event {
		t.Helper()
		select {
		case ev := <-events:
			if ev.Type != typ {
				t.Fatalf("event %s %s, want %s", ev.Type, ev.Data, typ)
			}
			return ev
		case <-time.After(2 * time.Minute): // a bound on a hang, not a measure of speed
			t.Fatalf("no %s event", typ)
		}
		return apitype.Event{}
	}
	hello := next(apitype.EventHello)

	if c, err := s.client.SetConsent(ctx, &apitype.Consent{Capture: "granted"}); err != nil || c.Capture != "granted" {
		t.Fatalf("set consent: %+v, %v", c, err)
	}
	first := next(apitype.EventConsent)
	ad, err := s.client.SetAdapters(ctx, &apitype.AdapterRequest{Action: "disable", Name: "codex-cli"})
	if err != nil || len(ad.Changed) != 1 {
		t.Fatalf("disable: %+v, %v", ad, err)
	}
	second := next(apitype.EventAdapters)
	if c, _ := s.client.Consent(ctx); c.Capture != "granted" {
		t.Fatalf("consent read back %q", c.Capture)
	}

	// A client resuming after the first event gets the second; a stale cursor gets a reset.
	resume := func(since string) []apitype.Event {
		rctx, rcancel := context.WithCancel(ctx)
		defer rcancel()
		var got []apitype.Event
		s.client.Watch(rctx, since, func(ev apitype.Event) error {
			got = append(got, ev)
			rcancel()
			return nil
		})
		return got
	}
	if got := resume(first.Cursor()); len(got) != 1 || got[0].ID != second.ID {
		t.Fatalf("resume after %s: %+v, want event %d", first.Cursor(), got, second.ID)
	}
	if got := resume("olderepoch:3"); len(got) != 1 || got[0].Type != apitype.EventReset {
		t.Fatalf("resume from another epoch: %+v, want reset", got)
	}
	if first.ID != hello.ID+1 || first.Epoch != hello.Epoch {
		t.Fatalf("ids: hello %d, first %d", hello.ID, first.ID)
	}

	// Sync over the API captures the fixtures and tells the watchers.
	resp, err := s.client.Sync(ctx, &apitype.SyncRequest{Adapter: "claude-code"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Report == nil || resp.Report.Inserted.Sessions == 0 {
		t.Fatalf("sync report %+v", resp.Report)
	}
	started := next(apitype.EventSyncStarted)
	// Progress comes live between them, carrying the id of the last kept event, so a cursor
	// taken from it resumes after sync_started.
	ev := next(apitype.EventSyncProgress)
	for ev.Type == apitype.EventSyncProgress {
		if ev.ID != started.ID {
			t.Errorf("sync_progress has id %d, want sync_started's %d", ev.ID, started.ID)
		}
		if p, err := ev.Payload(); err != nil || p.(*view.SyncProgress).Adapter != "claude-code" {
			t.Errorf("sync_progress payload %s: %v", ev.Data, err)
		}
		ev = <-events
	}
	if ev.Type != apitype.EventSyncFinished {
		t.Fatalf("event %s after the progress, want sync_finished", ev.Type)
	}
	next(apitype.EventCaptured)
}

// TestConcurrentClients: 64 clients, 200 mixed requests each, no error.
func TestConcurrentClients(t *testing.T) {
	s := serve(t, ipc.ListenOptions{})
	ctx := context.Background()
	if _, err := s.client.Sync(ctx, &apitype.SyncRequest{Adapter: "claude-code"}); err != nil {
		t.Fatal(err)
	}
	clients, each := 64, 200
	if testing.Short() {
		each = 20
	}
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := ipc.NewClient(s.api)
			defer c.Close()
			for j := range each {
				var err error
				switch {
				case j == 0: // writes are serial (one Lance commit each): one per client
					_, err = c.Ingest(ctx, &apitype.IngestRequest{Events: []json.RawMessage{json.RawMessage(fmt.Sprintf(
						`{"kind":"session","id":"c%d","source_agent":"load","project":"/p","created_at":"2026-01-02T03:04:05Z"}`, i))}})
				case (i+j)%4 == 0:
					var st *view.Status
					if st, err = c.Status(ctx); err == nil && st.Sessions == 0 {
						err = errors.New("status: no sessions")
					}
				case (i+j)%4 == 1:
					_, err = c.SQL(ctx, &apitype.SQLRequest{Query: "SELECT role, count(*) FROM messages GROUP BY role"})
				case (i+j)%4 == 2:
					_, err = c.Consent(ctx)
				default:
					_, err = c.Adapters(ctx)
				}
				if err != nil {
					errs <- fmt.Errorf("client %d request %d: %w", i, j, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// The API's sessions are the api's, whatever agent they name ("load" is kept apart).
	res, err := s.client.SQL(ctx, &apitype.SQLRequest{Query: "SELECT count(*) AS n FROM sessions WHERE source_agent = 'api' AND json_extract(options, '$.untrusted.source_agent') = 'load'"})
	if err != nil || res.Rows[0]["n"] != float64(clients) {
		t.Fatalf("ingested sessions: %+v, %v; want %d", res, err, clients)
	}
}

// TestPeerUID runs clients as another user (nobody, a child process of this test binary; see
// internal/otheruser): with the production modes they cannot connect at all; with the sockets
// opened to everyone they reach the servers, and the API answers 403 while the MCP socket hangs
// up unanswered. It needs root, which CI has (make test); elsewhere it skips, saying so.
func TestPeerUID(t *testing.T) {
	otheruser.Require(t)
	for _, tt := range []struct {
		name string
		open bool
	}{{"production_modes", false}, {"open_sockets", true}} {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t, ipc.ListenOptions{OpenToAll: tt.open})
			// Let nobody walk down to the runtime directory (t.TempDir makes 0700 folders).
			otheruser.OpenPath(t, filepath.Dir(s.dirs.Runtime.Path))
			out, err := otheruser.Command(t, "get", s.api, "/v1/status").CombinedOutput()
			if !tt.open {
				if err == nil || !strings.Contains(string(out), "permission denied") {
					t.Fatalf("nobody connected: %v %s", err, out)
				}
				t.Logf("uid %d was kept out of the runtime dir: %s", otheruser.UID, bytes.TrimSpace(out))
				return
			}
			if err != nil || !strings.HasPrefix(string(out), "403 ") || !strings.Contains(string(out), `"code":"forbidden"`) {
				t.Fatalf("nobody got %v %s, want 403 forbidden", err, out)
			}
			mcpOut, err := otheruser.Command(t, "mcp-ping", s.mcp).CombinedOutput()
			if err != nil || string(mcpOut) != "hung up\n" {
				t.Fatalf("nobody on the MCP socket: %v %q, want the daemon to hang up unanswered", err, mcpOut)
			}
			// The owner still gets in.
			if _, err := s.client.Status(context.Background()); err != nil {
				t.Fatal(err)
			}
			t.Logf("uid %d got %s from the API and the MCP socket hung up", otheruser.UID, bytes.TrimSpace(out))
		})
	}
}

func TestMCPOverSocket(t *testing.T) {
	s := serve(t, ipc.ListenOptions{})
	ctx := context.Background()
	if _, err := s.client.Sync(ctx, &apitype.SyncRequest{Adapter: "claude-code"}); err != nil {
		t.Fatal(err)
	}
	conn, err := ipc.Dial(ctx, s.mcp)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if !strings.Contains(cs.InitializeResult().Instructions, "not proof") {
		t.Errorf("instructions do not teach recall: %q", cs.InitializeResult().Instructions)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint || !tl.Annotations.IdempotentHint {
			t.Errorf("%s is not annotated read-only and idempotent", tl.Name)
		}
	}
	if got := strings.Join(names, " "); got != "pond_get_message pond_get_session pond_search pond_sql pond_status" {
		t.Errorf("tools %q", got)
	}
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	textOf := func(r *mcp.CallToolResult) string { return r.Content[0].(*mcp.TextContent).Text }
	if r := call("pond_status", nil); r.IsError || !strings.Contains(textOf(r), "claude-code") {
		t.Errorf("pond_status: %s", textOf(r))
	}
	if r := call("pond_sql", map[string]any{"sql": "SELECT count(*) AS n FROM sessions"}); r.IsError || !strings.Contains(textOf(r), "(1 rows") {
		t.Errorf("pond_sql: %s", textOf(r))
	}
	if r := call("pond_sql", map[string]any{"query": "DROP TABLE sessions"}); !r.IsError || !strings.Contains(textOf(r), "refused") {
		t.Errorf("refused SQL is not a tool error: %+v", r)
	}
	// Recall: search finds the fixture session, get_session and get_message read it.
	r := call("pond_search", map[string]any{"query": "calc_test", "limit": 3})
	if r.IsError || !strings.Contains(textOf(r), "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b") {
		t.Fatalf("pond_search: %s", textOf(r))
	}
	if r := call("pond_search", map[string]any{"query": "x", "mode": "semantic"}); !r.IsError {
		t.Errorf("a bad mode is not a tool error: %s", textOf(r))
	}
	if r := call("pond_search", map[string]any{"query": "calc", "mode": "vector"}); !r.IsError || !strings.Contains(textOf(r), "semantic search is off") {
		t.Errorf("vector search with embeddings off: %s", textOf(r))
	}
	if r := call("pond_get_session", map[string]any{"session_id": "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b", "from": "end", "limit": 2}); r.IsError || !strings.Contains(textOf(r), "7f3c2a10") {
		t.Errorf("pond_get_session: %s", textOf(r))
	}
	msg, err := s.client.SQL(ctx, &apitype.SQLRequest{Query: "SELECT message_id FROM messages WHERE session_id = '7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b' ORDER BY timestamp LIMIT 1"})
	if err != nil {
		t.Fatal(err)
	}
	mid := msg.Rows[0]["message_id"].(string)
	if r := call("pond_get_message", map[string]any{"message_id": mid, "context_after": 1}); r.IsError || !strings.Contains(textOf(r), mid) {
		t.Errorf("pond_get_message: %s", textOf(r))
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "pond_get_session", Arguments: map[string]any{"id": "no-such-session"}})
	var nf *jsonrpc.Error
	if !errors.As(err, &nf) || nf.Code != mcpserver.CodeNotFound {
		t.Errorf("unknown session: %v, want JSON-RPC error %d", err, mcpserver.CodeNotFound)
	}

	res, err := cs.ListResources(ctx, nil)
	if err != nil || len(res.Resources) != 3 {
		t.Fatalf("resources: %+v, %v", res, err)
	}
	for _, uri := range []string{"schema://pond", "schema://pond-sql", "stats://pond"} {
		r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil || len(r.Contents) != 1 || r.Contents[0].Text == "" {
			t.Errorf("read %s: %+v, %v", uri, r, err)
		}
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "schema://nope"})
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Errorf("unknown resource: %v, want a JSON-RPC error", err)
	}
}

func TestRecallRoutes(t *testing.T) {
	s := serve(t, ipc.ListenOptions{})
	ctx := context.Background()
	if _, err := s.client.Sync(ctx, &apitype.SyncRequest{Adapter: "claude-code"}); err != nil {
		t.Fatal(err)
	}
	st, err := s.client.Status(ctx)
	if err != nil || st.Sessions == 0 || st.Indexes == nil || st.Embeddings.Enabled || st.Embeddings.Embedded != 0 || st.LastSync == nil {
		t.Fatalf("status after a sync: %+v, %v", st, err)
	}
	res, err := s.client.Search(ctx, &apitype.SearchRequest{SearchRequest: view.SearchRequest{Query: "calc_test", Filters: view.SearchFilters{Project: "demo"}}})
	if err != nil || len(res.Sessions) == 0 || res.Sessions[0].SessionID != "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b" {
		t.Fatalf("search: %+v, %v", res, err)
	}
	hit := res.Sessions[0].Matches[0]
	page, err := s.client.GetSession(ctx, &apitype.GetSessionRequest{GetSessionRequest: view.GetSessionRequest{ID: hit.MessageID, Limit: 2}})
	if err != nil || page.ResolvedFromMessageID != hit.MessageID || len(page.Messages) == 0 {
		t.Fatalf("get-session from a message id: %+v, %v", page, err)
	}
	d, err := s.client.GetMessage(ctx, &apitype.GetMessageRequest{GetMessageRequest: view.GetMessageRequest{MessageID: hit.MessageID}})
	if err != nil || d.Target.ID != hit.MessageID {
		t.Fatalf("get-message: %+v, %v", d, err)
	}
	// The original's object form of the project filter, and its errors.
	for body, want := range map[string]int{
		`{"query":"calc_test","filters":{"project":{"regex":"^/srv/"}}}`:  200,
		`{"query":"calc_test","filters":{"project":{"contains":"demo"}}}`: 200,
		`{"query":"calc_test","filters":{"project":{"contains":1}}}`:      400,
		`{"query":"calc_test","mode":"vector"}`:                           400,
		`{"query":"calc_test","sort_by":"loudness"}`:                      400,
	} {
		if status, code, _ := s.raw(t, "POST", "/v1/search", strings.NewReader(body)); status != want {
			t.Errorf("%s: %d %s, want %d", body, status, code, want)
		}
	}
	if status, code, _ := s.raw(t, "POST", "/v1/get-session", strings.NewReader(`{"id":"nope"}`)); status != 404 || code != apitype.CodeNotFound {
		t.Errorf("unknown session: %d %s", status, code)
	}
}

// TestTCPListener: the optional loopback listener wants the token and its own Host.
func TestTCPListener(t *testing.T) {
	if _, err := ipc.ListenTCP("0.0.0.0:0"); err == nil {
		t.Fatal("a non-loopback address was accepted")
	}
	s := serve(t, ipc.ListenOptions{})
	tokenFile := filepath.Join(s.dirs.State.Path, ipc.TokenFileName)
	token, err := ipc.LoadToken(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(tokenFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, %v", st.Mode(), err)
	}
	if again, _ := ipc.LoadToken(tokenFile); again != token {
		t.Fatal("the token changed on a second load")
	}
	ln, err := ipc.ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go (&ipc.Server{API: s.svc, Version: "test"}).ServeTCP(ctx, ln, token)
	addr := ln.Addr().String()
	tests := []struct {
		name, host, auth string
		want             int
	}{
		{"ok", addr, "Bearer " + token, 200},
		{"localhost_name", strings.Replace(addr, "127.0.0.1", "localhost", 1), "Bearer " + token, 200},
		{"no_token", addr, "", 401},
		{"wrong_token", addr, "Bearer " + strings.Repeat("0", 64), 401},
		{"rebinding_host", "evil.example:80", "Bearer " + token, 403},
		{"other_port", "127.0.0.1:1", "Bearer " + token, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", "http://"+addr+"/v1/status", nil)
			req.Host = tt.host
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("got %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
}

// TestStatusDoesNotWaitForIndexStats: Lance answers (here: its index statistics) only between an
// upkeep's commits. While an upkeep runs, a status reports the last statistics read and the
// slow read goes on (one at a time); with no upkeep running, a status waits for the read, so
// it tells what the upkeep did.
func TestStatusDoesNotWaitForIndexStats(t *testing.T) {
	s := serve(t, ipc.ListenOptions{})
	ctx := context.Background()
	first, err := s.client.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	reads := make(chan struct{}, 8)
	s.svc.indexes.mu.Lock()
	s.svc.indexes.read = func(ctx context.Context) ([]view.TableIndex, error) {
		reads <- struct{}{}
		<-release // held up, as by an upkeep
		return []view.TableIndex{{Table: "messages", Name: "after_upkeep"}}, nil
	}
	s.svc.indexes.mu.Unlock()
	if ok, _ := s.svc.upkeep.run.take(ctx, true); !ok {
		t.Fatal("the upkeep slot is taken")
	}
	for range 3 { // the read under way is shared, not started again
		st, err := s.client.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Indexes) != len(first.Indexes) {
			t.Fatalf("while the read is held up: %d indexes, want the last read's %d", len(st.Indexes), len(first.Indexes))
		}
	}
	if n := len(reads); n != 1 {
		t.Errorf("%d reads started, want 1", n)
	}
	s.svc.upkeep.run.release()
	close(release)
	st, err := s.client.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Indexes) != 1 || st.Indexes[0].Name != "after_upkeep" {
		t.Errorf("with no upkeep running: %+v, want the read's answer", st.Indexes)
	}
}

// A status with nothing written since the last one reads no index statistics again (their
// read took 0.1–0.2 s at a million messages); one after a write does, and says what it wrote.
func TestStatusReadsIndexStatsAgainOnlyAfterAWrite(t *testing.T) {
	s := serve(t, ipc.ListenOptions{})
	ctx := context.Background()
	var reads atomic.Int32
	s.svc.indexes.mu.Lock()
	s.svc.indexes.read = func(ctx context.Context) ([]view.TableIndex, error) {
		reads.Add(1)
		return s.svc.readIndexes(ctx)
	}
	s.svc.indexes.mu.Unlock()
	status := func() *view.Status {
		t.Helper()
		st, err := s.client.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	before := status()
	for range 3 {
		status()
	}
	if n := reads.Load(); n != 1 {
		t.Fatalf("%d reads of the index statistics over four statuses with nothing written, want 1", n)
	}
	if _, err := s.client.Ingest(ctx, &apitype.IngestRequest{Events: events(
		`{"kind":"session","id":"s-new","source_agent":"api-test","project":"/p","created_at":"2026-01-02T03:04:05Z"}`,
		`{"kind":"message","session_id":"s-new","id":"m1","role":"user","timestamp":"2026-01-02T03:04:06Z"}`,
		`{"kind":"part","session_id":"s-new","message_id":"m1","id":"p1","ordinal":0,"type":"text","provenance":"conversational","text":"one more"}`,
	)}); err != nil {
		t.Fatal(err)
	}
	after := status()
	if n := reads.Load(); n != 2 {
		t.Errorf("%d reads after a write, want 2", n)
	}
	if after.Messages != before.Messages+1 || after.Sessions != before.Sessions+1 {
		t.Errorf("after a write: %d sessions, %d messages; before %d, %d", after.Sessions, after.Messages, before.Sessions, before.Messages)
	}
}
