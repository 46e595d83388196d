package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store/sqlite"
)

// isoMicro is how times appear in the SQL mirror: fixed width, so text order is time order.
const isoMicro = "2006-01-02T15:04:05.000000Z"

func isoTime(t time.Time) string { return t.UTC().Format(isoMicro) }

// encodeJSON renders v compactly without HTML escaping, so raw records keep their characters.
func encodeJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("store: encode %T: %v", v, err)) // only our own types reach here
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func optionsText(o session.Options) string {
	if len(o) == 0 {
		return ""
	}
	return encodeJSON(o)
}

// variant is a part's type-specific body: the verbatim content SQL sees as variant_data.
type variant struct {
	Text             *string         `json:"text,omitempty"`
	MediaType        string          `json:"media_type,omitempty"`
	FileName         string          `json:"file_name,omitempty"`
	Data             *variantData    `json:"data,omitempty"`
	CallID           string          `json:"call_id,omitempty"`
	Name             string          `json:"name,omitempty"`
	Params           json.RawMessage `json:"params,omitempty"`
	ProviderExecuted bool            `json:"provider_executed,omitempty"`
	IsFailure        *bool           `json:"is_failure,omitempty"`
	Result           json.RawMessage `json:"result,omitempty"`
	ApprovalID       string          `json:"approval_id,omitempty"`
	ToolCallID       string          `json:"tool_call_id,omitempty"`
	Approved         *bool           `json:"approved,omitempty"`
	Reason           string          `json:"reason,omitempty"`
}

// variantData describes a file payload; inline bytes live in the parts.data column, not here.
type variantData struct {
	Kind  session.FileDataKind `json:"kind"`
	Value string               `json:"value,omitempty"`
	Bytes int                  `json:"bytes,omitempty"`
}

// partBody splits a part into its variant JSON and its binary payload.
func partBody(p *session.Part) (string, []byte) {
	var v variant
	switch p.Type {
	case session.PartText, session.PartReasoning:
		v.Text = &p.Text
	case session.PartFile:
		v.MediaType, v.FileName = p.MediaType, p.FileName
		if p.Data != nil {
			v.Data = &variantData{Kind: p.Data.Kind, Value: p.Data.Value, Bytes: len(p.Data.Bytes)}
		}
	case session.PartToolCall:
		v.CallID, v.Name, v.Params, v.ProviderExecuted = p.CallID, p.Name, p.Params, p.ProviderExecuted
	case session.PartToolResult:
		f := p.IsFailure
		v.CallID, v.Name, v.IsFailure, v.Result = p.CallID, p.Name, &f, p.Result
	case session.PartToolApprovalRequest:
		v.ApprovalID, v.ToolCallID = p.ApprovalID, p.ToolCallID
	case session.PartToolApprovalResponse:
		a := p.Approved
		v.ApprovalID, v.Approved, v.Reason = p.ApprovalID, &a, p.Reason
	}
	var data []byte
	if p.Data != nil && p.Data.Kind == session.FileBytes {
		data = p.Data.Bytes
	}
	return encodeJSON(v), data
}

// partFromBody rebuilds a part's type-specific fields from its stored body.
func partFromBody(p *session.Part, variantJSON string, data []byte) error {
	var v variant
	if variantJSON != "" {
		if err := json.Unmarshal([]byte(variantJSON), &v); err != nil {
			return fmt.Errorf("part %s: variant_data: %w", p.ID, err)
		}
	}
	if v.Text != nil {
		p.Text = *v.Text
	}
	p.MediaType, p.FileName = v.MediaType, v.FileName
	if v.Data != nil {
		p.Data = &session.FileData{Kind: v.Data.Kind, Value: v.Data.Value}
		if v.Data.Kind == session.FileBytes {
			p.Data.Bytes = data
			if p.Data.Bytes == nil {
				p.Data.Bytes = []byte{}
			}
		}
	}
	p.CallID, p.Name, p.Params, p.ProviderExecuted = v.CallID, v.Name, v.Params, v.ProviderExecuted
	if v.IsFailure != nil {
		p.IsFailure = *v.IsFailure
	}
	p.Result = v.Result
	p.ApprovalID, p.ToolCallID, p.Reason = v.ApprovalID, v.ToolCallID, v.Reason
	if v.Approved != nil {
		p.Approved = *v.Approved
	}
	return nil
}

// derived are the columns computed from a part for fast queries.
func derived(p *session.Part) (toolName, callID string, isFailure *bool) {
	switch p.Type {
	case session.PartToolCall:
		return p.Name, p.CallID, nil
	case session.PartToolResult:
		f := p.IsFailure
		return p.Name, p.CallID, &f
	case session.PartToolApprovalRequest:
		return "", p.ToolCallID, nil
	}
	return "", "", nil
}

// batch is what one write adds, as Arrow records and mirror rows built together.
type batch struct {
	sessions []*session.Session
	messages []*session.Message
	parts    []*session.Part
	// searchText and labels of each new message, by index into messages.
	searchText []string
	agent      []string
	project    []string
	// body and data of each new part, by index into parts.
	body []string
	data [][]byte
	seq  map[session.Key]int64
}

