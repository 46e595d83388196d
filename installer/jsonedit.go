package installer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The JSON and JSONC editor changes one member of one object (the servers map) by a minimal text
// edit, so everything else in the file (comments, key order, spacing, line endings) stays as the
// user left it. It refuses what it cannot edit safely, and every edit is checked by parsing the
// result: only the one entry may differ.

// errShape is a config file whose shape the editor does not edit.
var errShape = errors.New("this file's shape is beyond what pond edits safely")

// blank returns src with comments replaced by spaces (newlines kept), so that offsets into it
// are offsets into src; blankCommas then makes valid JSONC plain JSON. In strict JSON a comment
// is an error.
func blank(src []byte, jsonc bool) ([]byte, error) {
	out := bytes.Clone(src)
	inString := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && (out[i+1] == '/' || out[i+1] == '*'):
			if !jsonc {
				return nil, fmt.Errorf("a comment at byte %d, in a file that must be plain JSON", i)
			}
			end := len(out)
			if out[i+1] == '/' {
				if j := bytes.IndexByte(out[i:], '\n'); j >= 0 {
					end = i + j
				}
			} else {
				j := bytes.Index(out[i+2:], []byte("*/"))
				if j < 0 {
					return nil, fmt.Errorf("an unterminated comment at byte %d", i)
				}
				end = i + 2 + j + 2
			}
			for k := i; k < end; k++ {
				if out[k] != '\n' && out[k] != '\r' {
					out[k] = ' '
				}
			}
			i = end - 1
		}
	}
	return out, nil
}

// blankCommas replaces trailing commas (before a closing brace or bracket) by spaces.
func blankCommas(b []byte) []byte {
	out := bytes.Clone(b)
	inString := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == ',':
			j := skipSpace(out, i+1)
			if j < len(out) && (out[j] == '}' || out[j] == ']') {
				out[i] = ' '
			}
		}
	}
	return out
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// member is one key of an object: offsets of its key's opening quote and of its value.
type member struct {
	key              string
	keyStart         int
	valStart, valEnd int
}

// object is an object's braces and members, offsets into the file.
type object struct {
	open, close int
	members     []member
}

func (o object) find(key string) (int, error) {
	at := -1
	for i, m := range o.members {
		if m.key == key {
			if at >= 0 {
				return 0, fmt.Errorf("%w: the key %q appears twice", errShape, key)
			}
			at = i
		}
	}
	return at, nil
}

// parseObject reads the object at b[i] (b is valid JSON).
func parseObject(b []byte, i int) (object, error) {
	o := object{open: i}
	i = skipSpace(b, i+1)
	for b[i] != '}' {
		if b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		ks := i
		ke := skipValue(b, i)
		var key string
		if err := json.Unmarshal(b[ks:ke], &key); err != nil {
			return o, err
		}
		i = skipSpace(b, ke)
		i = skipSpace(b, i+1) // the colon
		ve := skipValue(b, i)
		o.members = append(o.members, member{key: key, keyStart: ks, valStart: i, valEnd: ve})
		i = skipSpace(b, ve)
	}
	o.close = i
	return o, nil
}

// skipValue returns the offset just past the value at b[i] (b is valid JSON).
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		for i++; b[i] != '"'; i++ {
			if b[i] == '\\' {
				i++
			}
		}
		return i + 1
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = skipValue(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[i])) {
		i++
	}
	return i
}

// jsonFile is a JSON or JSONC config parsed for editing.
type jsonFile struct {
	src, clean []byte
	commas     []byte // src without comments, its commas kept
	doc        map[string]any
	top        object
	nl, unit   string
}

func parseJSONFile(src []byte, jsonc bool) (*jsonFile, error) {
	f := &jsonFile{src: src, nl: "\n", unit: "  "}
	if bytes.Contains(src, []byte("\r\n")) {
		f.nl = "\r\n"
	}
	if len(bytes.TrimSpace(src)) == 0 {
		f.src, f.clean, f.commas = []byte("{}"+f.nl), []byte("{}"+f.nl), []byte("{}"+f.nl)
		f.doc = map[string]any{}
		f.top = object{open: 0, close: 1}
		return f, nil
	}
	commas, err := blank(src, jsonc)
	if err != nil {
		return nil, err
	}
	clean := commas
	if jsonc {
		clean = blankCommas(commas)
	}
	f.clean, f.commas = clean, commas
	dec := json.NewDecoder(bytes.NewReader(clean))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not valid JSON: more than one value")
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	f.doc = doc
	if f.top, err = parseObject(clean, skipSpace(clean, 0)); err != nil {
		return nil, err
	}
	if len(f.top.members) > 0 {
		if ind, ok := lineIndent(src, f.top.members[0].keyStart); ok && ind != "" {
			f.unit = ind
		}
	}
	return f, nil
}

