package codex

import "github.com/pondhq/pond/adapters"

// node is a JSON value of a line read in the line's single pass (adapters.Node): an object's
// members as written (slices of the line) and, read along, what the mapping reads whole: the
// payload, the lists of content items (content, summary), the long strings (text, output, a
// content that is a string) and the objects end events carry.
type node = adapters.Node

// The shapes of a line: a RolloutLine's payload is a response item (or an event); a bare
// (≤0.30) line is an item itself. Content items are items too.
var (
	itemMembers = map[string]*adapters.Shape{
		"text":   {Text: true},
		"output": {Text: true},
		"result": {Members: map[string]*adapters.Shape{"Ok": {}}},     // mcp_tool_call_end
		"item":   {Members: map[string]*adapters.Shape{"result": {}}}, // item_completed
		"internal_chat_message_metadata_passthrough": {},
	}
	itemShape = &adapters.Shape{Members: itemMembers}
	lineShape = &adapters.Shape{Members: map[string]*adapters.Shape{"payload": itemShape}}
)

func init() {
	itemMembers["content"] = &adapters.Shape{Text: true, Members: itemMembers}
	itemMembers["summary"] = itemShape
	for k, sh := range itemMembers {
		lineShape.Members[k] = sh
	}
}

// readLine reads a line; an error says why it is not a JSON object.
func readLine(line []byte) (*node, error) { return adapters.ReadObject(line, lineShape) }

// payload is a RolloutLine's payload when it is an object, else nil.
func payload(n *node) *node {
	if p := n.Kid("payload"); p.Kind() == '{' {
		return p
	}
	return nil
}

// list is the member key as a list (elements that are not objects have no members), nil when
// absent or not a list.
func list(n *node, key string) []*node { return n.Kid(key).List() }
