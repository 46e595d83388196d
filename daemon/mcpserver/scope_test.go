package mcpserver_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pondhq/pond/daemon/daemontest"
	"github.com/pondhq/pond/daemon/mcpserver"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// The Claude Code fixtures: a root session with sub-agents in /srv/demo, and a session of
// another project.
const (
	rootSession  = "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b"
	otherProject = "3b2a1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d"
)

// served is a real daemon over the Claude Code fixtures, its MCP server on mcp.sock as pond
// daemon serves it.
func served(t *testing.T) (*daemontest.Served, string) {
	s := daemontest.Start(t, "../../adapters/claudecode/testdata/projects")
	ctx := context.Background()
	if _, err := s.Client.SetConsent(ctx, &apitype.Consent{Capture: "granted"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client.Sync(ctx, &apitype.SyncRequest{}); err != nil {
		t.Fatal(err)
	}
	sock := ipc.MCPSocket(s.Dirs.Runtime.Path)
	ln, err := ipc.Listen(sock, ipc.ListenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		mcpserver.ServeListener(sctx, ln, mcpserver.New(s.Client, "test", nil), nil)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return s, sock
}

// connect opens an MCP session on sock that names scope (none when nil) at its initialize.
func connect(t *testing.T, sock string, scope any) *mcp.ClientSession {
	ctx := context.Background()
	conn, err := ipc.Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	caps := &mcp.ClientCapabilities{}
	if scope != nil {
		caps.Experimental = map[string]any{mcpserver.ScopeKey: scope}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "scope-test", Version: "1"}, &mcp.ClientOptions{Capabilities: caps}).
		Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call runs a tool; it returns the text, or the daemon's JSON-RPC error code and message.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, int64) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	var je *jsonrpc.Error
	switch {
	case errors.As(err, &je):
		return je.Message, je.Code
	case err != nil:
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return b.String(), -1
	}
	return b.String(), 0
}

// tree is the root session and every session whose parents reach it, as the archive says
// (the API, without any scope).
func tree(t *testing.T, s *daemontest.Served, root string) map[string]bool {
	ctx := context.Background()
	in := map[string]bool{root: true}
	for queue := []string{root}; len(queue) > 0; queue = queue[1:] {
		page, err := s.Client.GetSession(ctx, &apitype.GetSessionRequest{GetSessionRequest: view.GetSessionRequest{ID: queue[0], Limit: 1}})
		if err != nil {
			t.Fatal(err)
		}
		for _, sub := range page.Subagents {
			if !in[sub.ID] {
				in[sub.ID] = true
				queue = append(queue, sub.ID)
			}
		}
	}
	return in
}

// firstMessage is a message id of the session.
func firstMessage(t *testing.T, s *daemontest.Served, id string) string {
	page, err := s.Client.GetSession(context.Background(), &apitype.GetSessionRequest{GetSessionRequest: view.GetSessionRequest{ID: id, Limit: 1}})
	if err != nil || len(page.Messages) == 0 {
		t.Fatalf("session %s: %v (%d messages)", id, err, len(page.Messages))
	}
	return page.Messages[0].ID
}

// TestScopeIsEnforcedByTheDaemon: an MCP session that names a scope at its initialize reads
// only that part of the archive, whatever its tool calls ask: a get by id outside it is refused
// by the daemon (forbidden), search keeps to it, SQL and archive-wide counts are refused.
func TestScopeIsEnforcedByTheDaemon(t *testing.T) {
	s, sock := served(t)
	inTree := tree(t, s, rootSession)
	if len(inTree) < 2 {
		t.Fatalf("the fixture root %s has no sub-agent sessions in the archive: %v", rootSession, inTree)
	}
	var sub string
	for id := range inTree {
		if id != rootSession {
			sub = id
		}
	}
	outside := firstMessage(t, s, otherProject)

	t.Run("announced", func(t *testing.T) {
		cs := connect(t, sock, nil)
		caps := cs.InitializeResult().Capabilities
		if caps == nil || caps.Experimental[mcpserver.ScopeKey] == nil {
			t.Fatalf("the server does not announce %s: %+v", mcpserver.ScopeKey, caps)
		}
	})

	t.Run("tree", func(t *testing.T) {
		cs := connect(t, sock, map[string]any{"session": rootSession, "tree": true})
		for _, id := range []string{rootSession, sub} {
			if got, code := call(t, cs, "pond_get_session", map[string]any{"id": id}); code != 0 {
				t.Errorf("get_session %s in the tree: code %d: %s", id, code, got)
			}
		}
		if got, code := call(t, cs, "pond_get_session", map[string]any{"id": otherProject}); code != mcpserver.CodeForbidden || !strings.Contains(got, "outside this connection's scope") {
			t.Errorf("get_session outside the tree: code %d, %q; want forbidden", code, got)
		}
		// A message id resolves to its session first, then the scope is checked.
		if got, code := call(t, cs, "pond_get_session", map[string]any{"id": outside}); code != mcpserver.CodeForbidden {
			t.Errorf("get_session by a message id outside the tree: code %d, %q; want forbidden", code, got)
		}
		if got, code := call(t, cs, "pond_get_message", map[string]any{"id": outside}); code != mcpserver.CodeForbidden {
			t.Errorf("get_message outside the tree: code %d, %q; want forbidden", code, got)
		}
		if _, code := call(t, cs, "pond_get_message", map[string]any{"id": firstMessage(t, s, rootSession)}); code != 0 {
			t.Errorf("get_message in the tree: code %d", code)
		}
		if got, code := call(t, cs, "pond_search", map[string]any{"query": "hello", "session_id": otherProject}); code != mcpserver.CodeForbidden {
			t.Errorf("search naming a session outside the tree: code %d, %q; want forbidden", code, got)
		}
		for name, args := range map[string]map[string]any{"pond_sql": {"query": "select count(*) from sessions"}, "pond_status": {}} {
			if got, code := call(t, cs, name, args); code != mcpserver.CodeForbidden {
				t.Errorf("%s on a scoped connection: code %d, %q; want forbidden", name, code, got)
			}
		}
	})

	t.Run("search", func(t *testing.T) {
		// Unscoped, "test" finds sessions outside the tree too (else this proves nothing).
		all, _ := call(t, connect(t, sock, nil), "pond_search", map[string]any{"query": "test", "source_agent": "claude-code/subagent"})
		if !listsOutside(all, inTree) {
			t.Logf("unscoped search lists no session outside the tree either:\n%s", all)
		}
		cs := connect(t, sock, map[string]any{"session": rootSession, "tree": true})
		got, code := call(t, cs, "pond_search", map[string]any{"query": "test", "source_agent": "claude-code/subagent"})
		if code != 0 {
			t.Fatalf("scoped search: code %d: %s", code, got)
		}
		if listsOutside(got, inTree) {
			t.Errorf("scoped search lists a session outside the tree:\n%s", got)
		}
		if !strings.Contains(got, rootSession) {
			t.Errorf("scoped search does not find the root's own words:\n%s", got)
		}
	})

	t.Run("self", func(t *testing.T) {
		cs := connect(t, sock, map[string]any{"session": rootSession})
		if got, code := call(t, cs, "pond_get_session", map[string]any{"id": sub}); code != mcpserver.CodeForbidden {
			t.Errorf("self scope, get_session of a sub-agent: code %d, %q; want forbidden", code, got)
		}
		got, _ := call(t, cs, "pond_search", map[string]any{"query": "test", "source_agent": "claude-code/subagent"})
		if listsOutside(got, map[string]bool{rootSession: true}) {
			t.Errorf("self scope, search lists another session:\n%s", got)
		}
	})

	t.Run("project", func(t *testing.T) {
		cs := connect(t, sock, map[string]any{"source_agent": "claude-code", "project": "/srv/demo"})
		if got, code := call(t, cs, "pond_get_session", map[string]any{"id": rootSession}); code != 0 {
			t.Errorf("get_session in the project: code %d: %s", code, got)
		}
		if got, code := call(t, cs, "pond_get_session", map[string]any{"id": otherProject}); code != mcpserver.CodeForbidden {
			t.Errorf("get_session of another project: code %d, %q; want forbidden", code, got)
		}
		if got, code := call(t, cs, "pond_search", map[string]any{"query": "hello", "source_agent": "codex-cli"}); code != mcpserver.CodeForbidden {
			t.Errorf("search naming another agent: code %d, %q; want forbidden", code, got)
		}
		got, _ := call(t, cs, "pond_search", map[string]any{"query": "hello"})
		if strings.Contains(got, otherProject) {
			t.Errorf("search lists a session of another project:\n%s", got)
		}
	})

	t.Run("unreadable", func(t *testing.T) {
		// A restriction this daemon does not know fails every call rather than being dropped.
		cs := connect(t, sock, map[string]any{"session": rootSession, "tenant": "work"})
		if got, code := call(t, cs, "pond_get_session", map[string]any{"id": rootSession}); code != mcpserver.CodeValidation {
			t.Errorf("unknown scope field: code %d, %q; want a validation error", code, got)
		}
	})
}

// listsOutside says whether search output names a session id not in ids.
func listsOutside(out string, ids map[string]bool) bool {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "session [") {
			f := strings.Split(line, " | ")
			if !ids[strings.TrimSpace(f[len(f)-1])] {
				return true
			}
		}
		if i := strings.Index(line, "| sub-agent "); i >= 0 && !ids[strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line[i+len("| sub-agent "):]), "---"))] {
			return true
		}
	}
	return false
}
