// Package mcpserver is Pond's MCP server: read-only recall tools and resources over the same
// API the socket serves (ipc.API), so an agent and the CLI see one behaviour. The daemon serves
// it on mcp.sock as newline-delimited JSON-RPC, one session per connection; `pond serve
// --transport stdio` serves it in-process when no daemon runs.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/present"
	"github.com/pondhq/pond/session/view"
)

// Rendered text budgets, as the original's tools declare them (anthropic/maxResultSizeChars).
const (
	SearchBudget = 80_000  // pond_search, pond_sql
	PageBudget   = 200_000 // pond_get_session, pond_get_message
)

// JSON-RPC error codes for infrastructure failures, the original's.
const (
	CodeValidation  = -32010
	CodeVersion     = -32011
	CodeNotFound    = -32012
	CodeNamespace   = -32013
	CodeUnavailable = -32014
	CodeConflict    = -32015
	CodeInternal    = -32016
)

// Instructions teach a connected agent when and how to recall.
const Instructions = `Pond is the local archive of every coding-agent session on this machine (Claude Code, Codex CLI, Gemini CLI, OpenCode, Pi, ...), kept after the agents purge their own logs.

When to use it: before redoing work, when the user refers to an earlier session ("like we did last week", "the migration from yesterday"), or after a context compaction to recover what was decided.

How:
- Search first: pond_search with distinctive words finds the sessions and message ids. Sort by recency for "the latest decision"; after a compaction, search with from_date set to today.
- pond_get_session reads, analyses or summarises a session (any id from search works). Read from the end (from: "end") for its latest state; page with the anchors the output names.
- pond_get_message expands one message: full tool calls and results, with its neighbours.
- pond_sql runs one read-only SQL statement (tables sessions, messages, parts; read schema://pond-sql first). It is the way to find exact strings inside tool calls and results, which search does not cover, and to count.
- Weak or empty search results are not proof that something never happened: try other words, drop filters, or check exact strings with pond_sql (search_text LIKE '%term%', or parts for tool bodies).
- Sub-agent sessions are left out of search unless you name a sub-kind (claude-code/subagent) or a session.
- pond_status says what the archive holds and when it last captured.`

// New builds the server over api.
func New(api ipc.API, version string, log *slog.Logger) *mcp.Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "pond", Version: version}, &mcp.ServerOptions{Instructions: Instructions, Logger: log,
		// Announces that a client's ScopeKey is bound and enforced here (scope.go).
		Capabilities: &mcp.ServerCapabilities{Experimental: map[string]any{ScopeKey: map[string]any{"version": 1}}}})
	h := &handlers{api: api}
	for _, t := range h.tools() {
		t(s)
	}
	for _, r := range h.resources() {
		s.AddResource(r.res, r.read)
	}
	return s
}

type handlers struct{ api ipc.API }

// tools is the tool list: one entry per tool.
func (h *handlers) tools() []func(*mcp.Server) {
	return []func(*mcp.Server){
		func(s *mcp.Server) { mcp.AddTool(s, readOnly("pond_search", searchDoc, SearchBudget), h.search) },
		func(s *mcp.Server) {
			mcp.AddTool(s, readOnly("pond_get_session", getSessionDoc, PageBudget), h.getSession)
		},
		func(s *mcp.Server) {
			mcp.AddTool(s, readOnly("pond_get_message", getMessageDoc, PageBudget), h.getMessage)
		},
		func(s *mcp.Server) { mcp.AddTool(s, readOnly("pond_status", statusDoc, SearchBudget), h.status) },
		func(s *mcp.Server) { mcp.AddTool(s, readOnly("pond_sql", sqlDoc, SearchBudget), h.sql) },
	}
}

// readOnly is a tool that changes nothing and may be retried freely.
func readOnly(name, doc string, budget int) *mcp.Tool {
	no := false
	return &mcp.Tool{Name: name, Description: doc,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no, DestructiveHint: &no},
		Meta:        mcp.Meta{"anthropic/maxResultSizeChars": budget}}
}

const statusDoc = `What the archive holds: sessions, messages and parts, per agent; the adapters and the last capture. Call it to check that Pond has the agent's history before searching.`

// StatusIn takes no parameters.
type StatusIn struct{}

