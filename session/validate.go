package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// DefaultMaxValueBytes caps any single value (a text, tool parameters, a tool result, a file
// payload, one options entry). A larger value is replaced by a marker recording its size.
const DefaultMaxValueBytes = 8 << 20

// ValidationError says what is wrong with one event.
type ValidationError struct {
	Kind   Kind
	Key    Key
	Field  string
	Reason string
}

func (e *ValidationError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("invalid %s %s: %s", e.Kind, e.Key, e.Reason)
	}
	return fmt.Sprintf("invalid %s %s: %s: %s", e.Kind, e.Key, e.Field, e.Reason)
}

// Validator checks a stream of events in order and normalises each in place: times become UTC
// at microsecond precision (what the store keeps), invalid UTF-8 becomes U+FFFD (an options
// object keeps its original bytes: OriginalKey), oversized values become truncation markers, and
// caller-supplied ingest provenance is removed (the store stamps its own). The same
// validator guards adapters' output, the ingest route and `pond import`.
//
// It checks in two stages. CheckKeys is the cheap one: identity, order and the closed sets
// (roles, part types, provenance). CheckContent reads the values: JSON validity of raw records,
// parameters and results, and the size cap. A writer runs CheckKeys on everything, looks the keys
// up, and runs CheckContent only on what it will insert: re-ingesting an archive does not
// re-read its gigabytes of stored content. Check runs both.
//
// At either stage a rejected session takes its messages with it, and a rejected message its
// parts: they are rejected when they come.
type Validator struct {
	// MaxValueBytes caps a single value; 0 means DefaultMaxValueBytes.
	MaxValueBytes int
	// Untrusted marks rows from outside this machine's adapters (the ingest route, an import).
	// Their options.source (the agent's own records, which a native restore replays) and
	// options.pond (what Pond records: a restore's origin, truncations) are not believed: both
	// are kept apart, whole, under options.untrusted, where nothing reads them back as the
	// agent's or Pond's own.
	Untrusted bool
	// AgentFamily, when set, is the only source_agent family (the part before a slash) the rows
	// may claim: a session claiming another (the API sending "claude-code") gets AgentFamily
	// itself, and the claim is kept under options.untrusted.source_agent. Not as a sub-kind:
	// "api/claude-code" would read as a sub-agent session, which search leaves out.
	AgentFamily string
	// KeepIngest keeps the options.pond.ingest a message carries instead of stripping it: rows
	// an archive writes back (pond redact --all) or copies from another Pond archive (pond copy)
	// carry its record of who captured them, which is the truth about them, not a caller's
	// claim.
	KeepIngest bool

	sessions map[string]bool   // passed CheckKeys
	claimed  map[string]string // session id -> the source_agent it claimed outside AgentFamily
	messages map[Key]bool      // passed CheckKeys
	rejected map[Key]bool      // sessions and messages CheckContent rejected
}

// Check validates e against the stream so far.
func (v *Validator) Check(e *Event) error {
	if err := v.CheckKeys(e); err != nil {
		return err
	}
	return v.CheckContent(e)
}

func invalid(e *Event, field, format string, args ...any) error {
	return &ValidationError{Kind: e.Kind(), Key: e.Key(), Field: field, Reason: fmt.Sprintf(format, args...)}
}

