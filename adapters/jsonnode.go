package adapters

import (
	"bytes"
	"encoding/json"
	"sync"
)

// A Node is a JSON value read in one pass (see JSONReader): an object's members as written,
// with those its Shape names read along as Nodes, a list's elements, and a string's value when
// the shape decodes it. Everything as written is a slice of the document, not a copy.
type Node struct {
	Raw     json.RawMessage            // the value as written
	Members map[string]json.RawMessage // an object's members as written; nil when not an object
	Kids    map[string]*Node           // the members read along
	Elems   []*Node                    // a list's elements; nil when not a list
	Str     string                     // a string's value, when decoded
	IsStr   bool                       // Str was decoded
}

// A Shape says how a value is read along: which members of an object are read as Nodes (and how),
// whether a string is decoded. A list's elements are read with the list's shape.
type Shape struct {
	Members map[string]*Shape
	Text    bool

	levels     int // see depth
	levelsOnce sync.Once
}

// ReadNode reads a JSON document as sh says; an error means it is not valid JSON.
func ReadNode(data []byte, sh *Shape) (*Node, error) {
	if len(data) <= byLevel(sh) {
		return nodeOf(data, sh)
	}
	r := NewJSONReader(data)
	n, err := r.Node(sh)
	if err == nil {
		err = r.End()
	}
	return n, err
}

// byLevel is the length up to which a value is read level by level with json.Unmarshal, which
// scans it once for each level sh reads along: for a short value that costs less than reading
// it member by member.
func byLevel(sh *Shape) int { return 2048 / sh.depth() }

// depth is how many levels of objects and lists sh reads (a shape may contain itself: up to 8).
func (sh *Shape) depth() int {
	sh.levelsOnce.Do(func() { sh.levels = sh.depthUpTo(8) })
	return sh.levels
}

func (sh *Shape) depthUpTo(limit int) int {
	d := 0
	if limit > 1 {
		for _, m := range sh.Members {
			d = max(d, m.depthUpTo(limit-1))
		}
	}
	return d + 1
}

// Node reads the next value as sh says.
func (r *JSONReader) Node(sh *Shape) (*Node, error) {
	if k := r.Next(); (k == '{' || k == '[') && len(r.data)-r.Start() <= byLevel(sh) {
		raw, err := r.Raw()
		if err != nil {
			return nil, err
		}
		return nodeOf(raw, sh)
	}
	n := &Node{}
	start := r.Start()
	var err error
	switch r.Next() {
	case '{':
		n.Members = map[string]json.RawMessage{}
		_, err = r.Object(func(key string) error {
			if ksh := sh.Members[key]; ksh != nil {
				kid, err := r.Node(ksh)
				if err != nil {
					return err
				}
				if n.Kids == nil {
					n.Kids = map[string]*Node{}
				}
				n.Kids[key], n.Members[key] = kid, kid.Raw
				return nil
			}
			kstart := r.Start()
			err := r.Skip()
			n.Members[key] = r.Since(kstart)
			return err
		})
	case '[':
		n.Elems = []*Node{}
		_, err = r.Array(func() error {
			el, err := r.Node(sh)
			if err != nil {
				return err
			}
			n.Elems = append(n.Elems, el)
			return nil
		})
	case '"':
		if sh.Text {
			n.Str, n.IsStr, err = r.String()
		} else {
			err = r.Skip()
		}
	default:
		err = r.Skip()
	}
	n.Raw = r.Since(start)
	return n, err
}

// Kid is the member key as read along; nil when n is nil, the member absent or not in the
// shape.
func (n *Node) Kid(key string) *Node {
	if n == nil {
		return nil
	}
	return n.Kids[key]
}

// Object is n's members; nil when n is nil or not an object.
func (n *Node) Object() map[string]json.RawMessage {
	if n == nil {
		return nil
	}
	return n.Members
}

// List is n's elements; nil when n is nil or not a list.
func (n *Node) List() []*Node {
	if n == nil {
		return nil
	}
	return n.Elems
}

// Kind is the first byte of n's value: '{', '[', '"', 't', 'f', 'n', '-' or a digit; 0 for no
// value.
func (n *Node) Kind() byte {
	if n == nil || len(n.Raw) == 0 {
		return 0
	}
	return n.Raw[0]
}

// String is the member key's value when it was read along as a decoded string.
func (n *Node) String(key string) (s string, ok bool) {
	if k := n.Kid(key); k != nil && k.IsStr {
		return k.Str, true
	}
	return "", false
}

// nodeOf reads raw as sh says, level by level; an error means it is not valid JSON.
func nodeOf(raw json.RawMessage, sh *Shape) (*Node, error) {
	n := &Node{Raw: bytes.Trim(raw, " \t\r\n")}
	var err error
	switch n.Kind() {
	case '{':
		if err = json.Unmarshal(raw, &n.Members); err != nil {
			return nil, err
		}
		for key, ksh := range sh.Members {
			if v, ok := n.Members[key]; ok {
				if n.Kids == nil {
					n.Kids = map[string]*Node{}
				}
				n.Kids[key], _ = nodeOf(v, ksh) // a member of valid JSON: valid
			}
		}
	case '[':
		var elems []json.RawMessage
		if err = json.Unmarshal(raw, &elems); err != nil {
			return nil, err
		}
		n.Elems = make([]*Node, len(elems))
		for i, el := range elems {
			n.Elems[i], _ = nodeOf(el, sh)
		}
	case '"':
		if sh.Text {
			err = json.Unmarshal(raw, &n.Str)
			n.IsStr = err == nil
			break
		}
		fallthrough
	default:
		if !json.Valid(raw) {
			err = json.Unmarshal(raw, new(json.RawMessage))
		}
	}
	if err != nil {
		return nil, err
	}
	return n, nil
}
