package store

import (
	"fmt"
	"strings"

	"github.com/pondhq/pond/store/delta"
)

// Raw records in Lance. messages.options holds each message's raw record (the line its agent
// wrote, with Pond's capture stamp), and messages.search_text in the same row holds the prose
// the record carries, which Lance compresses in another column and cannot see twice. The record
// is stored as a delta against that row's search text (store/delta): its envelope and tool
// bodies, and copies for the rest (docs/benchmarks.md, 2026-12-07). The reference is the row's
// own, so every write of a row writes both together: an append writes whole rows, and a change
// of search text (reindexRecord) writes the record again, encoded against the new text.

// recordReference is what a record is encoded against: the search text as it is, and as a JSON
// string's contents (agents' records hold their text escaped). This escaping is part of the
// stored form; changing it would misread every record encoded with it.
func recordReference(searchText string) string {
	if searchText == "" {
		return ""
	}
	var b strings.Builder
	b.Grow(2*len(searchText) + 16)
	b.WriteString(searchText)
	b.WriteByte(0)
	for i := 0; i < len(searchText); i++ {
		switch c := searchText[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// encodeRecord gives the form of record that Lance stores beside searchText.
func encodeRecord(e *delta.Encoder, record, searchText string) string {
	if record == "" {
		return ""
	}
	return e.Encode(record, recordReference(searchText))
}

// decodeRecord reads a stored record back against its row's search text.
func decodeRecord(stored, searchText string) (string, error) {
	if !strings.HasPrefix(stored, "\x00") {
		return stored, nil
	}
	record, err := delta.Decode(stored, recordReference(searchText))
	if err != nil {
		return "", fmt.Errorf("store: raw record: %w", err)
	}
	return record, nil
}
