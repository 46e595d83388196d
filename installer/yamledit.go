package installer

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// The YAML editor (Hermes's config.yaml) puts one name into, or takes it out of, one list of
// names under a top-level mapping (plugins.enabled), as a text edit of the lines that hold it:
// the rest of the file (comments, order, quoting, line endings) stays as the user left it. It
// knows the shapes Hermes itself writes (PyYAML's block style: `enabled:` then `- name` lines,
// `enabled: []`, `plugins: {}`) and the usual hand-written ones (indented items, a one-line
// flow list, comments), refuses the rest (errShape), and every edit is checked by parsing the
// result: only that one list may differ.

type yamlFile struct {
	src []byte
	doc map[string]any
	nl  string
}

func parseYAMLFile(src []byte) (*yamlFile, error) {
	f := &yamlFile{src: src, nl: "\n"}
	if strings.Contains(string(src), "\r\n") {
		f.nl = "\r\n"
	}
	var doc any
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("not valid YAML: %w", err)
	}
	switch d := doc.(type) {
	case nil:
		f.doc = map[string]any{}
	case map[string]any:
		f.doc = d
	default:
		return nil, fmt.Errorf("not valid YAML for a config: the top level is a %T, not a mapping", doc)
	}
	return f, nil
}

// list is section.key as a list of strings; ok is false when it is not a list (absent, null,
// or another shape).
func (f *yamlFile) list(section, key string) (names []string, ok bool) {
	s, _ := f.doc[section].(map[string]any)
	l, ok := s[key].([]any)
	for _, v := range l {
		if n, isStr := v.(string); isStr {
			names = append(names, n)
		}
	}
	return names, ok
}

// has says whether section.key is a list holding item.
func (f *yamlFile) has(section, key, item string) bool {
	l, _ := f.list(section, key)
	return slices.Contains(l, item)
}

var errYAMLNoChange = errors.New("no change")

// setListItem returns the file with item in section.key (in: appended when missing) or out of
// it (!in: every occurrence removed; a list left empty is removed, and so is a section left
// empty). errYAMLNoChange when the file already is so.
func (f *yamlFile) setListItem(section, key, item string, in bool) ([]byte, error) {
	if f.has(section, key, item) == in {
		return nil, errYAMLNoChange
	}
	out, err := f.edit(section, key, item, in)
	if err != nil {
		return nil, err
	}
	return out, f.checkEdit(section, key, item, in, out)
}

// yamlLines is a file's lines, each with its own line ending, the last one given one.
type yamlLines struct {
	l  []string
	nl string
}

func (y *yamlLines) text(i int) string { return strings.TrimRight(y.l[i], "\r\n") }

func (y *yamlLines) insert(at int, text ...string) {
	var add []string
	for _, t := range text {
		add = append(add, t+y.nl)
	}
	y.l = slices.Insert(y.l, at, add...)
}

func (y *yamlLines) delete(i int) { y.l = slices.Delete(y.l, i, i+1) }

func yamlIndent(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// isYAMLFiller is a line holding nothing: blank or a comment.
func isYAMLFiller(s string) bool {
	t := strings.TrimSpace(s)
	return t == "" || strings.HasPrefix(t, "#")
}

// stripComment is a line's text without its comment (a # after a space, outside quotes).
func stripComment(s string) string {
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return strings.TrimRight(s[:i], " \t")
		}
	}
	return strings.TrimRight(s, " \t")
}

// keyLine matches `key:` at the start of s (after indent), bare or quoted, and returns what
// follows the colon, comment removed.
func keyLine(s string, indent int, key string) (rest string, ok bool) {
	if yamlIndent(s) != indent {
		return "", false
	}
	t := s[indent:]
	for _, k := range []string{key, strconv.Quote(key), "'" + key + "'"} {
		if after, found := strings.CutPrefix(t, k); found {
			after = strings.TrimLeft(after, " \t")
			if r, found := strings.CutPrefix(after, ":"); found && (r == "" || r[0] == ' ' || r[0] == '\t') {
				return strings.TrimSpace(stripComment(r)), true
			}
		}
	}
	return "", false
}

