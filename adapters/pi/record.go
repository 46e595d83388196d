package pi

import (
	"encoding/json"

	"github.com/pondhq/pond/adapters"
)

// record is one line read in a single pass (adapters.JSONReader): the entry's members as
// written, and, read along, its message's members and the contents of both. Values are slices
// of the line.
type record struct {
	obj     object
	content content // obj["content"]
	msg     object  // obj["message"] when it is an object, else nil
	msgBody content // msg["content"]
}

// content is a content value as written and, when it was read along, its text (a string) or its
// blocks (a list).
type content struct {
	raw    json.RawMessage
	read   bool
	text   string
	blocks []block
}

// block is a content block: its members (nil when it is not an object), and its text and
// thinking when they are strings.
type block struct {
	obj            object
	text, thinking string
}

// readRecord reads a line; ok is false when it is not a JSON object. Any error means the line is
// not valid JSON.
func readRecord(line []byte) (rec record, ok bool, err error) {
	r := adapters.NewJSONReader(line)
	rec.obj = object{}
	ok, err = r.Object(func(key string) error {
		start := r.Start()
		var err error
		switch key {
		case "message":
			rec.msg, rec.msgBody, err = readMessage(r)
		case "content":
			rec.content, err = readContent(r)
		default:
			err = r.Skip()
		}
		rec.obj[key] = r.Since(start)
		return err
	})
	if err == nil {
		err = r.End()
	}
	return rec, ok, err
}

// readMessage reads a message entry's message. The content of a tool result (or of a command's
// output) is kept only as written; other contents are read along.
func readMessage(r *adapters.JSONReader) (msg object, body content, err error) {
	msg = object{}
	role := ""
	ok, err := r.Object(func(key string) error {
		start := r.Start()
		var err error
		switch key {
		case "role":
			role, _, err = r.String()
		case "content":
			if role == "toolResult" || role == "bashExecution" {
				body, err = content{}, r.Skip()
			} else {
				body, err = readContent(r)
			}
		default:
			err = r.Skip()
		}
		msg[key] = r.Since(start)
		return err
	})
	if !ok {
		msg = nil
	}
	body.raw = msg["content"]
	return msg, body, err
}

// readContent reads a content value: a string, or a list of blocks.
func readContent(r *adapters.JSONReader) (content, error) {
	c := content{read: true}
	start := r.Start()
	var err error
	switch r.Next() {
	case '"':
		c.text, _, err = r.String()
	case '[':
		c.blocks = []block{}
		_, err = r.Array(func() error {
			b, err := readBlock(r)
			c.blocks = append(c.blocks, b)
			return err
		})
	default:
		err = r.Skip()
	}
	c.raw = r.Since(start)
	return c, err
}

func readBlock(r *adapters.JSONReader) (block, error) {
	if r.Next() != '{' {
		return block{}, r.Skip()
	}
	b := block{obj: object{}}
	_, err := r.Object(func(key string) error {
		start := r.Start()
		var err error
		switch key {
		case "text":
			b.text, _, err = r.String()
		case "thinking":
			b.thinking, _, err = r.String()
		default:
			err = r.Skip()
		}
		b.obj[key] = r.Since(start)
		return err
	})
	return b, err
}

// parsed is c with its text or blocks read, for a content that was only kept as written.
func (c content) parsed() content {
	if c.read || len(c.raw) == 0 {
		return c
	}
	r := adapters.NewJSONReader(c.raw)
	p, err := readContent(r)
	if err != nil {
		return content{raw: c.raw, read: true} // cannot happen: raw is part of a valid line
	}
	return p
}
