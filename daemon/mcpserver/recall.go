package mcpserver

import (
	"cmp"
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/present"
	"github.com/pondhq/pond/session/view"
)

const searchDoc = `Find earlier coding-agent sessions by what was said in them. Returns the matching sessions, best first, each with its best messages (a 600-character window around the match) and their message ids. Use distinctive words (an error message, a function name, a library), not project names. mode: fts (default, every word; stemmed) or vector (by meaning; only when semantic search is on). sort_by: relevance (default) or recency (for "the latest decision"). Filters: project (substring of the working directory), session_id, source_agent (e.g. claude-code; a sub-kind like claude-code/subagent includes sub-agent sessions), from_date / to_date (YYYY-MM-DD, inclusive). limit: sessions (default 10, at most 200). Search covers what users and assistants wrote, not tool output: weak results are not proof of absence; check exact strings with pond_sql.`

// SearchIn is pond_search's input.
type SearchIn struct {
	Query       string `json:"query" jsonschema:"distinctive words to find (an error, a function, a library), not project names"`
	Mode        string `json:"mode,omitempty" jsonschema:"fts (default) or vector (only when semantic search is on)"`
	SortBy      string `json:"sort_by,omitempty" jsonschema:"relevance (default) or recency"`
	Limit       int    `json:"limit,omitempty" jsonschema:"sessions to return (default 10, at most 200)"`
	Project     string `json:"project,omitempty" jsonschema:"keep sessions whose project (working directory) contains this text"`
	SessionID   string `json:"session_id,omitempty" jsonschema:"search only this session"`
	SourceAgent string `json:"source_agent,omitempty" jsonschema:"only this agent, e.g. claude-code or codex-cli; a sub-kind such as claude-code/subagent includes sub-agent sessions"`
	FromDate    string `json:"from_date,omitempty" jsonschema:"from this UTC day on, YYYY-MM-DD (inclusive)"`
	ToDate      string `json:"to_date,omitempty" jsonschema:"up to the end of this UTC day, YYYY-MM-DD (inclusive)"`
}

func (h *handlers) search(ctx context.Context, req *mcp.CallToolRequest, in SearchIn) (*mcp.CallToolResult, any, error) {
	switch in.Mode {
	case "", "fts", "vector", "hybrid":
	default:
		return nil, nil, fmt.Errorf("mode %q is not known: use fts, vector or hybrid", in.Mode)
	}
	sr := view.SearchRequest{Query: in.Query, Mode: in.Mode, SortBy: in.SortBy, Limit: in.Limit,
		Filters: view.SearchFilters{Project: view.ProjectFilter(in.Project), SessionID: in.SessionID, SourceAgent: in.SourceAgent,
			FromDate: in.FromDate, ToDate: in.ToDate}}
	scope, err := scopeOf(req.Session)
	if err != nil {
		return nil, nil, err
	}
	var j *judge
	if scope != nil {
		j = h.judge(ctx, scope)
		if err := j.clampSearch(&sr.Filters); err != nil {
			return nil, nil, err
		}
		// Hits outside the scope are dropped after the search, so it asks for as many
		// sessions as a search returns, and keeps the number asked for.
		sr.Limit = view.MaxSearchLimit
	}
	res, err := h.api.Search(ctx, &apitype.SearchRequest{SearchRequest: sr})
	if err != nil {
		return nil, nil, mapError(err)
	}
	if j != nil {
		limit := in.Limit
		if limit <= 0 {
			limit = view.DefaultSearchLimit
		}
		if err := j.filterSearch(res, min(limit, view.MaxSearchLimit)); err != nil {
			return nil, nil, mapError(err)
		}
	}
	return text(present.Search(res, SearchBudget-200), SearchBudget), nil, nil
}

const getSessionDoc = `Read a stored session, a page of messages at a time, in order: each message's text and one line per tool call (->) and result (<-). id: a session id, or a message id from pond_search (the page then starts at that message; a restored copy of a session keeps its message ids, so to be exact pass the session id as id and the message id as at_message_id). from: start (default) or end (the latest turns: use it to recover the state after a compaction, or for "where did we leave off"). limit: messages per page (default 20, at most 1000; pages are also bounded to 200,000 characters). Page on with after_message_id or before_message_id (not both); the output names the next anchor. The first page lists the session's sub-agent sessions.`

