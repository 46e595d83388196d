package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// A message's search text is, most of the time, its one text part's text: the mirror would
// hold that text twice, once in message_rows.search_text (which the full-text indexes read)
// and once in the part's variant_data. A part whose variant_data is exactly TextPart of its
// message's search text is therefore stored as derived: variant_data_packed holds an empty
// BLOB (a form pack never writes), and the parts view gives back pond_text_part(search_text)
// of its message. Nothing is derived unless the bytes match, so any other rendering, several
// text parts, or trimmed whitespace keep their own copy.
//
// A derived part is written only beside the insert of its message, in the same transaction;
// when a message's search text changes afterwards (it gained parts, a reindex, a newer copy
// of it), a trigger first gives its derived parts their own value (derivedTextTrigger).

// derivedText is the stored form of a derived part's variant_data.
var derivedText = []byte{}

// TextPart is a text part's variant_data for text, as the store writes it.
func TextPart(text string) string {
	b := make([]byte, 0, len(textHead)+len(text)+3)
	b = append(b, textHead...)
	b = AppendJSONString(b, text)
	return string(append(b, '}'))
}

// AppendJSONString appends s as a JSON string exactly as encoding/json writes it with HTML
// escaping off: text keeps its <, > and &; control characters, quotes and backslashes are
// escaped, invalid UTF-8 becomes U+FFFD, and U+2028 and U+2029 are escaped. It is written by
// hand because every text and tool body of a capture goes through it: json.Marshal would
// allocate a copy of each, and the HTML escapes would then be undone in a second pass.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0 // s[start:i] is still to be copied as it is
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// isTextPart reports whether variantData is TextPart(text), encoding text into a pooled
// buffer rather than a new string: the writer asks it of every text part it takes in.
func isTextPart(variantData, text string) bool {
	if len(variantData) < len(textHead)+len(text)+3 || !strings.HasPrefix(variantData, textHead) {
		return false
	}
	buf := textScratch.Get().(*[]byte)
	*buf = append(AppendJSONString(append((*buf)[:0], textHead...), text), '}')
	same := variantData == string(*buf)
	if cap(*buf) <= 1<<20 { // a rare huge text does not stay pinned in the pool
		textScratch.Put(buf)
	}
	return same
}

var textScratch = sync.Pool{New: func() any { return new([]byte) }}

// textPartSQL is pond_text_part: TextPart of a search text, NULL for NULL.
func textPartSQL(v any) any {
	switch t := v.(type) {
	case string:
		return TextPart(t)
	case []byte:
		return TextPart(string(t))
	}
	return nil
}

// packSQL is pond_pack: a value's stored form in part_rows (pack with the parts' encoder).
func packSQL(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	enc, _ := codecs()
	return pack(enc, s)
}

// variantDataSQL is the parts view's variant_data: a derived part's text from its message, a
// value left to Lance read from it (lance is the SQL giving it), a packed value unpacked, any
// other as it is. p is part_rows' alias in the view.
func variantDataSQL(lance string) string {
	return `CASE WHEN typeof(p.variant_data_packed) != 'blob' THEN p.variant_data_packed
			WHEN length(p.variant_data_packed) = 0 THEN (SELECT pond_text_part(` + SearchTextSQL("m") + `) FROM message_rows m
				WHERE m.session_id = p.session_id AND m.message_id = p.message_id)
			WHEN p.variant_data_packed = x'00' THEN ` + lance + `
			ELSE pond_unpack(p.variant_data_packed) END`
}

// partValueSQL is the SQL reading a part's column from Lance, in the parts view.
func partValueSQL(column string) string {
	return `pond_part_value(p.session_id, p.message_id, p.id, '` + column + `', p.ingest_seq)`
}

// optionsSQL is the parts view's options: like variantDataSQL, with no derived form.
func optionsSQL(lance string) string {
	return `CASE WHEN typeof(p.options_packed) != 'blob' THEN p.options_packed
			WHEN p.options_packed = x'00' THEN ` + lance + `
			ELSE pond_unpack(p.options_packed) END`
}

// derivedTextTrigger gives a message's derived parts their own value before its search text
// changes, so that they keep the text they were written with.
var derivedTextTrigger = `CREATE TRIGGER IF NOT EXISTS parts_keep_derived_text BEFORE UPDATE OF search_text ON message_rows
		WHEN old.search_text IS NOT new.search_text BEGIN
		UPDATE part_rows SET variant_data_packed = pond_pack(pond_text_part(` + unpackedSQL("old.search_text") + `))
			WHERE session_id = old.session_id AND message_id = old.message_id
			AND typeof(variant_data_packed) = 'blob' AND length(variant_data_packed) = 0;
	END`

// textHead starts every text part's variant_data.
const textHead = `{"text":`

// deriver returns what the writer stores as a part's variant_data, given packRows' form of it:
// derivedText when the part is its message's search text as the mirror holds it once the
// batch's messages are in, else the packed value. A part packRows marked derived has its
// message inserted by this batch (the common case: no lookup) unless that message was stored
// before (stale); any other part that starts like a text part is compared with its message's
// stored search text (a mirror rebuilt or caught up from Lance takes parts apart from their
// messages).
func (m *Mirror) deriver(ctx context.Context, tx *sql.Tx, texts map[[2]string]string, stale map[[2]string]bool) (func(*PartRow, any) (any, error), error) {
	var lookup *sql.Stmt
	enc, _ := codecs()
	return func(p *PartRow, data any) (any, error) {
		key := [2]string{p.SessionID, p.MessageID}
		_, inBatch := texts[key]
		inBatch = inBatch && !stale[key] // inserted by this batch, with the text packRows compared
		marked := false
		if b, ok := data.([]byte); ok && len(b) == 0 {
			if inBatch {
				return data, nil
			}
			marked = true
		}
		if !inBatch && strings.HasPrefix(p.VariantData, textHead) {
			if lookup == nil {
				var err error
				if lookup, err = tx.PrepareContext(ctx, `SELECT `+SearchTextSQL("m")+` FROM message_rows m WHERE session_id = ? AND message_id = ?`); err != nil {
					return nil, fmt.Errorf("mirror: %w", err)
				}
			}
			var text sql.NullString
			err := lookup.QueryRowContext(ctx, p.SessionID, p.MessageID).Scan(&text)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return nil, fmt.Errorf("mirror: part %s/%s/%s: %w", p.SessionID, p.MessageID, p.ID, err)
			}
			if text.Valid && isTextPart(p.VariantData, text.String) {
				return derivedText, nil
			}
		}
		if marked {
			return pack(enc, p.VariantData), nil
		}
		return data, nil
	}, nil
}
