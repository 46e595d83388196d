package present

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pondhq/pond/session/view"
)

// Table lays a query result out as an aligned text table. Faces differ only in how wide a
// column may grow and how much text they can show; each writes its own footer, which names its
// own way to ask for more.
type Table struct {
	// MaxWidth bounds the width columns are padded to (a longer cell runs past it).
	MaxWidth int
	// Budget bounds the table's bytes: rows stop before one would pass it.
	Budget int
}

// Render draws res and says how many rows it showed.
func (t Table) Render(res *view.SQLResult) (text string, shown int) {
	width := make([]int, len(res.Columns))
	for i, c := range res.Columns {
		width[i] = utf8.RuneCountInString(c)
	}
	for _, r := range res.Rows {
		for i, c := range res.Columns {
			width[i] = max(width[i], min(utf8.RuneCountInString(Cell(r[c])), t.MaxWidth))
		}
	}
	line := func(vals []string) string {
		var b strings.Builder
		for i, v := range vals {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(v)
			if pad := width[i] - utf8.RuneCountInString(v); pad > 0 && i < len(vals)-1 {
				b.WriteString(strings.Repeat(" ", pad))
			}
		}
		return strings.TrimRight(b.String(), " ") + "\n"
	}
	var b strings.Builder
	b.WriteString(line(res.Columns))
	seps := make([]string, len(width))
	for i, w := range width {
		seps[i] = strings.Repeat("-", max(w, 1))
	}
	b.WriteString(line(seps))
	for _, r := range res.Rows {
		vals := make([]string, len(res.Columns))
		for i, c := range res.Columns {
			vals[i] = Cell(r[c])
		}
		l := line(vals)
		if b.Len()+len(l) > t.Budget {
			break
		}
		b.WriteString(l)
		shown++
	}
	return b.String(), shown
}

// Cell is a value as a table shows it: NULL, a string on one line, or other values as JSON
// (so a number reads the same whether it came from the mirror or over the socket).
func Cell(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		return strings.ReplaceAll(v, "\n", `\n`)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// SQL is what `pond sql` prints: the table within budget bytes, then how many rows there
// were, how many it shows and what was cut (cells longer than cellChars characters).
func SQL(res *view.SQLResult, budget, cellChars int) string {
	table, shown := Table{MaxWidth: 80, Budget: budget}.Render(res)
	var b strings.Builder
	b.WriteString(table)
	fmt.Fprintf(&b, "%d rows in %d ms", res.RowCount, res.ElapsedMs)
	if shown < res.RowCount {
		fmt.Fprintf(&b, "; showing %d (text budget)", shown)
	}
	if res.Truncated {
		b.WriteString("; more rows exist: raise --limit or page with WHERE key > last")
	}
	if res.Clipped > 0 {
		fmt.Fprintf(&b, "; %d cells clipped at %d characters", res.Clipped, cellChars)
	}
	b.WriteString("\n")
	return b.String()
}
