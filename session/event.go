package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Kind names what an Event carries.
type Kind string

// Event kinds.
const (
	KindSession Kind = "session"
	KindMessage Kind = "message"
	KindPart    Kind = "part"
)

// Event is one Session, Message or Part in a stream: what adapters emit, what the ingest route
// accepts and what `pond export` writes, one JSON object per line with a "kind" field.
// A stream lists a session before its messages and a message before its parts.
type Event struct {
	Session *Session
	Message *Message
	Part    *Part
}

// Kind is the kind of object the event carries.
func (e Event) Kind() Kind {
	switch {
	case e.Session != nil:
		return KindSession
	case e.Message != nil:
		return KindMessage
	case e.Part != nil:
		return KindPart
	}
	return ""
}

// Size estimates what the event weighs in memory: its values plus a fixed overhead. Writers
// bound their batches by it.
func (e Event) Size() int64 {
	n := 256
	var o Options
	switch {
	case e.Session != nil:
		o = e.Session.Options
	case e.Message != nil:
		o, n = e.Message.Options, n+len(e.Message.Content)
	case e.Part != nil:
		p := e.Part
		o = p.Options
		n += len(p.Text) + len(p.Params) + len(p.Result) + p.Data.Size()
	}
	for _, v := range o {
		n += len(v)
	}
	return int64(n)
}

// Key identifies the object within the archive: sessions by id, messages by (session, id),
// parts by (session, message, id). Forks and compaction successors replay their parent's
// message ids, so message and part keys are always scoped by session.
type Key struct {
	SessionID string `json:"session_id"`
	MessageID string `json:"message_id,omitempty"`
	PartID    string `json:"part_id,omitempty"`
}

func (k Key) String() string {
	switch {
	case k.PartID != "":
		return k.SessionID + "/" + k.MessageID + "/" + k.PartID
	case k.MessageID != "":
		return k.SessionID + "/" + k.MessageID
	}
	return k.SessionID
}

// Key is the event's archive key.
func (e Event) Key() Key {
	switch {
	case e.Session != nil:
		return Key{SessionID: e.Session.ID}
	case e.Message != nil:
		return Key{SessionID: e.Message.SessionID, MessageID: e.Message.ID}
	case e.Part != nil:
		return Key{SessionID: e.Part.SessionID, MessageID: e.Part.MessageID, PartID: e.Part.ID}
	}
	return Key{}
}

// MarshalJSON writes the object's fields with a leading "kind".
func (e Event) MarshalJSON() ([]byte, error) {
	var obj any
	switch e.Kind() {
	case KindSession:
		obj = e.Session
	case KindMessage:
		obj = e.Message
	case KindPart:
		obj = e.Part
	default:
		return nil, errors.New("session: empty event")
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`{"kind":"`)
	b.WriteString(string(e.Kind()))
	b.WriteString(`"`)
	if len(body) > 2 {
		b.WriteByte(',')
		b.Write(body[1:])
	} else {
		b.WriteByte('}')
	}
	return b.Bytes(), nil
}

// UnmarshalJSON reads an object written by MarshalJSON. Unknown fields are an error, so a
// misspelt field is reported rather than silently dropped.
func (e *Event) UnmarshalJSON(data []byte) error {
	var head struct {
		Kind Kind `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	*e = Event{}
	var dst any
	switch head.Kind {
	case KindSession:
		e.Session = &Session{}
		dst = &struct {
			Kind Kind `json:"kind"`
			*Session
		}{Session: e.Session}
	case KindMessage:
		e.Message = &Message{}
		dst = &struct {
			Kind Kind `json:"kind"`
			*Message
		}{Message: e.Message}
	case KindPart:
		e.Part = &Part{}
		dst = &struct {
			Kind Kind `json:"kind"`
			*Part
		}{Part: e.Part}
	case "":
		return errors.New(`event has no "kind" (want session, message or part)`)
	default:
		return fmt.Errorf("unknown event kind %q (want session, message or part)", head.Kind)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}