func (b *batch) sessionRecord(mem memory.Allocator) arrow.Record {
	rb := array.NewRecordBuilder(mem, sessionsSchema)
	defer rb.Release()
	for _, s := range b.sessions {
		appendStr(rb.Field(0), s.ID)
		appendOpt(rb.Field(1), s.ParentSessionID)
		appendOpt(rb.Field(2), s.ParentMessageID)
		appendStr(rb.Field(3), s.SourceAgent)
		appendStr(rb.Field(4), s.Project)
		rb.Field(5).(*array.Int64Builder).Append(s.CreatedAt.UnixMicro())
		appendOpt(rb.Field(6), optionsText(s.Options))
		rb.Field(7).(*array.Int64Builder).Append(b.seq[session.Key{SessionID: s.ID}])
	}
	return rb.NewRecord()
}

func (b *batch) messageRecord(mem memory.Allocator) arrow.Record {
	rb := array.NewRecordBuilder(mem, messagesSchema)
	defer rb.Release()
	for i, m := range b.messages {
		appendStr(rb.Field(0), m.SessionID)
		appendStr(rb.Field(1), m.ID)
		rb.Field(2).(*array.Int64Builder).Append(m.Timestamp.UnixMicro())
		appendStr(rb.Field(3), string(m.Role))
		appendStr(rb.Field(4), b.agent[i])
		appendStr(rb.Field(5), b.project[i])
		appendOpt(rb.Field(6), m.Content)
		appendOpt(rb.Field(7), b.searchText[i])
		rb.Field(8).AppendNull()
		rb.Field(9).AppendNull()
		appendOpt(rb.Field(10), optionsText(m.Options))
		rb.Field(11).(*array.Int64Builder).Append(b.seq[session.Key{SessionID: m.SessionID, MessageID: m.ID}])
	}
	return rb.NewRecord()
}

func (b *batch) partRecord(mem memory.Allocator) arrow.Record {
	rb := array.NewRecordBuilder(mem, partsSchema)
	defer rb.Release()
	for i, p := range b.parts {
		body, data := b.body[i], b.data[i]
		tool, call, fail := derived(p)
		appendStr(rb.Field(0), p.SessionID)
		appendStr(rb.Field(1), p.MessageID)
		appendStr(rb.Field(2), p.ID)
		rb.Field(3).(*array.Int32Builder).Append(int32(p.Ordinal))
		appendStr(rb.Field(4), string(p.Type))
		appendStr(rb.Field(5), string(p.Provenance))
		appendOpt(rb.Field(6), tool)
		appendOpt(rb.Field(7), call)
		if fail == nil {
			rb.Field(8).AppendNull()
		} else {
			rb.Field(8).(*array.BooleanBuilder).Append(*fail)
		}
		appendStr(rb.Field(9), body)
		if data == nil {
			rb.Field(10).AppendNull()
		} else {
			rb.Field(10).(*array.BinaryBuilder).Append(data)
		}
		appendOpt(rb.Field(11), optionsText(p.Options))
		rb.Field(12).(*array.Int64Builder).Append(b.seq[session.Key{SessionID: p.SessionID, MessageID: p.MessageID, PartID: p.ID}])
	}
	return rb.NewRecord()
}

// mirrorRows renders the batch for the SQLite mirror.
func (b *batch) mirrorRows() *sqlite.Rows {
	r := &sqlite.Rows{}
	for _, s := range b.sessions {
		r.Sessions = append(r.Sessions, sqlite.SessionRow{
			SessionID: s.ID, ParentSessionID: s.ParentSessionID, ParentMessageID: s.ParentMessageID,
			SourceAgent: s.SourceAgent, CreatedAt: isoTime(s.CreatedAt), Project: s.Project,
			Options: optionsText(s.Options), IngestSeq: b.seq[session.Key{SessionID: s.ID}],
		})
	}
	for i, m := range b.messages {
		r.Messages = append(r.Messages, sqlite.MessageRow{
			SessionID: m.SessionID, MessageID: m.ID, Timestamp: isoTime(m.Timestamp), Role: string(m.Role),
			SourceAgent: b.agent[i], Project: b.project[i], Content: m.Content, SearchText: b.searchText[i],
			Options: optionsText(m.Options), IngestSeq: b.seq[session.Key{SessionID: m.SessionID, MessageID: m.ID}],
		})
	}
	for i, p := range b.parts {
		body := b.body[i]
		tool, call, fail := derived(p)
		r.Parts = append(r.Parts, sqlite.PartRow{
			SessionID: p.SessionID, MessageID: p.MessageID, ID: p.ID, Ordinal: p.Ordinal,
			Type: string(p.Type), Provenance: string(p.Provenance), ToolName: tool, CallID: call, IsFailure: fail,
			VariantData: body, Options: optionsText(p.Options),
			IngestSeq: b.seq[session.Key{SessionID: p.SessionID, MessageID: p.MessageID, PartID: p.ID}],
		})
	}
	return r
}

func appendStr(b array.Builder, s string) { b.(*array.StringBuilder).Append(s) }

func appendOpt(b array.Builder, s string) {
	if s == "" {
		b.AppendNull()
		return
	}
	b.(*array.StringBuilder).Append(s)
}

// microTime is a stored microsecond timestamp as a UTC time.
func microTime(us int64) time.Time { return time.UnixMicro(us).UTC() }
