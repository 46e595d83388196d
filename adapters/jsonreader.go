package adapters

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// JSONReader reads one JSON document value by value, so that a record is scanned once.
//
// Decoding a record into map[string]json.RawMessage, then each value it needs into another map
// or a struct, scans a nested value once per level above it (json.Unmarshal validates its whole
// input before decoding it): a tool output inside a content item inside a payload inside a line
// is read five or six times. A JSONReader walks the document with one json.Decoder: each value is
// read once, decoded straight into the type it is needed as, and is still available as written
// (Start and Since). Objects read with Object behave as maps do: keys match exactly, and a
// repeated key is seen twice (the caller keeps the last), where a struct would match keys
// without regard to case.
//
// A document that is not valid JSON makes a method return an error; adapters then decode it
// with json.Unmarshal as before, for the same report.
type JSONReader struct {
	dec  *json.Decoder
	src  bytes.Reader // the document, as dec reads it
	data []byte
	base int64 // dec's offset where the document starts
}

// readers keeps the readers of documents read to their End: a json.Decoder that has read a value
// to the end of its input goes on with the next input as with a new one, and keeps its buffer.
var readers sync.Pool

// NewJSONReader reads data.
func NewJSONReader(data []byte) *JSONReader {
	r, _ := readers.Get().(*JSONReader)
	if r == nil {
		r = &JSONReader{}
		r.dec = json.NewDecoder(&r.src)
	}
	// The white space after the last document may still be buffered: this one comes after it.
	left, _ := io.Copy(io.Discard, r.dec.Buffered())
	r.src.Reset(data)
	r.data, r.base = data, r.dec.InputOffset()+left
	return r
}

// offset is where dec is in the document (before white space left from the last one: 0).
func (r *JSONReader) offset() int { return max(int(r.dec.InputOffset()-r.base), 0) }

// Start is where the next value starts in the document.
func (r *JSONReader) Start() int {
	i := r.offset()
	for i < len(r.data) {
		switch r.data[i] {
		case ' ', '\t', '\r', '\n', ':', ',':
			i++
			continue
		}
		break
	}
	return i
}

// Since is the document from start (a Start taken before a value) to the end of what was read
// since: that value as written. It is a slice of the document, not a copy.
func (r *JSONReader) Since(start int) json.RawMessage {
	end := r.offset()
	if end < start { // nothing was read: the document ended, or was malformed there
		return nil
	}
	return r.data[start:end]
}

// Next is the first byte of the next value ('{', '[', '"', 't', 'f', 'n', '-' or a digit), or
// of what ends the object or array being read; 0 at the end of the document.
func (r *JSONReader) Next() byte {
	if i := r.Start(); i < len(r.data) {
		return r.data[i]
	}
	return 0
}

// Decode reads the next value into v. A value of another JSON type than v's is not an error:
// encoding/json leaves what did not fit zero and decodes the rest, which is how the adapters
// read fields of an unexpected type (as absent).
func (r *JSONReader) Decode(v any) error {
	err := r.dec.Decode(v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

// String reads the next value as a string; ok is false, and the value skipped, when it is not
// one.
func (r *JSONReader) String() (s string, ok bool, err error) {
	if r.Next() != '"' {
		return "", false, r.Skip()
	}
	err = r.Decode(&s)
	return s, err == nil, err
}

// Raw reads the next value and returns it as written (a slice of the document).
func (r *JSONReader) Raw() (json.RawMessage, error) {
	start := r.Start()
	if err := r.Skip(); err != nil {
		return nil, err
	}
	return r.Since(start), nil
}

// Skip reads the next value without keeping it.
func (r *JSONReader) Skip() error {
	switch r.Next() {
	case '{', '[':
		// Decoding an object into struct{} (a list into []struct{}) looks at its literal members
		// without copying them, but scans a nested object or list once more; reading it member
		// by member scans everything once, at a cost per member. A nested value can be long only
		// when what is left of the document is.
		switch long := len(r.data)-r.Start() > skipByMember; {
		case long && r.Next() == '{':
			_, err := r.Object(func(string) error { return r.Skip() })
			return err
		case long:
			_, err := r.Array(r.Skip)
			return err
		case r.Next() == '{':
			return r.Decode(&struct{}{})
		}
		var v []struct{}
		return r.Decode(&v)
	}
	var v skipped // not even unquoted
	return r.Decode(&v)
}

// skipByMember is the length of document beyond which Skip reads an object or list member by
// member.
const skipByMember = 2048

// skipped takes any JSON value and keeps nothing.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// Object reads an object: member is called with each key, in order, and must read its value.
// When the next value is not an object, it is skipped and ok is false.
func (r *JSONReader) Object(member func(key string) error) (ok bool, err error) {
	if r.Next() != '{' {
		return false, r.Skip()
	}
	if _, err := r.dec.Token(); err != nil {
		return false, err
	}
	for r.dec.More() {
		tok, err := r.dec.Token()
		if err != nil {
			return true, err
		}
		key, isKey := tok.(string)
		if !isKey {
			return true, fmt.Errorf("object key %v is not a string", tok)
		}
		if err := member(key); err != nil {
			return true, err
		}
	}
	_, err = r.dec.Token()
	return true, err
}

// Array reads an array: elem is called for each element, in order, and must read it. When the
// next value is not an array, it is skipped and ok is false.
func (r *JSONReader) Array(elem func() error) (ok bool, err error) {
	if r.Next() != '[' {
		return false, r.Skip()
	}
	if _, err := r.dec.Token(); err != nil {
		return false, err
	}
	for r.dec.More() {
		if err := elem(); err != nil {
			return true, err
		}
	}
	_, err = r.dec.Token()
	return true, err
}

// End checks that nothing but white space follows the value read. Once it returned nil, r is
// not to be used any more.
func (r *JSONReader) End() error {
	if _, err := r.dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the JSON value")
		}
		return err
	}
	r.src.Reset(nil)
	r.data = nil
	readers.Put(r)
	return nil
}