// CheckKeys validates e's identity and place in the stream (a session before its messages, a
// message before its parts) and normalises its times.
func (v *Validator) CheckKeys(e *Event) error {
	if v.sessions == nil {
		v.sessions = map[string]bool{}
		v.messages = map[Key]bool{}
	}
	repairKeys(e)
	switch e.Kind() {
	case KindSession:
		s := e.Session
		if err := CheckID(s.ID); err != nil {
			return invalid(e, "id", "%v", err)
		}
		if s.ParentSessionID != "" {
			if err := CheckID(s.ParentSessionID); err != nil {
				return invalid(e, "parent_session_id", "%v", err)
			}
		}
		switch {
		case s.SourceAgent == "":
			return invalid(e, "source_agent", "missing")
		case strings.TrimSpace(s.Project) == "":
			return invalid(e, "project", "missing (the working directory, or the agent's equivalent)")
		case s.CreatedAt.IsZero():
			return invalid(e, "created_at", "missing")
		case s.ParentMessageID != "" && s.ParentSessionID == "":
			return invalid(e, "parent_message_id", "set without parent_session_id")
		case s.ParentSessionID == s.ID:
			return invalid(e, "parent_session_id", "names the session itself")
		}
		if f := v.AgentFamily; f != "" && s.SourceAgent != f && !strings.HasPrefix(s.SourceAgent, f+"/") {
			if v.claimed == nil {
				v.claimed = map[string]string{}
			}
			v.claimed[s.ID] = s.SourceAgent
			s.SourceAgent = f
		}
		s.CreatedAt = normTime(s.CreatedAt)
		v.sessions[s.ID] = true
	case KindMessage:
		m := e.Message
		switch {
		case m.SessionID == "":
			return invalid(e, "session_id", "missing")
		case m.ID == "":
			return invalid(e, "id", "missing")
		case !v.sessions[m.SessionID]:
			return invalid(e, "", "comes before its session %s", m.SessionID)
		case !validRole(m.Role):
			return invalid(e, "role", "unknown role %q (want system, user, assistant or tool)", m.Role)
		case m.Timestamp.IsZero():
			return invalid(e, "timestamp", "missing")
		}
		m.Timestamp = normTime(m.Timestamp)
		v.messages[e.Key()] = true
	case KindPart:
		p := e.Part
		switch {
		case p.SessionID == "" || p.MessageID == "":
			return invalid(e, "", "missing session_id or message_id")
		case p.ID == "":
			return invalid(e, "id", "missing")
		case !v.messages[Key{SessionID: p.SessionID, MessageID: p.MessageID}]:
			return invalid(e, "", "comes before its message %s/%s", p.SessionID, p.MessageID)
		case !slices.Contains(PartTypes, p.Type):
			return invalid(e, "type", "unknown part type %q", p.Type)
		case p.Provenance != Conversational && p.Provenance != Injected:
			return invalid(e, "provenance", "must be conversational or injected, got %q", p.Provenance)
		case p.Ordinal < 0:
			return invalid(e, "ordinal", "negative")
		}
	default:
		return &ValidationError{Reason: "empty event"}
	}
	return nil
}

// CheckContent validates e's values and normalises them: oversized values become truncation
// markers and ingest provenance a caller sent is dropped. It rejects a message whose session,
// or a part whose message, it rejected before.
func (v *Validator) CheckContent(e *Event) error {
	if v.rejected == nil {
		v.rejected = map[Key]bool{}
	}
	var err error
	switch e.Kind() {
	case KindMessage:
		if v.rejected[Key{SessionID: e.Message.SessionID}] {
			err = invalid(e, "", "its session was rejected")
		}
	case KindPart:
		if v.rejected[Key{SessionID: e.Part.SessionID, MessageID: e.Part.MessageID}] {
			err = invalid(e, "", "its message was rejected")
		}
	}
	if err == nil {
		repairContent(e)
		err = v.checkValues(e)
	}
	if k := e.Kind(); err != nil && (k == KindSession || k == KindMessage) {
		v.rejected[e.Key()] = true
	}
	return err
}

// checkValues validates and normalises e's values.
func (v *Validator) checkValues(e *Event) error {
	max := v.MaxValueBytes
	if max <= 0 {
		max = DefaultMaxValueBytes
	}
	switch e.Kind() {
	case KindSession:
		s := e.Session
		if k := badOption(s.Options); k != "" {
			return invalid(e, "options."+k, "not valid JSON")
		}
		if v.Untrusted || v.claimed[s.ID] != "" {
			s.Options = keepApart(s.Options, v.claimed[s.ID])
		}
		capOptions(s.Options, max)
	case KindMessage:
		m := e.Message
		if k := badOption(m.Options); k != "" {
			return invalid(e, "options."+k, "not valid JSON")
		}
		if v.Untrusted {
			m.Options = keepApart(m.Options, "")
		}
		m.Content = capText(m.Content, max, ensure(&m.Options), "content")
		if !v.KeepIngest {
			stripIngest(m.Options)
		}
		capOptions(m.Options, max)
		if len(m.Options) == 0 {
			m.Options = nil
		}
	case KindPart:
		p := e.Part
		if err := checkVariant(p); err != "" {
			return invalid(e, "", "%s", err)
		}
		if k := badOption(p.Options); k != "" {
			return invalid(e, "options."+k, "not valid JSON")
		}
		if v.Untrusted {
			p.Options = keepApart(p.Options, "")
		}
		p.Text = capText(p.Text, max, ensure(&p.Options), "text")
		p.Params = capJSON(p.Params, max, p.Options, "params")
		p.Result = capJSON(p.Result, max, p.Options, "result")
		if p.Data != nil && p.Data.Size() > max {
			markTruncated(p.Options, "data", p.Data.Size())
			p.Data = &FileData{Kind: p.Data.Kind, Value: truncationMarker(p.Data.Size())}
		}
		capOptions(p.Options, max)
		if len(p.Options) == 0 {
			p.Options = nil
		}
	default:
		return &ValidationError{Reason: "empty event"}
	}
	return nil
}

