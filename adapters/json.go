package adapters

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// MaxDepth is how deeply a record's objects and lists may nest. A deeper record is malformed:
// reported, never read (and never a stack overflow). It is the bound jsontext keeps on
// everything it reads or skips, and encoding/json's own, so that a record accepted here is one
// every later reader of the archive (the validator, restore) can decode.
const MaxDepth = 10000

// ErrNotObject says a record is valid JSON but not an object.
var ErrNotObject = errors.New("not a JSON object")

// A Node is a JSON value read in one pass: an object's members as written, with those its
// Shape names read along as Nodes, a list's elements, and a string's value when the shape
// decodes it. Everything as written is a slice of the document, not a copy.
//
// Decoding a record into map[string]json.RawMessage, then each value it needs into another map
// or a struct, scans a nested value once per level above it (json.Unmarshal validates its whole
// input before decoding it): a tool output inside a content item inside a payload inside a line
// is read five or six times. ReadNode reads the document once with a streaming decoder
// (jsontext), keeping what it does not walk as written. Objects behave as maps do: keys match
// exactly, and of a repeated key the last is kept, where a struct would match keys without
// regard to case. Invalid UTF-8 reads as U+FFFD, as encoding/json reads it.
type Node struct {
	Raw     json.RawMessage  // the value as written
	Members Members          // an object's members as written; nil when not an object
	Kids    map[string]*Node // the members read along
	Elems   []*Node          // a list's elements; nil when not a list
	Text    string           // a string's value, when decoded
	IsText  bool             // Text was decoded
}

// A Shape says how a value is read along: which members of an object are read as Nodes (and
// how), whether a string is decoded. A list's elements are read with the list's shape. A shape
// may contain itself.
type Shape struct {
	Members map[string]*Shape
	Text    bool
}

// noShape reads an object's members as written and nothing along.
var noShape = &Shape{}

// ReadNode reads a JSON document as sh says (nil: the members of an object as written). An
// error means the document is not valid JSON, and says why as encoding/json would.
func ReadNode(data []byte, sh *Shape) (*Node, error) {
	d := decoders.Get().(*decoder)
	defer d.release()
	d.reset(data)
	n, err := d.node(sh)
	if err == nil {
		err = d.end()
	}
	if err != nil {
		return nil, syntaxError(data, err)
	}
	return n, nil
}

// ReadObject reads a document that must be a JSON object: an error is ErrNotObject for other
// valid JSON, else why it is not valid JSON.
func ReadObject(data []byte, sh *Shape) (*Node, error) {
	n, err := ReadNode(data, sh)
	if err == nil && n.Members == nil {
		return nil, ErrNotObject
	}
	return n, err
}

// EachMember calls fn with each member of the object raw in recorded order, its value as
// written and the value's offset in raw. It returns an error when raw is not a valid JSON
// object; fn's error stops it.
func EachMember(raw []byte, fn func(key string, val json.RawMessage, at int) error) error {
	d := decoders.Get().(*decoder)
	defer d.release()
	d.reset(raw)
	err := d.object(func(key string) error {
		v, err := d.dec.ReadValue()
		if err != nil {
			return err
		}
		return fn(key, json.RawMessage(v), int(d.dec.InputOffset())-len(v))
	})
	if err == nil {
		err = d.end()
	}
	return err
}

// EachElem calls fn with each element of the list raw, as written, and its offset in raw. It
// returns an error when raw is not a valid JSON list; fn's error stops it.
func EachElem(raw []byte, fn func(val json.RawMessage, at int) error) error {
	d := decoders.Get().(*decoder)
	defer d.release()
	d.reset(raw)
	err := d.list(func() error {
		v, err := d.dec.ReadValue()
		if err != nil {
			return err
		}
		return fn(json.RawMessage(v), int(d.dec.InputOffset())-len(v))
	})
	if err == nil {
		err = d.end()
	}
	return err
}

