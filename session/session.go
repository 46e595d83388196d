// Package session is the canonical model every other package speaks: Session, Message and Part,
// their keys and ordering, the text search sees, and the validation every write goes through.
// It imports nothing of Pond's, so anything may import it.
//
// A Session contains Messages; a Message contains Parts. Every object carries Options: the
// source's raw facts, keyed by provider (`options.source.*` for the agent's own records, kept so
// that a native restore can replay them; `options.anthropic.*` and the like for provider data;
// `options.pond.*` for what Pond itself records). Nothing a source says is dropped.
package session

import (
	"encoding/json"
	"time"
)

// Options holds raw facts by provider. Values are JSON kept byte for byte.
type Options map[string]json.RawMessage

// Clone returns a copy of o that shares no map with it.
func (o Options) Clone() Options {
	if o == nil {
		return nil
	}
	c := make(Options, len(o))
	for k, v := range o {
		c[k] = v
	}
	return c
}

// Session is one conversation with an agent.
type Session struct {
	ID string `json:"id"`
	// ParentSessionID links a sub-agent, a fork or a compaction successor to the session it came
	// from. The parent need not be stored first, or at all.
	ParentSessionID string `json:"parent_session_id,omitempty"`
	// ParentMessageID is the cut point of a fork; set only together with ParentSessionID.
	ParentMessageID string `json:"parent_message_id,omitempty"`
	// SourceAgent names the adapter that captured it, with an optional sub-kind after a slash:
	// "claude-code", "claude-code/subagent".
	SourceAgent string `json:"source_agent"`
	// Project is the working directory (or the agent's equivalent); never empty.
	Project   string    `json:"project"`
	CreatedAt time.Time `json:"created_at"`
	Options   Options   `json:"options,omitempty"`
}

// Role is who wrote a message.
type Role string

// Roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one turn of a session. Messages order by (Timestamp, ID).
type Message struct {
	SessionID string    `json:"session_id"`
	ID        string    `json:"id"`
	Role      Role      `json:"role"`
	Timestamp time.Time `json:"timestamp"`
	// Content is a system message's text (other roles carry their text in parts).
	Content string  `json:"content,omitempty"`
	Options Options `json:"options,omitempty"`
}

// Before reports whether m sorts before o: by timestamp, then by id.
func (m *Message) Before(o *Message) bool {
	if !m.Timestamp.Equal(o.Timestamp) {
		return m.Timestamp.Before(o.Timestamp)
	}
	return m.ID < o.ID
}

// PartType is the kind of content a part holds.
type PartType string

// Part types.
const (
	PartText                 PartType = "text"
	PartReasoning            PartType = "reasoning"
	PartFile                 PartType = "file"
	PartToolCall             PartType = "tool_call"
	PartToolResult           PartType = "tool_result"
	PartToolApprovalRequest  PartType = "tool_approval_request"
	PartToolApprovalResponse PartType = "tool_approval_response"
)

// PartTypes lists every part type.
var PartTypes = []PartType{PartText, PartReasoning, PartFile, PartToolCall, PartToolResult, PartToolApprovalRequest, PartToolApprovalResponse}

// Provenance says whether a part is conversation or context the harness injected.
type Provenance string

// Provenances.
const (
	Conversational Provenance = "conversational"
	Injected       Provenance = "injected"
)

// Part is one piece of a message. Which fields apply depends on Type:
//
//	text, reasoning          Text
//	file                     MediaType, FileName, Data
//	tool_call                CallID, Name, Params, ProviderExecuted
//	tool_result              CallID, Name, IsFailure, Result
//	tool_approval_request    ApprovalID, ToolCallID
//	tool_approval_response   ApprovalID, Approved, Reason
type Part struct {
	SessionID  string     `json:"session_id"`
	MessageID  string     `json:"message_id"`
	ID         string     `json:"id"`
	Ordinal    int        `json:"ordinal"`
	Type       PartType   `json:"type"`
	Provenance Provenance `json:"provenance"`

	Text string `json:"text,omitempty"`

	MediaType string    `json:"media_type,omitempty"`
	FileName  string    `json:"file_name,omitempty"`
	Data      *FileData `json:"data,omitempty"`

	CallID           string          `json:"call_id,omitempty"`
	Name             string          `json:"name,omitempty"`
	Params           json.RawMessage `json:"params,omitempty"`
	ProviderExecuted bool            `json:"provider_executed,omitempty"`
	IsFailure        bool            `json:"is_failure,omitempty"`
	Result           json.RawMessage `json:"result,omitempty"`

	ApprovalID string `json:"approval_id,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
	Approved   bool   `json:"approved,omitempty"`
	Reason     string `json:"reason,omitempty"`

	Options Options `json:"options,omitempty"`
}

// FileData is a file part's payload: inline bytes, an inline string, or a URL.
type FileData struct {
	Kind  FileDataKind `json:"kind"`
	Value string       `json:"value,omitempty"` // string and url
	Bytes []byte       `json:"bytes,omitempty"` // bytes (base64 in JSON)
}

// FileDataKind says how a file's payload is held.
type FileDataKind string

// File payload kinds.
const (
	FileBytes  FileDataKind = "bytes"
	FileString FileDataKind = "string"
	FileURL    FileDataKind = "url"
)

// Size is the payload's length in bytes.
func (d *FileData) Size() int {
	if d == nil {
		return 0
	}
	return len(d.Bytes) + len(d.Value)
}
