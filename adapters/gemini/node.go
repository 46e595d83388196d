package gemini

import (
	"encoding/json"

	"github.com/pondhq/pond/adapters"
)

// node is a JSON value of a record, read in the record's single pass (adapters.JSONReader):
// an object's members as written (slices of the record) with the members the mapping reads
// further read along, a list's elements, and a string's value where it is read whole.
type node struct {
	raw   json.RawMessage
	rec   record           // an object's members; nil when the value is not an object
	kids  map[string]*node // the members read along, by the object's shape
	elems []*node          // a list's elements; nil when the value is not a list
	str   string           // a string's value, when its shape says so
	isStr bool
}

// shape says how a value is read along: which members of an object are read further, whether a
// string is decoded. A list's elements are read with the list's shape.
type shape struct {
	members map[string]*shape
	text    bool
}

// The shapes of what the mapping reads: a MessageRecord, its content (a PartListUnion), thoughts
// and tool calls, and the messages a $set carries.
var (
	partShape = &shape{text: true, members: map[string]*shape{
		"text": {text: true}, "inlineData": {}, "fileData": {}, "functionCall": {},
		"functionResponse": {members: map[string]*shape{"response": {}}},
	}}
	recordShape = &shape{members: map[string]*shape{
		"content": partShape, "parts": partShape, "thoughts": {},
		"toolCalls": {members: map[string]*shape{"result": partShape}},
	}}
)

func init() {
	// A $set's messages are records too.
	recordShape.members["$set"] = &shape{members: map[string]*shape{"messages": recordShape}}
}

// readRecord reads a JSON document as a record; an error means it is not valid JSON.
func readRecord(data []byte) (*node, error) {
	r := adapters.NewJSONReader(data)
	n, err := readNode(r, recordShape)
	if err == nil {
		err = r.End()
	}
	return n, err
}

func readNode(r *adapters.JSONReader, sh *shape) (*node, error) {
	n := &node{}
	start := r.Start()
	var err error
	switch r.Next() {
	case '{':
		n.rec = record{}
		_, err = r.Object(func(key string) error {
			if ksh := sh.members[key]; ksh != nil {
				kid, err := readNode(r, ksh)
				if n.kids == nil {
					n.kids = map[string]*node{}
				}
				n.kids[key], n.rec[key] = kid, kid.raw
				return err
			}
			delete(n.kids, key) // a repeated key: the last value is the one read
			kstart := r.Start()
			err := r.Skip()
			n.rec[key] = r.Since(kstart)
			return err
		})
	case '[':
		n.elems = []*node{}
		_, err = r.Array(func() error {
			el, err := readNode(r, sh)
			n.elems = append(n.elems, el)
			return err
		})
	case '"':
		if sh.text {
			n.str, n.isStr, err = r.String()
		} else {
			err = r.Skip()
		}
	default:
		err = r.Skip()
	}
	n.raw = r.Since(start)
	return n, err
}

// kid is the member key as read along; nil when absent (or not in the shape).
func (n *node) kid(key string) *node {
	if n == nil {
		return nil
	}
	return n.kids[key]
}

// members is n's members; nil when n is nil or not an object.
func (n *node) members() record {
	if n == nil {
		return nil
	}
	return n.rec
}

// kind is the first byte of n's value (see kindOf); 0 for no value.
func (n *node) kind() byte {
	if n == nil {
		return 0
	}
	return kindOf(n.raw)
}

// text is the member key's string value, "" when absent or not a string.
func (n *node) text(key string) string {
	if k := n.kid(key); k != nil && k.isStr {
		return k.str
	}
	return n.members().str(key)
}

// list is n's elements; nil when n is nil or not a list.
func (n *node) list() []*node {
	if n == nil {
		return nil
	}
	return n.elems
}
