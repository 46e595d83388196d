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
// own, so a row's record is always readable from the row: an append writes both, and a reindex
// (a stored message gaining parts) either extends the text, which leaves every copy where it
// was (referenceExtends), or writes the record again, encoded against the new text.

// appendReference appends what a record is encoded against: the search text as a JSON
// string's contents. Agents' records hold their text escaped, and a run without escapes reads
// the same either way. Escaping goes byte by byte, so the reference of a longer text that
// begins with a shorter one begins with the shorter one's. This escaping is part of the stored
// form; changing it would misread every record encoded with it.
func appendReference(dst []byte, searchText string) []byte {
	for i := 0; i < len(searchText); i++ {
		switch c := searchText[i]; {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// referenceExtends reports whether a record encoded against old's reference still reads against
// next's: next begins with old, so its reference begins with old's.
func referenceExtends(next, old string) bool { return strings.HasPrefix(next, old) }

// recordEncoder encodes records for Lance, reusing its buffers: what encode returns is valid
// until its next call. One is not for concurrent use.
type recordEncoder struct {
	delta    delta.Encoder
	ref, out []byte
}

// encode gives the form of record that Lance stores beside searchText (nil for no record).
func (e *recordEncoder) encode(record, searchText string) []byte {
	if record == "" {
		return nil
	}
	e.ref = appendReference(e.ref[:0], searchText)
	e.out = e.delta.Append(e.out[:0], record, e.ref)
	return e.out
}

// decodeRecord reads a stored record back against its row's search text; ref is a buffer the
// caller reuses between calls.
func decodeRecord(stored, searchText string, ref *[]byte) (string, error) {
	if !strings.HasPrefix(stored, "\x00") {
		return stored, nil
	}
	*ref = appendReference((*ref)[:0], searchText)
	record, err := delta.Decode(stored, *ref)
	if err != nil {
		return "", fmt.Errorf("store: raw record: %w", err)
	}
	return record, nil
}
