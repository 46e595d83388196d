package installer

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// The TOML editor (Codex's config.toml) appends or replaces the server's own table,
// [<servers>.<name>] and its sub-tables, as text; the rest of the file is kept byte for byte.

type tomlFile struct {
	src []byte
	doc map[string]any
	nl  string
}

func parseTOMLFile(src []byte) (*tomlFile, error) {
	f := &tomlFile{src: src, nl: "\n"}
	if bytes.Contains(src, []byte("\r\n")) {
		f.nl = "\r\n"
	}
	if _, err := toml.Decode(string(src), &f.doc); err != nil {
		return nil, fmt.Errorf("not valid TOML: %w", err)
	}
	return f, nil
}

var tomlHeader = regexp.MustCompile(`^\s*\[`)

// tableLines finds the lines [start, end) holding the table [servers.name] and its sub-tables;
// end is after its last line that is neither blank nor a comment, so what introduces the next
// table stays with it. ok is false when the file has no such header.
func (f *tomlFile) tableLines(lines []string, servers, name string) (start, end int, ok bool, err error) {
	own := regexp.MustCompile(`^\s*\[\s*` + regexp.QuoteMeta(servers) + `\s*\.\s*(` + regexp.QuoteMeta(name) + `|"` + regexp.QuoteMeta(name) + `"|'` + regexp.QuoteMeta(name) + `')\s*(\]|\.)`)
	start, closed, inOwn := -1, false, false
	for i, l := range lines {
		if tomlHeader.MatchString(l) {
			if !own.MatchString(l) {
				closed = closed || inOwn
				inOwn = false
				continue
			}
			if closed {
				return 0, 0, false, fmt.Errorf("%w: [%s.%s] is split across the file", errShape, servers, name)
			}
			if start < 0 {
				start = i
			}
			inOwn, end = true, i+1
			continue
		}
		if inOwn && !isTOMLFiller([]string{l}) {
			end = i + 1
		}
	}
	return start, end, start >= 0, nil
}

func isTOMLFiller(lines []string) bool {
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

// setEntry returns the file with [servers.name] = entry (entry nil: without it).
func (f *tomlFile) setEntry(servers, name string, entry map[string]any) ([]byte, error) {
	text := string(f.src)
	lines := strings.SplitAfter(text, "\n")
	start, end, found, err := f.tableLines(lines, servers, name)
	if err != nil {
		return nil, err
	}
	_, exists := serversOf(f.doc, servers)[name]
	if exists && !found {
		return nil, fmt.Errorf("%w: %s.%s is not written as its own [%s.%s] table", errShape, servers, name, servers, name)
	}
	block := ""
	if entry != nil {
		block = f.render(servers, name, entry)
	}
	switch {
	case found:
		if entry == nil && start > 0 && strings.TrimSpace(lines[start-1]) == "" && strings.TrimSpace(strings.Join(lines[end:], "")) == "" {
			start-- // the blank line an install put before the table at the end
		} else if entry == nil && start > 0 && end < len(lines) && strings.TrimSpace(lines[start-1]) == "" && strings.TrimSpace(lines[end]) == "" {
			end++ // one blank line between the tables around it, not two
		}
		return []byte(strings.Join(lines[:start], "") + block + strings.Join(lines[end:], "")), nil
	case entry == nil:
		return f.src, nil
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += f.nl
	}
	if text != "" {
		text += f.nl
	}
	return []byte(text + block), nil
}

func (f *tomlFile) render(servers, name string, entry map[string]any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s.%s]%s", servers, name, f.nl)
	keys := make([]string, 0, len(entry))
	for k := range entry {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s = %s%s", k, tomlValue(entry[k]), f.nl)
	}
	return b.String()
}

func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return tomlQuote(v)
	case []string:
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = tomlQuote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	case bool:
		return fmt.Sprint(v)
	}
	panic(fmt.Sprintf("installer: no TOML form for %T", v))
}

// tomlQuote writes a TOML basic string.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// serversOf is doc's servers map, nil when there is none.
func serversOf(doc map[string]any, servers string) map[string]any {
	m, _ := doc[servers].(map[string]any)
	return m
}
