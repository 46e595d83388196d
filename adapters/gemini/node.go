package gemini

import "github.com/pondhq/pond/adapters"

// node is a JSON value of a record read in the record's single pass, as its shape says.
type node = adapters.Node

// The shapes of what the mapping reads: a MessageRecord, its content (a PartListUnion), thoughts
// and tool calls with their results, and the messages a $set carries.
var (
	partShape = &adapters.Shape{Text: true, Members: map[string]*adapters.Shape{
		"text": {Text: true}, "inlineData": {}, "fileData": {}, "functionCall": {},
		"functionResponse": {Members: map[string]*adapters.Shape{"response": {}}},
	}}
	recordShape = &adapters.Shape{Members: map[string]*adapters.Shape{
		"content": partShape, "parts": partShape, "thoughts": {},
		"toolCalls": {Members: map[string]*adapters.Shape{"result": partShape}},
	}}
)

func init() {
	// A $set's messages are records too.
	recordShape.Members["$set"] = &adapters.Shape{Members: map[string]*adapters.Shape{"messages": recordShape}}
}

// readRecord reads a JSON object as a record; an error says why the document is not one.
func readRecord(data []byte) (*node, error) { return adapters.ReadObject(data, recordShape) }

// members is n's members; nil when n is nil or not an object.
func members(n *node) record { return n.Object() }
