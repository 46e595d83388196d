package cline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/pondhq/pond/adapters"
)

// errNoMessages says a messages document is an object without a "messages" list.
var errNoMessages = errors.New(`no "messages" list`)

// Document is a messages file read leniently: Cline's SDK `{version, …, messages:[…], …}`,
// a legacy task's bare list, or Roo Code's `{version:2, messages:[…]}`.
type Document struct {
	// Envelope is every member of an object document but "messages", as written and in order;
	// nil for a bare list.
	Envelope []adapters.Field
	// Messages are the elements of the list, as written, up to the first one that is not
	// whole.
	Messages []json.RawMessage
	// Err is why reading stopped before the end (a file cut short by an interrupted write):
	// the messages before it are kept.
	Err error
	// ErrAt is the number of the element Err is in (0-based).
	ErrAt int
}

// ReadDocument walks a messages document once. A document that stops early (a stream cut
// short) keeps what came before, with Err set; one that is no list nor object is an error.
func ReadDocument(data []byte) (*Document, error) {
	d := &Document{}
	dec := jsontext.NewDecoder(bytes.NewBuffer(data), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	fail := func(err error) (*Document, error) {
		if len(d.Messages) == 0 && d.Envelope == nil {
			return nil, err
		}
		d.Err, d.ErrAt = err, len(d.Messages)
		return d, nil
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '[':
		if err := d.list(dec); err != nil {
			return fail(err)
		}
	case '{':
		d.Envelope = []adapters.Field{}
		found := false
		for dec.PeekKind() != '}' {
			if dec.PeekKind() == 0 {
				_, err := dec.ReadToken()
				return fail(orEOF(err))
			}
			k, err := dec.ReadToken()
			if err != nil {
				return fail(err)
			}
			key := k.String()
			if key == "messages" && dec.PeekKind() == '[' && !found {
				found = true
				d.Envelope = append(d.Envelope, adapters.Field{Key: key, Value: nil})
				if _, err := dec.ReadToken(); err != nil {
					return fail(err)
				}
				if err := d.list(dec); err != nil {
					return fail(err)
				}
				continue
			}
			v, err := dec.ReadValue()
			if err != nil {
				return fail(err)
			}
			d.Envelope = append(d.Envelope, adapters.Field{Key: key, Value: bytes.Clone(v)})
		}
		if _, err := dec.ReadToken(); err != nil {
			return fail(err)
		}
		if !found {
			return nil, errNoMessages
		}
	default:
		return nil, fmt.Errorf("a %v, not a list or an object", tok.Kind())
	}
	if _, err := dec.ReadToken(); err == nil {
		return fail(errors.New("more than one JSON value"))
	}
	return d, nil
}

// list reads the elements of a list whose opening bracket was read, and its closing one.
func (d *Document) list(dec *jsontext.Decoder) error {
	for dec.PeekKind() != ']' {
		if dec.PeekKind() == 0 {
			_, err := dec.ReadToken()
			return orEOF(err)
		}
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		d.Messages = append(d.Messages, bytes.Clone(v))
		if dec.StackDepth() > adapters.MaxDepth {
			return errors.New("nested too deeply")
		}
	}
	_, err := dec.ReadToken()
	return err
}

func orEOF(err error) error {
	if err == nil {
		return errors.New("unexpected end of the document")
	}
	return err
}

// EnvelopeRecord is the envelope as one JSON object, the messages member held as null in its
// place: what a capture keeps of the document besides its messages.
func (d *Document) EnvelopeRecord() json.RawMessage {
	fs := make([]adapters.Field, len(d.Envelope))
	for i, f := range d.Envelope {
		if f.Value == nil {
			f.Value = json.RawMessage("null")
		}
		fs[i] = f
	}
	return adapters.Object(fs...)
}

// BuildDocument writes a messages document back: the envelope's members in order, with the
// messages list in the place of its null "messages" member (at the end when it has none); a
// bare list when envelope is nil.
func BuildDocument(envelope json.RawMessage, messages []json.RawMessage) []byte {
	list := []byte{'['}
	for i, m := range messages {
		if i > 0 {
			list = append(list, ',')
		}
		list = append(list, m...)
	}
	list = append(list, ']')
	if envelope == nil {
		return list
	}
	var fs []adapters.Field
	placed := false
	err := adapters.EachMember(envelope, func(key string, val json.RawMessage, _ int) error {
		if key == "messages" && !placed {
			placed = true
			val = list
		}
		fs = append(fs, adapters.Field{Key: key, Value: val})
		return nil
	})
	if err != nil {
		fs = nil
	}
	if !placed {
		fs = append(fs, adapters.Field{Key: "messages", Value: list})
	}
	return adapters.Object(fs...)
}