func (h *handlers) status(ctx context.Context, req *mcp.CallToolRequest, _ StatusIn) (*mcp.CallToolResult, any, error) {
	if err := unscoped(req.Session, "pond_status (counts of the whole archive)"); err != nil {
		return nil, nil, err
	}
	st, err := h.api.Status(ctx)
	if err != nil {
		return nil, nil, mapError(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "archive: %d sessions, %d messages, %d parts\n", st.Sessions, st.Messages, st.Parts)
	for _, a := range st.Agents {
		fmt.Fprintf(&b, "  %-28s %6d sessions %8d messages\n", a.Agent, a.Sessions, a.Messages)
	}
	if ls := st.LastSync; ls != nil {
		fmt.Fprintf(&b, "last capture: %s (%s)\n", ls.FinishedAt, ls.Outcome)
	} else {
		b.WriteString("last capture: never\n")
	}
	var on, off []string
	for _, a := range st.Adapters {
		switch {
		case !a.Enabled:
		case a.Consent == "granted":
			on = append(on, a.Name)
		default:
			off = append(off, a.Name+" ("+strings.ReplaceAll(a.Consent, "_", " ")+")")
		}
	}
	fmt.Fprintf(&b, "capturing: %s (consent %s)\n", orNone(on), st.Consent)
	if len(off) > 0 {
		fmt.Fprintf(&b, "enabled, not captured automatically: %s\n", strings.Join(off, ", "))
	}
	fmt.Fprintf(&b, "semantic search: %v\n", st.Embeddings.Enabled)
	return text(b.String(), SearchBudget), nil, nil
}

const sqlDoc = `Run ONE read-only SQL statement (SELECT, WITH or EXPLAIN) over the archive's SQLite mirror: tables sessions, messages, parts and views tool_calls, session_summary. Read the resource schema://pond-sql for columns and worked examples. Results are an ASCII table of at most 100 rows by default (limit up to 1000), cells clipped at 1000 characters; paginate with a keyset (WHERE timestamp < last_seen ORDER BY timestamp DESC). Use it for exact strings in tool bodies (parts.variant_data), counts, and the latest turns of a session.`

// SQLIn is pond_sql's input.
type SQLIn struct {
	Query          string `json:"query,omitempty" jsonschema:"one read-only SELECT, WITH or EXPLAIN statement"`
	SQL            string `json:"sql,omitempty" jsonschema:"alias of query"`
	Limit          int    `json:"limit,omitempty" jsonschema:"rows to show (default 100, at most 1000)"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"stop the query after this many seconds (default 30, at most 60)"`
	Format         string `json:"format,omitempty" jsonschema:"text (the only format served so far)"`
}

func (h *handlers) sql(ctx context.Context, req *mcp.CallToolRequest, in SQLIn) (*mcp.CallToolResult, any, error) {
	if err := unscoped(req.Session, "pond_sql (a statement reads the whole archive)"); err != nil {
		return nil, nil, err
	}
	if in.Format != "" && in.Format != "text" {
		return nil, nil, fmt.Errorf("format %q is not served over MCP yet; use format text (or the CLI: pond sql --format %s)", in.Format, in.Format)
	}
	// An agent's statement gets the lower cap: the API (and the CLI) allow up to 600 s.
	timeout, asked := in.TimeoutSeconds, in.TimeoutSeconds
	if limit := int(view.SQLMCPMaxTimeout / time.Second); timeout > limit {
		timeout = limit
	}
	res, err := h.api.SQL(ctx, &apitype.SQLRequest{Query: in.Query, SQL: in.SQL, Limit: in.Limit, TimeoutSeconds: timeout})
	if err != nil {
		return nil, nil, mapError(err)
	}
	return text(renderTable(res, asked), SearchBudget), nil, nil
}

// renderTable draws a result as an ASCII table within SearchBudget, with a footer saying what
// was shown and the timeout it ran under (and that it was lowered, when asked was above it).
func renderTable(res *view.SQLResult, asked int) string {
	table, shown := present.Table{MaxWidth: 120, Budget: SearchBudget - 200}.Render(res)
	var b strings.Builder
	b.WriteString(table)
	fmt.Fprintf(&b, "(%d rows in %d ms; showing %d", res.RowCount, res.ElapsedMs, shown)
	if res.TimeoutSeconds > 0 {
		fmt.Fprintf(&b, "; timeout %d s", res.TimeoutSeconds)
		if asked > res.TimeoutSeconds {
			fmt.Fprintf(&b, " (timeout_seconds %d lowered to the MCP cap)", asked)
		}
	}
	if res.Truncated || shown < res.RowCount {
		b.WriteString("; more rows exist: raise limit or paginate with a keyset")
	}
	if res.Clipped > 0 {
		fmt.Fprintf(&b, "; %d cells clipped", res.Clipped)
	}
	b.WriteString(")\n")
	return b.String()
}

type resource struct {
	res  *mcp.Resource
	read mcp.ResourceHandler
}

func (h *handlers) resources() []resource {
	return []resource{
		{&mcp.Resource{URI: "schema://pond-sql", Name: "pond-sql", MIMEType: "text/markdown",
			Description: "The SQL surface: tables, columns, JSON rules, functions and worked examples for pond_sql."},
			func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return contents(req.Params.URI, "text/markdown", present.SQLSchema), nil
			}},
		{&mcp.Resource{URI: "schema://pond", Name: "pond", MIMEType: "text/markdown",
			Description: "Pond's tools: what each takes and returns."}, h.toolsDoc},
		{&mcp.Resource{URI: "stats://pond", Name: "stats", MIMEType: "application/json",
			Description: "Counts of the archive (sessions, messages, parts, per agent), the adapters and the last capture."}, h.stats},
	}
}

