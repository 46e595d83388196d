package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unsafe"

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

// optionsText renders options as one JSON object with sorted keys. Values are written as they
// are: the validator has checked they are JSON, and re-compacting megabytes of raw records is
// the ingest path's largest cost.
func optionsText(o session.Options) string {
	if len(o) == 0 {
		return ""
	}
	keys := make([]string, 0, len(o))
	n := 2
	for k, v := range o {
		keys = append(keys, k)
		n += len(k) + len(v) + 4
	}
	slices.Sort(keys)
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = sqlite.AppendJSONString(b, k)
		b = append(b, ':')
		b = append(b, o[k]...)
	}
	return bytesString(append(b, '}'))
}

// bytesString is b as a string without a copy, for a buffer built to be that string and never
// written again: the text and tool bodies of a capture are its largest values, each built once.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

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

// partBody splits a part into its variant JSON and its binary payload. It is written by hand
// so that parameters and results (validated JSON, often large) are copied, not re-encoded.
func partBody(p *session.Part) (string, []byte) {
	b := make([]byte, 0, 64+len(p.Text)+len(p.Params)+len(p.Result))
	b = append(b, '{')
	field := func(k string) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, '"', ':')
	}
	str := func(k, v string) {
		if v != "" {
			field(k)
			b = sqlite.AppendJSONString(b, v)
		}
	}
	raw := func(k string, v json.RawMessage) {
		if len(v) > 0 {
			field(k)
			b = append(b, v...)
		}
	}
	boolean := func(k string, v bool) {
		field(k)
		b = strconv.AppendBool(b, v)
	}
	switch p.Type {
	case session.PartText, session.PartReasoning:
		field("text")
		b = sqlite.AppendJSONString(b, p.Text)
	case session.PartFile:
		str("media_type", p.MediaType)
		str("file_name", p.FileName)
		if p.Data != nil {
			field("data")
			b = append(b, []byte(encodeJSON(variantData{Kind: p.Data.Kind, Value: p.Data.Value, Bytes: len(p.Data.Bytes)}))...)
		}
	case session.PartToolCall:
		str("call_id", p.CallID)
		str("name", p.Name)
		raw("params", p.Params)
		if p.ProviderExecuted {
			boolean("provider_executed", true)
		}
	case session.PartToolResult:
		str("call_id", p.CallID)
		str("name", p.Name)
		boolean("is_failure", p.IsFailure)
		raw("result", p.Result)
	case session.PartToolApprovalRequest:
		str("approval_id", p.ApprovalID)
		str("tool_call_id", p.ToolCallID)
	case session.PartToolApprovalResponse:
		str("approval_id", p.ApprovalID)
		boolean("approved", p.Approved)
		str("reason", p.Reason)
	}
	b = append(b, '}')
	var data []byte
	if p.Data != nil && p.Data.Kind == session.FileBytes {
		data = p.Data.Bytes
	}
	return bytesString(b), data
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
	// options of each new row as JSON text, rendered once for both stores.
	sessionOpts, messageOpts, partOpts []string
	seq                                map[session.Key]int64
	// records encodes the messages' raw records for Lance (rawrecord.go).
	records recordEncoder
	// rewriteRecords are the stored messages whose new search text does not extend the old:
	// their raw records are written again with it (recomputeSearchText).
	rewriteRecords map[sqlite.MessageKey]bool
	// commits counts the Lance commits the batch made, per table.
	commits map[string]int
}

// renderOptions renders every new row's options once; Lance's records and the mirror's rows
// both carry them.
func (b *batch) renderOptions() {
	b.sessionOpts = make([]string, len(b.sessions))
	for i, s := range b.sessions {
		b.sessionOpts[i] = optionsText(s.Options)
	}
	b.messageOpts = make([]string, len(b.messages))
	for i, m := range b.messages {
		b.messageOpts[i] = optionsText(m.Options)
	}
	b.partOpts = make([]string, len(b.parts))
	for i, p := range b.parts {
		b.partOpts[i] = optionsText(p.Options)
	}
}

// chunks splits n rows into consecutive ranges of at most limit bytes each (by size), so that
// no single Arrow record (and its IPC copy) holds a whole large batch.
func chunks(n int, size func(i int) int, limit int) [][2]int {
	var out [][2]int
	lo, acc := 0, 0
	for i := 0; i < n; i++ {
		s := size(i)
		if i > lo && acc+s > limit {
			out = append(out, [2]int{lo, i})
			lo, acc = i, 0
		}
		acc += s
	}
	if lo < n {
		out = append(out, [2]int{lo, n})
	}
	return out
}

func (b *batch) sessionRecord(mem memory.Allocator, lo, hi int) arrow.Record {
	rb := array.NewRecordBuilder(mem, sessionsSchema)
	defer rb.Release()
	for i := lo; i < hi; i++ {
		s := b.sessions[i]
		appendStr(rb.Field(0), s.ID)
		appendOpt(rb.Field(1), s.ParentSessionID)
		appendOpt(rb.Field(2), s.ParentMessageID)
		appendStr(rb.Field(3), s.SourceAgent)
		appendStr(rb.Field(4), s.Project)
		rb.Field(5).(*array.Int64Builder).Append(s.CreatedAt.UnixMicro())
		appendOpt(rb.Field(6), b.sessionOpts[i])
		rb.Field(7).(*array.Int64Builder).Append(b.seq[session.Key{SessionID: s.ID}])
	}
	return rb.NewRecord()
}

