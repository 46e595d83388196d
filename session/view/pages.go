package view

import "github.com/pondhq/pond/session"

// Bounds of session pages and message reads.
const (
	DefaultPageLimit = 20
	MaxPageLimit     = 1000
	// PageBudgetBytes bounds a page's or a message read's bodies.
	PageBudgetBytes = 200_000
	DefaultContext  = 3
)

// GetSessionRequest asks for one page of a session. ID may be a message id: the page then
// starts at that message (ResolvedFromMessageID says so). Message ids are unique only within
// a session (a restored copy keeps its original's), so a reader that knows the session passes
// it as ID and the message as AtMessageID.
type GetSessionRequest struct {
	ID              string `json:"id"`
	SessionID       string `json:"session_id,omitempty"` // alias of ID
	Limit           int    `json:"limit,omitempty"`      // messages; default 20
	From            string `json:"from,omitempty"`       // start (default) or end
	AfterMessageID  string `json:"after_message_id,omitempty"`
	BeforeMessageID string `json:"before_message_id,omitempty"`
	// AtMessageID starts the page at this message of session ID.
	AtMessageID string `json:"at_message_id,omitempty"`
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

// SessionPage is a run of a session's messages in order (timestamp, then id).
type SessionPage struct {
	Session  SessionInfo   `json:"session"`
	Scope    string        `json:"scope"` // "session"
	Messages []MessageView `json:"messages"`
	// FirstIndex is the 1-based position of Messages[0] in the session.
	FirstIndex            int    `json:"first_index"`
	BeforeRemaining       int    `json:"before_remaining"`
	AfterRemaining        int    `json:"after_remaining"`
	ResolvedFromMessageID string `json:"resolved_from_message_id,omitempty"`
	// Subagents are the session's child sessions, listed on the page that starts the session.
	Subagents []SessionInfo `json:"subagents,omitempty"`
}

// MessageView is a message as a reader sees it: its text and one line per other part.
type MessageView struct {
	ID        string `json:"id"`
	SessionID string `json:"session_id"`
	Role      string `json:"role"`
	Timestamp string `json:"timestamp"`
	// Text is the message's text parts (injected ones included, marked); Content is a system
	// message's content.
	Text         string        `json:"text,omitempty"`
	Content      string        `json:"content,omitempty"`
	PartsSummary []PartSummary `json:"parts_summary,omitempty"`
}

// PartSummary is one non-text part in a line: a tool call or result, reasoning, a file, an
// approval.
type PartSummary struct {
	Kind   string `json:"kind"`
	Label  string `json:"label,omitempty"`
	CallID string `json:"call_id,omitempty"`
	Failed *bool  `json:"failed,omitempty"`
}

// GetMessageRequest asks for one message with its full part bodies and its neighbours.
type GetMessageRequest struct {
	ID        string `json:"id"`
	MessageID string `json:"message_id,omitempty"` // alias of ID
	// SessionID picks the copy when forks share the message id (optional).
	SessionID     string `json:"session_id,omitempty"`
	ContextBefore *int   `json:"context_before,omitempty"` // default 3
	ContextAfter  *int   `json:"context_after,omitempty"`  // default 3
}

// MessageDetail is a message with every part in full (bounded by PageBudgetBytes: parts past
// the budget are counted in TargetPartsRemaining, a body too large alone is cut with a marker).
type MessageDetail struct {
	Session              SessionInfo    `json:"session"`
	Scope                string         `json:"scope"` // "message"
	Target               MessageView    `json:"target"`
	TargetParts          []session.Part `json:"target_parts"`
	TargetPartsRemaining int            `json:"target_parts_remaining"`
	Before               []MessageView  `json:"context_before"`
	After                []MessageView  `json:"context_after"`
	// AlsoInSessions lists other sessions holding a message with this id (forks replay their
	// parent's ids); pass session_id to read one of them.
	AlsoInSessions []string `json:"also_in_sessions,omitempty"`
}