// GetSessionIn is pond_get_session's input.
type GetSessionIn struct {
	ID              string `json:"id,omitempty" jsonschema:"a session id, or a message id (the page starts at that message)"`
	SessionID       string `json:"session_id,omitempty" jsonschema:"alias of id"`
	Limit           int    `json:"limit,omitempty" jsonschema:"messages per page (default 20, at most 1000)"`
	From            string `json:"from,omitempty" jsonschema:"start (default) or end: read the latest turns first"`
	AfterMessageID  string `json:"after_message_id,omitempty" jsonschema:"the page after this message"`
	BeforeMessageID string `json:"before_message_id,omitempty" jsonschema:"the page before this message"`
	AtMessageID     string `json:"at_message_id,omitempty" jsonschema:"the page starting at this message of the session named by id"`
}

func (h *handlers) getSession(ctx context.Context, req *mcp.CallToolRequest, in GetSessionIn) (*mcp.CallToolResult, any, error) {
	scope, err := scopeOf(req.Session)
	if err != nil {
		return nil, nil, err
	}
	page, err := h.api.GetSession(ctx, &apitype.GetSessionRequest{GetSessionRequest: view.GetSessionRequest{ID: in.ID, SessionID: in.SessionID,
		Limit: in.Limit, From: in.From, AfterMessageID: in.AfterMessageID, BeforeMessageID: in.BeforeMessageID, AtMessageID: in.AtMessageID}})
	if err != nil {
		return nil, nil, mapError(err)
	}
	if scope != nil {
		// Checked on what the archive answered, so a message id resolves to its session first.
		j := h.judge(ctx, scope)
		ok, err := j.in(&page.Session)
		if err != nil {
			return nil, nil, mapError(err)
		}
		if !ok {
			return nil, nil, forbidden(scope, "session "+cmp.Or(in.ID, in.SessionID))
		}
		var subs []view.SessionInfo
		for _, sub := range page.Subagents {
			if ok, err := j.in(&sub); err != nil {
				return nil, nil, mapError(err)
			} else if ok {
				subs = append(subs, sub)
			}
		}
		page.Subagents = subs
	}
	return text(present.Page(page), PageBudget), nil, nil
}

const getMessageDoc = `Read one message in full: every part's body (tool calls with their arguments, tool results, reasoning, files), within 200,000 characters, with context_before and context_after neighbouring messages (default 3 each, like grep -B/-A). id: a message id (from pond_search or pond_get_session). When forks share the id, pass session_id to pick one.`

// GetMessageIn is pond_get_message's input.
type GetMessageIn struct {
	ID            string `json:"id,omitempty" jsonschema:"a message id"`
	MessageID     string `json:"message_id,omitempty" jsonschema:"alias of id"`
	SessionID     string `json:"session_id,omitempty" jsonschema:"the session, when forks share the message id"`
	ContextBefore *int   `json:"context_before,omitempty" jsonschema:"messages before it to show (default 3)"`
	ContextAfter  *int   `json:"context_after,omitempty" jsonschema:"messages after it to show (default 3)"`
}

func (h *handlers) getMessage(ctx context.Context, req *mcp.CallToolRequest, in GetMessageIn) (*mcp.CallToolResult, any, error) {
	scope, err := scopeOf(req.Session)
	if err != nil {
		return nil, nil, err
	}
	d, err := h.api.GetMessage(ctx, &apitype.GetMessageRequest{GetMessageRequest: view.GetMessageRequest{ID: in.ID, MessageID: in.MessageID,
		SessionID: in.SessionID, ContextBefore: in.ContextBefore, ContextAfter: in.ContextAfter}})
	if err != nil {
		return nil, nil, mapError(err)
	}
	if scope != nil {
		j := h.judge(ctx, scope)
		ok, err := j.in(&d.Session)
		if err != nil {
			return nil, nil, mapError(err)
		}
		if !ok {
			return nil, nil, forbidden(scope, "message "+cmp.Or(in.ID, in.MessageID))
		}
		var also []string
		for _, id := range d.AlsoInSessions {
			if ok, err := j.inID(id); err != nil {
				return nil, nil, mapError(err)
			} else if ok {
				also = append(also, id)
			}
		}
		d.AlsoInSessions = also
	}
	return text(present.Message(d), PageBudget), nil, nil
}