// scalar is a plain or quoted YAML scalar's value, as far as a name needs.
func scalar(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"') {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	return s
}

func isNull(v string) bool { return v == "" || v == "~" || v == "null" || v == "Null" || v == "NULL" }

func (f *yamlFile) edit(section, key, item string, in bool) ([]byte, error) {
	text := string(f.src)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += f.nl
	}
	y := &yamlLines{l: strings.SplitAfter(text, "\n"), nl: f.nl}
	if y.l[len(y.l)-1] == "" {
		y.l = y.l[:len(y.l)-1]
	}
	for _, l := range y.l {
		if strings.HasPrefix(l, "---") || strings.HasPrefix(l, "...") || strings.HasPrefix(l, "%") {
			return nil, fmt.Errorf("%w: the file has YAML document markers or directives", errShape)
		}
		if strings.HasPrefix(strings.TrimLeft(l, " "), "\t") {
			return nil, fmt.Errorf("%w: a line is indented with a tab", errShape)
		}
	}
	name := item
	if scalar(item) != item || strings.ContainsAny(item, ":#[]{},&*!|>'\"%@`") {
		name = strconv.Quote(item)
	}

	// The section: a top-level key, then the lines indented under it.
	sec := -1
	var secRest string
	for i := range y.l {
		if r, ok := keyLine(y.text(i), 0, section); ok {
			sec, secRest = i, r
			break
		}
	}
	if sec < 0 {
		if !in {
			return []byte(strings.Join(y.l, "")), nil
		}
		y.insert(len(y.l), section+":", "  "+key+":", "  - "+name)
		return []byte(strings.Join(y.l, "")), nil
	}
	switch {
	case secRest == "{}" || secRest != "" && isNull(secRest):
		if !in {
			return nil, errYAMLNoChange
		}
		y.l[sec] = section + ":" + y.nl
		y.insert(sec+1, "  "+key+":", "  - "+name)
		return []byte(strings.Join(y.l, "")), nil
	case secRest != "":
		return nil, fmt.Errorf("%w: %s is written on one line (%s)", errShape, section, secRest)
	}
	end, child := sec+1, -1
	for ; end < len(y.l); end++ {
		t := y.text(end)
		if isYAMLFiller(t) {
			continue
		}
		if yamlIndent(t) == 0 {
			break
		}
		if child < 0 {
			child = yamlIndent(t)
		}
	}
	lastContent := sec
	for i := sec + 1; i < end; i++ {
		if !isYAMLFiller(y.text(i)) {
			lastContent = i
		}
	}
	if child < 0 {
		child = 2
	}
	pad := strings.Repeat(" ", child)

	// The key, among the section's own children.
	k := -1
	var rest string
	for i := sec + 1; i < end; i++ {
		if r, ok := keyLine(y.text(i), child, key); ok {
			k, rest = i, r
			break
		}
	}
	if k < 0 {
		if !in {
			return nil, errYAMLNoChange
		}
		y.insert(lastContent+1, pad+key+":", pad+"- "+name)
		return []byte(strings.Join(y.l, "")), nil
	}

	// removeKey deletes the key's line (its list now empty) and the section's line when
	// nothing else is left in it.
	removeKey := func() {
		y.delete(k)
		for i := sec + 1; i < len(y.l); i++ {
			t := y.text(i)
			if isYAMLFiller(t) {
				continue
			}
			if yamlIndent(t) > 0 {
				return
			}
			break
		}
		y.delete(sec)
	}

	switch {
	case strings.HasPrefix(rest, "["):
		if !strings.HasSuffix(rest, "]") || strings.ContainsAny(rest[1:len(rest)-1], "[]{}\"'") {
			return nil, fmt.Errorf("%w: %s.%s is a flow list this editor does not take apart", errShape, section, key)
		}
		var items []string
		for _, it := range strings.Split(rest[1:len(rest)-1], ",") {
			if it = strings.TrimSpace(it); it != "" {
				items = append(items, it)
			}
		}
		if in {
			items = append(items, name)
		} else {
			items = slices.DeleteFunc(items, func(s string) bool { return scalar(s) == item })
			if len(items) == 0 {
				removeKey()
				return []byte(strings.Join(y.l, "")), nil
			}
		}
		line := y.text(k)
		at := strings.Index(line, rest)
		y.l[k] = line[:at] + "[" + strings.Join(items, ", ") + "]" + line[at+len(rest):] + y.nl
		return []byte(strings.Join(y.l, "")), nil
	case !isNull(rest):
		return nil, fmt.Errorf("%w: %s.%s is %s, not a list", errShape, section, key, rest)
	}

	// A block list: `- name` lines under the key, at its indentation (PyYAML's) or deeper.
	itemIndent, lastItem := -1, -1
	var mine []int
	for i := k + 1; i < end; i++ {
		t := y.text(i)
		if isYAMLFiller(t) {
			continue
		}
		ind := yamlIndent(t)
		isItem := strings.HasPrefix(t[ind:], "- ") || t[ind:] == "-"
		if ind < child || ind == child && !isItem {
			break
		}
		if itemIndent < 0 && isItem {
			itemIndent = ind
		}
		if ind != itemIndent || !isItem {
			return nil, fmt.Errorf("%w: %s.%s holds more than a list of names", errShape, section, key)
		}
		lastItem = i
		if scalar(stripComment(strings.TrimPrefix(t[ind:], "-"))) == item {
			mine = append(mine, i)
		}
	}
	if in {
		at, ind := k+1, pad
		if lastItem >= 0 {
			at, ind = lastItem+1, strings.Repeat(" ", itemIndent)
		}
		y.insert(at, ind+"- "+name)
		return []byte(strings.Join(y.l, "")), nil
	}
	if len(mine) == 0 {
		return nil, errYAMLNoChange
	}
	all := 0
	for i := k + 1; i <= lastItem; i++ {
		if !isYAMLFiller(y.text(i)) {
			all++
		}
	}
	for j := len(mine) - 1; j >= 0; j-- {
		y.delete(mine[j])
	}
	if all == len(mine) {
		removeKey()
	}
	return []byte(strings.Join(y.l, "")), nil
}

