package apitype

import (
	"encoding/json"
	"errors"

	"github.com/pondhq/pond/session"
)

// SearchRequest is POST /v1/search. Its fields and their JSON follow the store's search
// request; the daemon checks that they convert both ways.
type SearchRequest struct {
	Versioned
	Query   string        `json:"query"`
	Mode    string        `json:"mode,omitempty"`    // fts (default), vector, hybrid
	SortBy  string        `json:"sort_by,omitempty"` // relevance (default), recency
	Filters SearchFilters `json:"filters"`
	Limit   int           `json:"limit,omitempty"` // sessions; default 10, at most 200
}

// SearchFilters narrow a search.
type SearchFilters struct {
	Project     ProjectFilter `json:"project,omitempty"`
	SessionID   string        `json:"session_id,omitempty"`
	SourceAgent string        `json:"source_agent,omitempty"`
	FromDate    string        `json:"from_date,omitempty"` // YYYY-MM-DD, inclusive
	ToDate      string        `json:"to_date,omitempty"`   // YYYY-MM-DD, inclusive
	Role        string        `json:"role,omitempty"`
}

// ProjectFilter is the project filter: a substring, "re:<regexp>" or "lit:<path>". On the
// wire it is that string, or the original's object {"contains": s} or {"regex": s}.
type ProjectFilter string

// UnmarshalJSON accepts the string and both object forms.
func (p *ProjectFilter) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*p = ProjectFilter(s)
		return nil
	}
	var o struct {
		Contains *string `json:"contains"`
		Regex    *string `json:"regex"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return errors.New(`project: want a string, {"contains": "…"} or {"regex": "…"}`)
	}
	switch {
	case o.Contains != nil && o.Regex == nil:
		*p = ProjectFilter(*o.Contains)
	case o.Regex != nil && o.Contains == nil:
		*p = ProjectFilter("re:" + *o.Regex)
	default:
		return errors.New(`project: give exactly one of contains or regex`)
	}
	return nil
}

// SearchResult lists the sessions with hits, best first.
type SearchResult struct {
	Query                    string        `json:"query"`
	Mode                     string        `json:"mode"`
	SortBy                   string        `json:"sort_by"`
	Sessions                 []SessionHits `json:"sessions"`
	MatchedTotal             int           `json:"matched_total"`
	MatchedTotalIsLowerBound bool          `json:"matched_total_is_lower_bound,omitempty"`
	SearchableInScope        int           `json:"searchable_in_scope"`
	HasMore                  bool          `json:"has_more"`
	Reason                   string        `json:"reason,omitempty"`
	Hint                     string        `json:"hint,omitempty"`
	Notes                    []string      `json:"notes,omitempty"`
	ElapsedMS                float64       `json:"elapsed_ms"`
}

// SessionHits is one session's hits (its sub-agents' hits grouped under it).
type SessionHits struct {
	SessionID            string  `json:"session_id"`
	Project              string  `json:"project"`
	SourceAgent          string  `json:"source_agent"`
	CreatedAt            string  `json:"created_at"`
	SessionMessagesCount int     `json:"session_messages_count"`
	MatchedMessageCount  int     `json:"matched_message_count"`
	BestScore            float64 `json:"best_score"`
	Matches              []Hit   `json:"matches"`
}

// Hit is one matching message with a window of its text.
type Hit struct {
	SessionID  string   `json:"session_id"`
	MessageID  string   `json:"message_id"`
	Role       string   `json:"role"`
	Timestamp  string   `json:"timestamp"`
	Score      float64  `json:"score"`
	Text       string   `json:"text"`
	Highlights [][2]int `json:"highlights,omitempty"`
}

// GetSessionRequest is POST /v1/get-session: one page of a session (id may be a message id).
type GetSessionRequest struct {
	Versioned
	ID              string `json:"id"`
	SessionID       string `json:"session_id,omitempty"` // alias of id
	Limit           int    `json:"limit,omitempty"`
	From            string `json:"from,omitempty"` // start (default) or end
	AfterMessageID  string `json:"after_message_id,omitempty"`
	BeforeMessageID string `json:"before_message_id,omitempty"`
}

// SessionInfo describes a session.
type SessionInfo struct {
	ID              string `json:"id"`
	SourceAgent     string `json:"source_agent"`
	Project         string `json:"project"`
	CreatedAt       string `json:"created_at"`
	ParentSessionID string `json:"parent_session_id,omitempty"`
	Messages        int    `json:"messages"`
}

// SessionPage is a run of a session's messages in order.
type SessionPage struct {
	Session               SessionInfo   `json:"session"`
	Scope                 string        `json:"scope"`
	Messages              []MessageView `json:"messages"`
	FirstIndex            int           `json:"first_index"`
	BeforeRemaining       int           `json:"before_remaining"`
	AfterRemaining        int           `json:"after_remaining"`
	ResolvedFromMessageID string        `json:"resolved_from_message_id,omitempty"`
	Subagents             []SessionInfo `json:"subagents,omitempty"`
}

// MessageView is a message as a reader sees it.
type MessageView struct {
	ID           string        `json:"id"`
	SessionID    string        `json:"session_id"`
	Role         string        `json:"role"`
	Timestamp    string        `json:"timestamp"`
	Text         string        `json:"text,omitempty"`
	Content      string        `json:"content,omitempty"`
	PartsSummary []PartSummary `json:"parts_summary,omitempty"`
}

// PartSummary is one non-text part in a line.
type PartSummary struct {
	Kind   string `json:"kind"`
	Label  string `json:"label,omitempty"`
	CallID string `json:"call_id,omitempty"`
	Failed *bool  `json:"failed,omitempty"`
}

// GetMessageRequest is POST /v1/get-message: one message in full, with its neighbours.
type GetMessageRequest struct {
	Versioned
	ID            string `json:"id"`
	MessageID     string `json:"message_id,omitempty"` // alias of id
	SessionID     string `json:"session_id,omitempty"`
	ContextBefore *int   `json:"context_before,omitempty"`
	ContextAfter  *int   `json:"context_after,omitempty"`
}

// MessageDetail is a message with every part in full (within the page budget).
type MessageDetail struct {
	Session              SessionInfo    `json:"session"`
	Scope                string         `json:"scope"`
	Target               MessageView    `json:"target"`
	TargetParts          []session.Part `json:"target_parts"`
	TargetPartsRemaining int            `json:"target_parts_remaining"`
	Before               []MessageView  `json:"context_before"`
	After                []MessageView  `json:"context_after"`
	AlsoInSessions       []string       `json:"also_in_sessions,omitempty"`
}