// decoder reads one document held in memory; values it returns are slices of the document
// (jsontext reads a bytes.Buffer in place, without copying or overwriting it).
type decoder struct {
	buf  bytes.Buffer
	dec  jsontext.Decoder
	data []byte
}

var decoders = sync.Pool{New: func() any { return new(decoder) }}

// decodeOptions keep encoding/json's reading: a repeated key is not an error (the last one
// counts), invalid UTF-8 reads as U+FFFD.
var decodeOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

func (d *decoder) reset(data []byte) {
	d.data = data
	d.buf = *bytes.NewBuffer(data)
	d.dec.Reset(&d.buf, decodeOptions...)
}

func (d *decoder) release() {
	d.data = nil
	d.buf = bytes.Buffer{}
	d.dec.Reset(&d.buf)
	decoders.Put(d)
}

// end checks that nothing but white space follows the value read.
func (d *decoder) end() error {
	_, err := d.dec.ReadToken()
	switch {
	case err == io.EOF:
		return nil
	case err == nil:
		return errors.New("data after the JSON value")
	}
	return err
}

// object reads an object, calling member with each key; member must read the value.
func (d *decoder) object(member func(key string) error) error {
	tok, err := d.dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '{' {
		return ErrNotObject
	}
	for d.dec.PeekKind() != '}' {
		name, err := d.dec.ReadToken()
		if err != nil {
			return err
		}
		if err := member(name.String()); err != nil {
			return err
		}
	}
	_, err = d.dec.ReadToken()
	return err
}

// list reads a list, calling elem for each element; elem must read it.
func (d *decoder) list(elem func() error) error {
	tok, err := d.dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '[' {
		return errors.New("not a JSON list")
	}
	for d.dec.PeekKind() != ']' {
		if err := elem(); err != nil {
			return err
		}
	}
	_, err = d.dec.ReadToken()
	return err
}

// node reads the next value as sh says.
func (d *decoder) node(sh *Shape) (*Node, error) {
	if sh == nil {
		sh = noShape
	}
	n := &Node{}
	switch d.dec.PeekKind() {
	case '{':
		start := int(d.dec.InputOffset())
		n.Members = Members{}
		err := d.object(func(key string) error {
			if ksh := sh.Members[key]; ksh != nil {
				kid, err := d.node(ksh)
				if err != nil {
					return err
				}
				if n.Kids == nil {
					n.Kids = map[string]*Node{}
				}
				n.Kids[key], n.Members[key] = kid, kid.Raw
				return nil
			}
			v, err := d.dec.ReadValue()
			n.Members[key] = json.RawMessage(v)
			return err
		})
		if err != nil {
			return nil, err
		}
		n.Raw = d.since(start)
	case '[':
		start := int(d.dec.InputOffset())
		n.Elems = []*Node{}
		err := d.list(func() error {
			el, err := d.node(sh)
			if err != nil {
				return err
			}
			n.Elems = append(n.Elems, el)
			return nil
		})
		if err != nil {
			return nil, err
		}
		n.Raw = d.since(start)
	default:
		v, err := d.dec.ReadValue()
		if err != nil {
			return nil, err
		}
		n.Raw = json.RawMessage(v)
		if sh.Text && v.Kind() == '"' {
			n.Text, n.IsText = unquote(v), true
		}
	}
	return n, nil
}

// since is the document from the white space before a value started at start (the offset
// before reading it) to where reading stopped: the value as written.
func (d *decoder) since(start int) json.RawMessage {
	end := int(d.dec.InputOffset())
	for start < end {
		switch d.data[start] {
		case ' ', '\t', '\r', '\n', ':', ',':
			start++
			continue
		}
		break
	}
	return d.data[start:end]
}

// syntaxError words why data is not valid JSON as encoding/json does (adapters have always
// reported its words), falling back to jsontext's own.
func syntaxError(data []byte, err error) error {
	if errors.Is(err, ErrNotObject) {
		return err
	}
	var v json.RawMessage
	if uerr := json.Unmarshal(data, &v); uerr != nil {
		return uerr
	}
	return err
}