// reserve sizes a record builder for rows lo..hi and its large columns for the bytes they will
// hold (by column index), so that no buffer grows by copying itself as rows are appended.
func reserve(rb *array.RecordBuilder, lo, hi int, columns map[int]func(i int) int) {
	rb.Reserve(hi - lo)
	for col, size := range columns {
		n := 0
		for i := lo; i < hi; i++ {
			n += size(i)
		}
		rb.Field(col).(interface{ ReserveData(int) }).ReserveData(n)
	}
}

func (b *batch) messageRecord(mem memory.Allocator, lo, hi int) arrow.Record {
	rb := array.NewRecordBuilder(mem, messagesAppendSchema)
	defer rb.Release()
	reserve(rb, lo, hi, map[int]func(int) int{
		6: func(i int) int { return len(b.messages[i].Content) },
		7: func(i int) int { return len(b.searchText[i]) },
		8: func(i int) int { return len(b.messageOpts[i]) },
	})
	for i := lo; i < hi; i++ {
		m := b.messages[i]
		appendStr(rb.Field(0), m.SessionID)
		appendStr(rb.Field(1), m.ID)
		rb.Field(2).(*array.Int64Builder).Append(m.Timestamp.UnixMicro())
		appendStr(rb.Field(3), string(m.Role))
		appendStr(rb.Field(4), b.agent[i])
		appendStr(rb.Field(5), b.project[i])
		appendOpt(rb.Field(6), m.Content)
		appendOpt(rb.Field(7), b.searchText[i])
		appendBytesOpt(rb.Field(8), b.records.encode(b.messageOpts[i], b.searchText[i]))
		rb.Field(9).(*array.Int64Builder).Append(b.seq[session.Key{SessionID: m.SessionID, MessageID: m.ID}])
	}
	return rb.NewRecord()
}

func (b *batch) partRecord(mem memory.Allocator, lo, hi int) arrow.Record {
	rb := array.NewRecordBuilder(mem, partsSchema)
	defer rb.Release()
	reserve(rb, lo, hi, map[int]func(int) int{
		9:  func(i int) int { return len(b.body[i]) },
		10: func(i int) int { return len(b.data[i]) },
		11: func(i int) int { return len(b.partOpts[i]) },
	})
	for i := lo; i < hi; i++ {
		p := b.parts[i]
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
		appendOpt(rb.Field(11), b.partOpts[i])
		rb.Field(12).(*array.Int64Builder).Append(b.seq[session.Key{SessionID: p.SessionID, MessageID: p.MessageID, PartID: p.ID}])
	}
	return rb.NewRecord()
}

// mirrorRows renders the batch for the SQLite mirror.
func (b *batch) mirrorRows() *sqlite.Rows {
	r := &sqlite.Rows{}
	for i, s := range b.sessions {
		r.Sessions = append(r.Sessions, sqlite.SessionRow{
			SessionID: s.ID, ParentSessionID: s.ParentSessionID, ParentMessageID: s.ParentMessageID,
			SourceAgent: s.SourceAgent, CreatedAt: isoTime(s.CreatedAt), Project: s.Project,
			Options: b.sessionOpts[i], IngestSeq: b.seq[session.Key{SessionID: s.ID}],
		})
	}
	for i, m := range b.messages {
		r.Messages = append(r.Messages, sqlite.MessageRow{
			SessionID: m.SessionID, MessageID: m.ID, Timestamp: isoTime(m.Timestamp), Role: string(m.Role),
			SourceAgent: b.agent[i], Project: b.project[i], Content: m.Content, SearchText: b.searchText[i],
			Options: b.messageOpts[i], IngestSeq: b.seq[session.Key{SessionID: m.SessionID, MessageID: m.ID}],
		})
	}
	for i, p := range b.parts {
		body := b.body[i]
		tool, call, fail := derived(p)
		r.Parts = append(r.Parts, sqlite.PartRow{
			SessionID: p.SessionID, MessageID: p.MessageID, ID: p.ID, Ordinal: p.Ordinal,
			Type: string(p.Type), Provenance: string(p.Provenance), ToolName: tool, CallID: call, IsFailure: fail,
			VariantData: body, Options: b.partOpts[i],
			IngestSeq: b.seq[session.Key{SessionID: p.SessionID, MessageID: p.MessageID, PartID: p.ID}],
		})
	}
	return r
}

func appendStr(b array.Builder, s string) { b.(*array.StringBuilder).Append(s) }

// appendBytesOpt appends v to a string column, nil or empty as null.
func appendBytesOpt(b array.Builder, v []byte) {
	if len(v) == 0 {
		b.AppendNull()
		return
	}
	b.(*array.StringBuilder).BinaryBuilder.Append(v)
}

func appendOpt(b array.Builder, s string) {
	if s == "" {
		b.AppendNull()
		return
	}
	b.(*array.StringBuilder).Append(s)
}

// microTime is a stored microsecond timestamp as a UTC time.
func microTime(us int64) time.Time { return time.UnixMicro(us).UTC() }
