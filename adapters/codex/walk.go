package codex

import "github.com/pondhq/pond/adapters"

// walked is a JSON object of a line, read in the line's single pass (adapters.JSONReader): its
// members as written (slices of the line) and, read along, what the mapping reads whole: the
// payload, the lists of content items (content, summary) and the long strings (text, output, a
// content that is a string).
type walked struct {
	obj     object
	payload *walked              // obj["payload"] when it is an object
	lists   map[string][]*walked // obj["content"], obj["summary"] when lists (nil elements: not objects)
	strs    map[string]string    // obj["text"], obj["output"], obj["content"] when strings
}

// readLine reads a line; ok is false when it is not a JSON object. Any error means the line is
// not valid JSON.
func readLine(line []byte) (w *walked, ok bool, err error) {
	r := adapters.NewJSONReader(line)
	w, ok, err = readObject(r, true)
	if err == nil {
		err = r.End()
	}
	return w, ok, err
}

// readObject reads an object (nil, false when the value is not one); top is the line itself,
// whose payload is read along.
func readObject(r *adapters.JSONReader, top bool) (*walked, bool, error) {
	if r.Next() != '{' {
		return nil, false, r.Skip()
	}
	w := &walked{obj: object{}}
	_, err := r.Object(func(key string) error {
		start := r.Start()
		var err error
		switch key {
		case "payload":
			if !top {
				err = r.Skip()
				break
			}
			w.payload, _, err = readObject(r, false)
		case "content", "summary":
			if key == "content" && r.Next() == '"' {
				s, ok, serr := r.String()
				set(&w.strs, key, s, ok)
				set(&w.lists, key, nil, false)
				err = serr
				break
			}
			var list []*walked
			list, err = readList(r)
			set(&w.lists, key, list, list != nil)
			set(&w.strs, key, "", false)
		case "text", "output":
			s, ok, serr := r.String()
			set(&w.strs, key, s, ok)
			err = serr
		default:
			err = r.Skip()
		}
		w.obj[key] = r.Since(start)
		return err
	})
	return w, true, err
}

// set keeps v under key when ok, else forgets key: a repeated key's last value is the one read.
func set[V any](m *map[string]V, key string, v V, ok bool) {
	switch {
	case ok && *m == nil:
		*m = map[string]V{key: v}
	case ok:
		(*m)[key] = v
	default:
		delete(*m, key)
	}
}

// readList reads a list of objects; nil when the value is not a list.
func readList(r *adapters.JSONReader) ([]*walked, error) {
	if r.Next() != '[' {
		return nil, r.Skip()
	}
	list := []*walked{}
	_, err := r.Array(func() error {
		o, _, err := readObject(r, false)
		list = append(list, o)
		return err
	})
	return list, err
}

// str is the member key as a string, "" when absent or not a string.
func (w *walked) str(key string) string {
	if w == nil {
		return ""
	}
	if s, ok := w.strs[key]; ok {
		return s
	}
	return strOf(w.obj, key)
}

// members is w's members, nil for no object.
func (w *walked) members() object {
	if w == nil {
		return nil
	}
	return w.obj
}

// list is the member key as a list of objects (nil elements for those that are not), nil when
// absent or not a list.
func (w *walked) list(key string) []*walked {
	if w == nil {
		return nil
	}
	return w.lists[key]
}