func validRole(r Role) bool {
	return r == RoleSystem || r == RoleUser || r == RoleAssistant || r == RoleTool
}

// checkVariant reports a part whose fields do not fit its type.
func checkVariant(p *Part) string {
	switch p.Type {
	case PartFile:
		if p.Data == nil {
			return "a file part needs data"
		}
		switch p.Data.Kind {
		case FileBytes, FileString, FileURL:
		default:
			return fmt.Sprintf("file data kind %q (want bytes, string or url)", p.Data.Kind)
		}
	case PartToolCall:
		if len(p.Params) > 0 && !wellFormed(p.Params) {
			return "tool_call params are not valid JSON"
		}
	case PartToolResult:
		if len(p.Result) > 0 && !wellFormed(p.Result) {
			return "tool_result result is not valid JSON"
		}
	case PartToolApprovalRequest, PartToolApprovalResponse:
		if p.ApprovalID == "" {
			return "an approval part needs approval_id"
		}
	}
	return ""
}

// normTime is t in UTC at the microsecond precision the store keeps.
func normTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func truncationMarker(n int) string {
	return fmt.Sprintf("[pond: value of %d bytes not stored: above the per-value cap]", n)
}

func ensure(o *Options) Options {
	if *o == nil {
		*o = Options{}
	}
	return *o
}

// markTruncated records in options.pond.truncated which field was replaced and its size.
func markTruncated(o Options, field string, size int) {
	var pond map[string]json.RawMessage
	if raw, ok := o["pond"]; ok {
		_ = json.Unmarshal(raw, &pond)
	}
	if pond == nil {
		pond = map[string]json.RawMessage{}
	}
	var trunc map[string]int
	if raw, ok := pond["truncated"]; ok {
		_ = json.Unmarshal(raw, &trunc)
	}
	if trunc == nil {
		trunc = map[string]int{}
	}
	trunc[field] = size
	pond["truncated"], _ = json.Marshal(trunc)
	o["pond"], _ = json.Marshal(pond)
}

func capText(s string, max int, o Options, field string) string {
	if len(s) <= max {
		return s
	}
	markTruncated(o, field, len(s))
	return truncationMarker(len(s))
}

func capJSON(v json.RawMessage, max int, o Options, field string) json.RawMessage {
	if len(v) <= max {
		return v
	}
	markTruncated(o, field, len(v))
	b, _ := json.Marshal(map[string]any{"pond_truncated_bytes": len(v)})
	return b
}

// badOption names an options entry that is not valid JSON ("" when all are).
func badOption(o Options) string {
	for k, v := range o {
		if !wellFormed(v) {
			return k
		}
	}
	return ""
}

// capOptions replaces oversized option values; the marker names the key it replaced.
func capOptions(o Options, max int) {
	for k, v := range o {
		if len(v) > max {
			o[k], _ = json.Marshal(map[string]any{"pond_truncated_bytes": len(v)})
		}
	}
}

// stripIngest removes options.pond.ingest: ingest provenance is stamped by the store, never
// accepted from a caller.
func stripIngest(o Options) {
	raw, ok := o["pond"]
	if !ok {
		return
	}
	var pond map[string]json.RawMessage
	if json.Unmarshal(raw, &pond) != nil {
		delete(o, "pond")
		return
	}
	if _, ok := pond["ingest"]; !ok {
		return
	}
	delete(pond, "ingest")
	if len(pond) == 0 {
		delete(o, "pond")
		return
	}
	o["pond"], _ = json.Marshal(pond)
}

// UntrustedKey is the options entry that keeps an untrusted row's options.source and
// options.pond (Validator.Untrusted), an options.untrusted it already had, and the source_agent
// it claimed outside Validator.AgentFamily, as they came.
const UntrustedKey = "untrusted"

// keepApart moves o's pond, source and untrusted entries under options.untrusted, each value
// byte for byte (json.Marshal would compact them), with the claimed source_agent when set.
func keepApart(o Options, claimedAgent string) Options {
	var apart []byte
	add := func(k string, raw []byte) {
		if apart == nil {
			apart = []byte{'{'}
		} else {
			apart = append(apart, ',')
		}
		apart = append(apart, `"`+k+`":`...)
		apart = append(apart, raw...)
	}
	o = o.Clone()
	if o == nil {
		o = Options{}
	}
	for _, k := range []string{"pond", "source", UntrustedKey} {
		if raw, ok := o[k]; ok {
			add(k, raw)
			delete(o, k)
		}
	}
	if claimedAgent != "" {
		b, _ := json.Marshal(claimedAgent)
		add("source_agent", b)
	}
	if apart == nil {
		if len(o) == 0 {
			return nil
		}
		return o
	}
	o[UntrustedKey] = append(apart, '}')
	return o
}
