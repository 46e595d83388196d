package session

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// OriginalKey is the member a repaired options object carries with its original bytes.
//
// The archive's columns hold UTF-8 text (Arrow refuses anything else), but agents' files may
// hold invalid UTF-8 inside a JSON string, which JSON parsers accept. The validator repairs every
// value: invalid bytes become U+FFFD. An options object (where adapters keep the raw source
// record, options.source) also keeps its bytes as written, base64-encoded under OriginalKey, so
// that a native restore gives back the record byte for byte (Original).
const OriginalKey = "pond_original_base64"

// Original is the value an options object had before the validator repaired its UTF-8, and true;
// or raw itself and false when it was not repaired.
func Original(raw json.RawMessage) (json.RawMessage, bool) {
	if !bytes.Contains(raw, []byte(`"`+OriginalKey+`"`)) {
		return raw, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw, false
	}
	var enc string
	if json.Unmarshal(m[OriginalKey], &enc) != nil {
		return raw, false
	}
	orig, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || !json.Valid(orig) {
		return raw, false
	}
	return orig, true
}

// validText is s with every invalid UTF-8 sequence replaced by U+FFFD.
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// validJSON is v (valid JSON) with invalid UTF-8 replaced by U+FFFD. In valid JSON such bytes
// can only be inside strings, so the result is still valid JSON.
func validJSON(v json.RawMessage) json.RawMessage {
	if utf8.Valid(v) {
		return v
	}
	return bytes.ToValidUTF8(v, []byte("\uFFFD"))
}

// repairOptions repairs the UTF-8 of every options entry; an object keeps its original bytes
// under OriginalKey (an entry of another kind is only repaired: adapters keep records in
// objects).
func repairOptions(o Options) {
	for k, v := range o {
		if utf8.Valid(v) {
			continue
		}
		fixed := bytes.TrimSpace(validJSON(v))
		if len(fixed) < 2 || fixed[0] != '{' {
			o[k] = fixed
			continue
		}
		orig, _ := json.Marshal(base64.StdEncoding.EncodeToString(v))
		b := make([]byte, 0, len(fixed)+len(orig)+len(OriginalKey)+4)
		b = append(b, fixed[:len(fixed)-1]...)
		if len(bytes.TrimSpace(fixed[1:len(fixed)-1])) > 0 {
			b = append(b, ',')
		}
		b = append(b, `"`+OriginalKey+`":`...)
		b = append(b, orig...)
		o[k] = append(b, '}')
	}
}

// repairKeys makes an event's identity valid UTF-8 (CheckKeys), so that its key is the one
// stored.
func repairKeys(e *Event) {
	switch {
	case e.Session != nil:
		s := e.Session
		s.ID, s.ParentSessionID, s.ParentMessageID = validText(s.ID), validText(s.ParentSessionID), validText(s.ParentMessageID)
		s.SourceAgent = validText(s.SourceAgent)
	case e.Message != nil:
		m := e.Message
		m.SessionID, m.ID, m.Role = validText(m.SessionID), validText(m.ID), Role(validText(string(m.Role)))
	case e.Part != nil:
		p := e.Part
		p.SessionID, p.MessageID, p.ID = validText(p.SessionID), validText(p.MessageID), validText(p.ID)
		p.Type, p.Provenance = PartType(validText(string(p.Type))), Provenance(validText(string(p.Provenance)))
	}
}

// repairContent makes every other text of an event valid UTF-8 (CheckContent).
func repairContent(e *Event) {
	switch {
	case e.Session != nil:
		e.Session.Project = validText(e.Session.Project)
		repairOptions(e.Session.Options)
	case e.Message != nil:
		e.Message.Content = validText(e.Message.Content)
		repairOptions(e.Message.Options)
	case e.Part != nil:
		p := e.Part
		p.Text, p.MediaType, p.FileName = validText(p.Text), validText(p.MediaType), validText(p.FileName)
		p.CallID, p.Name, p.ApprovalID = validText(p.CallID), validText(p.Name), validText(p.ApprovalID)
		p.ToolCallID, p.Reason = validText(p.ToolCallID), validText(p.Reason)
		p.Params, p.Result = validJSON(p.Params), validJSON(p.Result)
		if p.Data != nil && p.Data.Kind != FileBytes && !utf8.ValidString(p.Data.Value) {
			p.Data = &FileData{Kind: p.Data.Kind, Value: validText(p.Data.Value), Bytes: p.Data.Bytes}
		}
		repairOptions(p.Options)
	}
}