// checkEdit parses the edit and refuses it unless the only difference from the original is
// item in (or out of) section.key, as setListItem says.
func (f *yamlFile) checkEdit(section, key, item string, in bool, out []byte) error {
	after, err := parseYAMLFile(out)
	if err != nil {
		return fmt.Errorf("%w (the edit would not parse: %v)", errShape, err)
	}
	want := yamlNormal(f.doc).(map[string]any)
	s, _ := want[section].(map[string]any)
	if s == nil {
		s = map[string]any{}
		want[section] = s
	}
	l, _ := s[key].([]any)
	if in {
		s[key] = append(l, item)
	} else {
		l = slices.DeleteFunc(l, func(v any) bool { return v == item })
		s[key] = l
		if len(l) == 0 {
			delete(s, key)
		}
	}
	got := yamlNormal(after.doc).(map[string]any)
	for _, d := range []map[string]any{want, got} {
		if m, ok := d[section].(map[string]any); ok && len(m) == 0 || d[section] == nil {
			delete(d, section)
		}
	}
	if !reflect.DeepEqual(want, got) {
		return fmt.Errorf("%w (the edit changed more than %s.%s)", errShape, section, key)
	}
	return nil
}

// yamlNormal is a deep copy of a decoded YAML value in which every mapping has string keys (as
// YAML's text has them), so two documents compare with reflect.DeepEqual.
func yamlNormal(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = yamlNormal(x)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[fmt.Sprint(k)] = yamlNormal(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = yamlNormal(x)
		}
		return out
	}
	return v
}
