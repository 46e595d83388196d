package restore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/pondhq/pond/session"
)

// Record is one raw record kept at capture, with the line it was on.
type Record struct {
	Line int
	// Piece is the record's place among several JSON objects written on one line (1, 2, …,
	// from options.source.piece); 0 for a line of one record.
	Piece  int
	Record json.RawMessage
}

// SourceOf is a decoded options.source value: where a canonical object came from, and the raw
// record under "record".
type SourceOf map[string]json.RawMessage

// Source decodes an options.source value (nil when it is not an object). A value the archive
// repaired (invalid UTF-8 in the record) is decoded from its original bytes, so that the record
// replays exactly as the agent wrote it.
func Source(raw json.RawMessage) SourceOf {
	raw, _ = session.Original(raw)
	var s SourceOf
	_ = json.Unmarshal(raw, &s)
	return s
}

// Str is the string under k, or "".
func (s SourceOf) Str(k string) string {
	var v string
	_ = json.Unmarshal(s[k], &v)
	return v
}

// Int is the number under k, or 0.
func (s SourceOf) Int(k string) int {
	var v int
	_ = json.Unmarshal(s[k], &v)
	return v
}

// Truncated reports an options entry the store replaced by a size marker: the value is lost.
func Truncated(raw json.RawMessage) bool {
	return bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`{"pond_truncated_bytes":`))
}

// KeptRecord unwraps the raw source record kept in a canonical object's options.source: the
// source fields and the record, or false when there is none or the store truncated either
// (counted in lost).
func KeptRecord(opt json.RawMessage, lost *int) (SourceOf, json.RawMessage, bool) {
	if opt == nil {
		return nil, nil, false
	}
	if Truncated(opt) {
		*lost++
		return nil, nil, false
	}
	s := Source(opt)
	rec := s["record"]
	if len(rec) == 0 {
		return nil, nil, false
	}
	if Truncated(rec) {
		*lost++
		return nil, nil, false
	}
	return s, rec, true
}

// Records collects every raw record kept in a transcript (on the session, its messages and
// their parts), ordered by source line. lost counts records the store could not keep whole.
func Records(t *Transcript) (recs []Record, lost int) {
	add := func(o json.RawMessage) {
		s, rec, ok := KeptRecord(o, &lost)
		if ok {
			recs = append(recs, Record{Line: s.Int("line"), Piece: s.Int("piece"), Record: rec})
		}
	}
	add(t.Session.Options["source"])
	for _, m := range t.Messages {
		add(m.Options["source"])
		for _, p := range t.Parts[m.ID] {
			add(p.Options["source"])
		}
	}
	sort.SliceStable(recs, func(i, j int) bool {
		if recs[i].Line != recs[j].Line {
			return recs[i].Line < recs[j].Line
		}
		return recs[i].Piece < recs[j].Piece
	})
	return recs, lost
}

// MaxBlankLines bounds the blank lines a replay writes for lines that were not kept. Gaps come
// from malformed lines at capture, a handful in a real session; a stored line number is
// untrusted (options.source.line of 10^12 would otherwise pad the file until memory runs out).
const MaxBlankLines = 1 << 20

// ReplayLines writes records as JSON Lines in source order. A line that was not kept (it was
// malformed at capture) becomes an empty line, which agents skip, so every record keeps its line
// number and a re-capture gives the same keys. Past MaxBlankLines blank lines in all, the gaps
// are closed instead; closed counts the blank lines left out. The later pieces of a line that
// held several objects go back on that line, glued to the one before as they were written.
func ReplayLines(recs []Record) (data []byte, closed int) {
	var b bytes.Buffer
	next, blank := 1, 0
	for i, r := range recs {
		if r.Piece > 1 && i > 0 && recs[i-1].Line == r.Line {
			b.Truncate(b.Len() - 1) // the line break after the piece before
			b.Write(r.Record)
			b.WriteByte('\n')
			continue
		}
		if gap := r.Line - next; gap > 0 {
			pad := min(gap, MaxBlankLines-blank)
			for range pad {
				b.WriteByte('\n')
			}
			blank += pad
			closed += gap - pad
			next = r.Line
		}
		b.Write(r.Record)
		b.WriteByte('\n')
		next++
	}
	return b.Bytes(), closed
}

// NativeLines plans the replay of t's records as JSON Lines at path: native, or downgraded for
// records the archive could not keep whole and for gaps ReplayLines closed.
func NativeLines(path string, t *Transcript) Planned {
	recs, lost := Records(t)
	data, closed := ReplayLines(recs)
	fid := Native
	if lost > 0 {
		fid = Downgraded
	}
	f := NewFile(path, t.Session.ID, t.Session.ID, fid, LostReason(lost), data)
	if closed > 0 {
		f.Downgrade(ClosedGapReason(closed))
	}
	return f
}

// ClosedGapReason says what closing gaps in a replay cost (closed from ReplayLines).
func ClosedGapReason(closed int) string {
	return fmt.Sprintf("the stored line numbers skip more than %d lines: %d blank line(s) were left out, so later records sit on other lines than in the original", MaxBlankLines, closed)
}

// LostReason describes records the archive could not keep whole.
func LostReason(lost int) string {
	if lost == 0 {
		return ""
	}
	return fmt.Sprintf("%d source record(s) were above the archive's value cap and are missing", lost)
}

// Under joins a slash path below root.
func Under(root, rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
