package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
	b := make([]byte, 0, len(text)+16)
	b = append(b, `{"text":`...)
	b = AppendJSONString(b, text)
	return string(append(b, '}'))
}

// AppendJSONString appends s as a JSON string, without json.Marshal's HTML escaping: text
// keeps its <, > and &.
func AppendJSONString(b []byte, s string) []byte {
	enc, _ := json.Marshal(s) // cannot fail for a string
	if !bytes.Contains(enc, []byte(`\u00`)) {
		return append(b, enc...)
	}
	// Escapes are read one at a time: a text holding a backslash and "u003c" is encoded
	// "\\u003c", which is no escape of "<" and stays as it is.
	for i := 0; i < len(enc); i++ {
		c := enc[i]
		if c != '\\' || i+1 == len(enc) {
			b = append(b, c)
			continue
		}
		if i+5 < len(enc) && enc[i+1] == 'u' {
			switch string(enc[i+2 : i+6]) {
			case "003c":
				b, i = append(b, '<'), i+5
				continue
			case "003e":
				b, i = append(b, '>'), i+5
				continue
			case "0026":
				b, i = append(b, '&'), i+5
				continue
			}
		}
		b, i = append(b, c, enc[i+1]), i+1
	}
	return b
}

// isTextPart reports whether variantData is TextPart(text), without building it.
func isTextPart(variantData, text string) bool {
	if len(variantData) < len(textHead)+len(text)+3 || !strings.HasPrefix(variantData, textHead) {
		return false
	}
	return variantData == TextPart(text)
}

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

// variantDataSQL is the parts view's variant_data: a derived part's text from its message,
// a packed value unpacked, any other as it is. p is part_rows' alias in the view.
const variantDataSQL = `CASE WHEN typeof(p.variant_data_packed) != 'blob' THEN p.variant_data_packed
			WHEN length(p.variant_data_packed) = 0 THEN (SELECT pond_text_part(m.search_text) FROM message_rows m
				WHERE m.session_id = p.session_id AND m.message_id = p.message_id)
			ELSE pond_unpack(p.variant_data_packed) END`

// derivedTextTrigger gives a message's derived parts their own value before its search text
// changes, so that they keep the text they were written with.
const derivedTextTrigger = `CREATE TRIGGER IF NOT EXISTS parts_keep_derived_text BEFORE UPDATE OF search_text ON message_rows
		WHEN old.search_text IS NOT new.search_text BEGIN
		UPDATE part_rows SET variant_data_packed = pond_pack(pond_text_part(old.search_text))
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
				if lookup, err = tx.PrepareContext(ctx, `SELECT search_text FROM message_rows WHERE session_id = ? AND message_id = ?`); err != nil {
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
