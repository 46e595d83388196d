package installer

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pondhq/pond/adapters"
)

// The YAML editor makes two edits, each a text edit of the lines concerned, so the rest of the
// file (comments, order, quoting, line endings) stays as the user left it, and each checked by
// parsing the result: only what it meant to change may differ.
//
// setListItem puts one name into, or takes it out of, one list of names under a top-level
// mapping (Hermes's plugins.enabled). It knows the shapes Hermes itself writes (PyYAML's block
// style: `enabled:` then `- name` lines, `enabled: []`, `plugins: {}`) and the usual
// hand-written ones (indented items, a one-line flow list, comments), and refuses the rest
// (errShape).
//
// setEntry (yamlConfig, an agent's config.yaml holding its MCP servers in a top-level map, as
// goose's extensions) puts one entry into that map, replaces it, or takes it out, the entry
// written in block style under its key.

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

// lines splits the file into lines for a text edit, refusing what a line-based edit cannot
// take apart safely (several documents, directives, tab indentation).
func (f *yamlFile) lines() (*yamlLines, error) {
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
	return y, nil
}

// yamlKey is s as a plain scalar when YAML reads it back as s, else double-quoted.
func yamlKey(s string) string {
	if s == "" || scalar(s) != s || strings.ContainsAny(s, ":#[]{},&*!|>'\"%@`") {
		return strconv.Quote(s)
	}
	return s
}

// section finds the top-level key section: its line (-1 when absent), what follows its colon,
// the end of the lines under it, the indentation of its first child (2 when it has none) and
// its last line of content (the section's own line when it has none).
func (y *yamlLines) section(key string) (line int, rest string, end, child, lastContent int) {
	line = -1
	for i := range y.l {
		if r, ok := keyLine(y.text(i), 0, key); ok {
			line, rest = i, r
			break
		}
	}
	if line < 0 {
		return -1, "", len(y.l), 2, len(y.l) - 1
	}
	end, child, lastContent = line+1, -1, line
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
		lastContent = end
	}
	if child < 0 {
		child = 2
	}
	return line, rest, end, child, lastContent
}

func (f *yamlFile) edit(section, key, item string, in bool) ([]byte, error) {
	y, err := f.lines()
	if err != nil {
		return nil, err
	}
	name := yamlKey(item)

	// The section: a top-level key, then the lines indented under it.
	sec, secRest, end, child, lastContent := y.section(section)
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

// yamlConfig is a YAML config whose MCP servers are a top-level map of entries (goose's
// extensions).
type yamlConfig struct{ *yamlFile }

func (c yamlConfig) source() []byte { return c.src }

// document is the file as JSON would hold it, so checkEdit compares it: YAML's values JSON has
// no spelling for (.inf, .nan) become their text, the same before and after an edit.
func (c yamlConfig) document() map[string]any {
	return jsonSafe(yamlNormal(c.doc)).(map[string]any)
}

func (c yamlConfig) entry(servers, name string) (map[string]any, bool) {
	s, _ := yamlNormal(c.doc[servers]).(map[string]any)
	e, ok := s[name].(map[string]any)
	return e, ok
}

func (c yamlConfig) set(servers, name string, entry map[string]any) ([]byte, error) {
	out, err := c.setEntry(servers, name, entry)
	if err != nil {
		return nil, err
	}
	return out, checkEdit(c, servers, name, entry, out, func(b []byte) (config, error) { return parseConfig(b, adapters.YAML) })
}

// setEntry returns the file with servers.name holding entry (nil: without servers.name; a map
// left empty is removed with its key). The entry's lines replace the old entry's, comments
// inside it included; everything else stays.
func (c yamlConfig) setEntry(servers, name string, entry map[string]any) ([]byte, error) {
	switch c.doc[servers].(type) {
	case nil, map[string]any, map[any]any:
	default:
		return nil, fmt.Errorf("%w: %s is not a mapping", errShape, servers)
	}
	y, err := c.lines()
	if err != nil {
		return nil, err
	}
	done := func() ([]byte, error) { return []byte(strings.Join(y.l, "")), nil }
	sec, rest, end, child, lastContent := y.section(servers)
	var lines []string
	if entry != nil {
		if lines, err = yamlEntry(name, entry, child); err != nil {
			return nil, err
		}
	}
	switch {
	case sec < 0:
		if entry != nil {
			y.insert(len(y.l), append([]string{yamlKey(servers) + ":"}, lines...)...)
		}
		return done()
	case rest == "{}" || rest != "" && isNull(rest):
		if entry != nil {
			y.l[sec] = yamlKey(servers) + ":" + y.nl
			y.insert(sec+1, lines...)
		}
		return done()
	case rest != "":
		return nil, fmt.Errorf("%w: %s is written on one line (%s)", errShape, servers, rest)
	}

	// The entry: its key among the map's own keys, then the lines indented deeper (its
	// trailing blank lines and comments stay: they may introduce what follows).
	k := -1
	for i := sec + 1; i < end; i++ {
		if _, ok := keyLine(y.text(i), child, name); ok {
			k = i
			break
		}
	}
	if k < 0 {
		if entry != nil {
			y.insert(lastContent+1, lines...)
		}
		return done()
	}
	last := k
	for i := k + 1; i < end; i++ {
		t := y.text(i)
		if isYAMLFiller(t) {
			continue
		}
		if yamlIndent(t) <= child {
			break
		}
		last = i
	}
	y.l = slices.Delete(y.l, k, last+1)
	if entry != nil {
		y.insert(k, lines...)
		return done()
	}
	for i := sec + 1; i < len(y.l); i++ {
		t := y.text(i)
		if isYAMLFiller(t) {
			continue
		}
		if yamlIndent(t) > 0 {
			return done()
		}
		break
	}
	y.delete(sec) // the map is left empty
	return done()
}

// yamlEntry is `name:` indented by unit, then entry in block style one unit deeper, each level
// indented by unit (the file's own step, as its map's first key shows it), keys in sorted
// order (as goose's own older writes have them).
func yamlEntry(name string, entry map[string]any, unit int) ([]string, error) {
	unit = max(unit, 2)
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(unit)
	if err := enc.Encode(entry); err != nil {
		return nil, fmt.Errorf("write the entry as YAML: %w", err)
	}
	enc.Close()
	indent := strings.Repeat(" ", unit)
	lines := []string{indent + yamlKey(name) + ":"}
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		lines = append(lines, indent+indent+l)
	}
	return lines, nil
}

// jsonSafe is v with the floats JSON cannot hold (infinities, NaN) written as text.
func jsonSafe(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = jsonSafe(x)
		}
	case []any:
		for i, x := range v {
			v[i] = jsonSafe(x)
		}
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return v
}