// lineIndent is the whitespace before offset i on its line, and whether only whitespace is there.
func lineIndent(src []byte, i int) (string, bool) {
	start := bytes.LastIndexByte(src[:i], '\n') + 1
	ind := src[start:i]
	return string(ind), len(bytes.Trim(ind, " \t")) == 0
}

// indentOf is the indentation of the line holding offset i.
func indentOf(src []byte, i int) string {
	start := bytes.LastIndexByte(src[:i], '\n') + 1
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

func (f *jsonFile) render(v any, indent string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, f.unit)
	enc.Encode(v)
	return strings.ReplaceAll(strings.TrimRight(buf.String(), "\n"), "\n", f.nl)
}

// edit is a replacement of src[start:end].
type edit struct {
	start, end int
	text       string
}

func apply(src []byte, edits ...edit) []byte {
	out := bytes.Clone(src)
	for i := len(edits) - 1; i >= 0; i-- { // edits are in order and do not overlap
		e := edits[i]
		out = append(out[:e.start:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	return out
}

// insert adds "key": value as the last member of o.
func (f *jsonFile) insert(o object, key string, value any) []edit {
	memberIndent := indentOf(f.src, o.open) + f.unit
	if len(o.members) > 0 {
		memberIndent = indentOf(f.src, o.members[len(o.members)-1].keyStart)
	}
	k, _ := json.Marshal(key)
	text := memberIndent + string(k) + ": " + f.render(value, memberIndent)
	var edits []edit
	if n := len(o.members); n > 0 {
		last := o.members[n-1]
		if j := skipSpace(f.commas, last.valEnd); f.commas[j] != ',' { // no trailing comma (JSONC) yet
			edits = append(edits, edit{last.valEnd, last.valEnd, ","})
		}
	}
	if _, alone := lineIndent(f.src, o.close); alone && bytes.LastIndexByte(f.src[:o.close], '\n') > o.open {
		at := bytes.LastIndexByte(f.src[:o.close], '\n') + 1
		return append(edits, edit{at, at, text + f.nl})
	}
	return append(edits, edit{o.close, o.close, f.nl + text + f.nl + indentOf(f.src, o.open)})
}

// remove deletes member i of o, with its comma and, when it had its lines to itself, its lines.
func (f *jsonFile) remove(o object, i int) []edit {
	m := o.members[i]
	if len(o.members) == 1 && bytes.Equal(f.src[o.open:o.close], f.commas[o.open:o.close]) {
		return []edit{{o.open + 1, o.close, ""}} // no comments inside to keep: {}
	}
	start := m.keyStart
	if _, alone := lineIndent(f.src, start); alone {
		start = bytes.LastIndexByte(f.src[:start], '\n') + 1
	}
	end := m.valEnd
	j := skipSpace(f.commas, end)
	hasComma := f.commas[j] == ','
	if hasComma {
		end = j + 1
	}
	if k := bytes.IndexByte(f.src[end:], '\n'); k >= 0 && len(bytes.Trim(f.src[end:end+k], " \t\r")) == 0 && start != m.keyStart {
		end += k + 1
	}
	edits := []edit{{start, end, ""}}
	if !hasComma && i > 0 { // the last member: the one before it loses its comma
		prev := o.members[i-1]
		if c := skipSpace(f.commas, prev.valEnd); f.commas[c] == ',' {
			edits = append([]edit{{c, c + 1, ""}}, edits...)
		}
	}
	return edits
}

// setEntry returns the file with servers[name] = entry (entry nil: without servers[name]).
func (f *jsonFile) setEntry(servers, name string, entry map[string]any) ([]byte, error) {
	si, err := f.top.find(servers)
	if err != nil {
		return nil, err
	}
	if si < 0 {
		if entry == nil {
			return f.src, nil
		}
		return apply(f.src, f.insert(f.top, servers, map[string]any{name: entry})...), nil
	}
	sm := f.top.members[si]
	if f.clean[sm.valStart] != '{' {
		return nil, fmt.Errorf("%w: %q is not an object", errShape, servers)
	}
	so, err := parseObject(f.clean, sm.valStart)
	if err != nil {
		return nil, err
	}
	ei, err := so.find(name)
	if err != nil {
		return nil, err
	}
	switch {
	case ei < 0 && entry == nil:
		return f.src, nil
	case ei < 0:
		return apply(f.src, f.insert(so, name, entry)...), nil
	case entry == nil:
		return apply(f.src, f.remove(so, ei)...), nil
	}
	m := so.members[ei]
	return apply(f.src, edit{m.valStart, m.valEnd, f.render(entry, indentOf(f.src, m.keyStart))}), nil
}
