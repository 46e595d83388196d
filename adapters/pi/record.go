package pi

import "github.com/pondhq/pond/adapters"

// node is a JSON value of a line read in the line's single pass (adapters.Node): the entry's
// members as written (slices of the line) and, read along, its message's members and the
// contents of both: a string's text, or blocks with their text and thinking.
type node = adapters.Node

var (
	contentShape = &adapters.Shape{Text: true, Members: map[string]*adapters.Shape{"text": {Text: true}, "thinking": {Text: true}}}
	lineShape    = &adapters.Shape{Members: map[string]*adapters.Shape{
		"content": contentShape,
		"message": {Members: map[string]*adapters.Shape{"content": contentShape}},
	}}
)

// readRecord reads a line; an error says why it is not a JSON object.
func readRecord(line []byte) (*node, error) { return adapters.ReadObject(line, lineShape) }

// message is an entry's message when it is an object, else nil.
func message(n *node) *node {
	if m := n.Kid("message"); m.Kind() == '{' {
		return m
	}
	return nil
}