func (h *handlers) stats(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	if err := unscoped(req.Session, "stats://pond (counts of the whole archive)"); err != nil {
		return nil, err
	}
	st, err := h.api.Status(ctx)
	if err != nil {
		return nil, mapError(err)
	}
	var emb any // null when semantic search is off, as the original's
	if st.Embeddings.Enabled {
		pct := 0.0
		if st.Messages > 0 {
			pct = 100 * float64(st.Embeddings.Embedded) / float64(st.Messages)
		}
		emb = map[string]any{"model": st.Embeddings.Model, "embedded": st.Embeddings.Embedded, "embedded_percent": pct}
	}
	b, _ := json.MarshalIndent(map[string]any{
		"corpus":     map[string]int64{"sessions": st.Sessions, "messages": st.Messages, "parts": st.Parts},
		"agents":     st.Agents,
		"embeddings": emb,
		"indices":    st.Indexes,
		"last_sync":  st.LastSync,
	}, "", "  ")
	return contents(req.Params.URI, "application/json", string(b)), nil
}

// toolDocs are the tools' descriptions, for schema://pond.
var toolDocs = map[string]string{"pond_search": searchDoc, "pond_get_session": getSessionDoc, "pond_get_message": getMessageDoc,
	"pond_status": statusDoc, "pond_sql": sqlDoc}

func (h *handlers) toolsDoc(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	var b strings.Builder
	b.WriteString("# Pond's MCP tools\n\nAll are read-only. Rendered text is bounded; a cut result says so.\n")
	var names []string
	for n := range toolDocs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", n, toolDocs[n])
	}
	return contents(req.Params.URI, "text/markdown", b.String()), nil
}

func contents(uri, mime, s string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: s}}}
}

// text is a tool's answer: s with the control characters of archived text escaped
// (present.Escape: the agent's client may show it on a terminal), within budget.
func text(s string, budget int) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: present.Bound(present.Escape(s), budget)}}}
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// mapError splits failures in two: what the model can correct (a bad statement, a refused
// query, a bad parameter) comes back as a tool error it reads; what it cannot (storage, the
// daemon, a conflict) is a JSON-RPC error with the original's codes and a retryable flag.
func mapError(err error) error {
	var ae *apitype.Error
	if !errors.As(err, &ae) {
		return wireError(CodeInternal, apitype.CodeInternal, false, err.Error(), nil)
	}
	switch ae.Code {
	case apitype.CodeValidation, apitype.CodeRefused, apitype.CodeUnknownAdapter:
		return errors.New(present.Escape(ae.Message)) // it may quote archived text
	case apitype.CodeNotFound:
		return wireError(CodeNotFound, ae.Code, false, ae.Message, ae.Details)
	case apitype.CodeVersion:
		return wireError(CodeVersion, ae.Code, false, ae.Message, ae.Details)
	case apitype.CodeNamespace:
		return wireError(CodeNamespace, ae.Code, false, ae.Message, ae.Details)
	case apitype.CodeStorage:
		return wireError(CodeUnavailable, ae.Code, true, ae.Message, ae.Details)
	case apitype.CodeConflict, apitype.CodeSyncRunning:
		return wireError(CodeConflict, ae.Code, true, ae.Message, ae.Details)
	}
	return wireError(CodeInternal, ae.Code, false, ae.Message, ae.Details)
}

func wireError(code int64, pondCode string, retryable bool, msg string, details map[string]any) error {
	data, _ := json.Marshal(map[string]any{"pond_code": pondCode, "retryable": retryable, "details": details})
	return &jsonrpc.Error{Code: code, Message: msg, Data: data}
}

// ServeListener serves one MCP session per connection accepted on ln until ctx ends. Peers of
// another uid are disconnected before a byte is read. Accepting goes through
// ipc.GuardListener: a failure for want of file descriptors is retried, not the end of the
// daemon, and at most ipc.DefaultMaxConns sessions are open at once.
func ServeListener(ctx context.Context, ln net.Listener, s *mcp.Server, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ln = ipc.GuardListener(ln, ipc.DefaultMaxConns, log)
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if uid, err := ipc.PeerUID(c); err != nil || !ipc.SameUser(uid) {
			log.Warn("mcp: refused a connection from another user", "uid", uid, "error", err)
			c.Close()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			if err := s.Run(ctx, &mcp.IOTransport{Reader: c, Writer: c}); err != nil && ctx.Err() == nil {
				log.Debug("mcp: session ended", "error", err)
			}
		}()
	}
}
