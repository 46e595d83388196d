package sqlite

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// textRows is a session whose first message's one text part is its search text (derivable),
// whose second holds two text parts (its search text joins them: not derivable), and a tool
// result; seq numbers its rows from first.
func textRows(first int64) (messages []MessageRow, parts []PartRow) {
	one := "the <build> & \\u003c passed; " + strings.Repeat("again and again ", 40)
	msg := func(id, text string, seq int64) MessageRow {
		return MessageRow{SessionID: "s", MessageID: id, Timestamp: "2026-06-01T09:00:00Z", Role: "assistant", SourceAgent: "claude-code",
			Project: "/p", SearchText: text, IngestSeq: seq}
	}
	part := func(mid, id, typ, body string, seq int64) PartRow {
		return PartRow{SessionID: "s", MessageID: mid, ID: id, Type: typ, Provenance: "conversational", VariantData: body, IngestSeq: seq}
	}
	messages = []MessageRow{msg("m1", one, first), msg("m2", "first half\nsecond half", first+1)}
	parts = []PartRow{
		part("m1", "p1", "text", TextPart(one), first+2),
		part("m2", "p1", "text", TextPart("first half"), first+3),
		part("m2", "p2", "text", TextPart("second half"), first+4),
		part("m2", "p3", "reasoning", `{"text":"`+strings.Repeat("ok\\n", 200)+`"}`, first+5),
	}
	return messages, parts
}

// storedForms is each part's stored form: "derived", "text" or "blob".
func storedForms(t *testing.T, m *Mirror) string {
	t.Helper()
	rows, err := m.db.Query(`SELECT message_id || '/' || id, CASE WHEN typeof(variant_data_packed) = 'blob' AND length(variant_data_packed) = 0
		THEN 'derived' ELSE typeof(variant_data_packed) END FROM part_rows ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k, f string
		if err := rows.Scan(&k, &f); err != nil {
			t.Fatal(err)
		}
		out = append(out, k+"="+f)
	}
	return strings.Join(out, " ")
}

// checkParts wants every part read back through the parts view, on the writer's connection,
// the search pool's and the SQL surface's, exactly as written.
func checkParts(t *testing.T, m *Mirror, parts []PartRow) {
	t.Helper()
	ctx := context.Background()
	search := OpenSearchDB(m.Path(), nil)
	defer search.Close()
	reader, err := OpenReader(m.Path(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	for _, p := range parts {
		q := fmt.Sprintf(`SELECT variant_data FROM parts WHERE message_id = '%s' AND id = '%s'`, p.MessageID, p.ID)
		var viaWriter, viaSearch string
		if err := m.db.QueryRowContext(ctx, q).Scan(&viaWriter); err != nil {
			t.Fatal(err)
		}
		if err := search.QueryRowContext(ctx, q).Scan(&viaSearch); err != nil {
			t.Fatal(err)
		}
		res, err := reader.Query(ctx, `SELECT variant_data = '`+strings.ReplaceAll(p.VariantData, "'", "''")+`' AS same FROM parts WHERE message_id = '`+p.MessageID+`' AND id = '`+p.ID+`'`, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if viaWriter != p.VariantData || viaSearch != p.VariantData || len(res.Rows) != 1 || fmt.Sprint(res.Rows[0]["same"]) != "1" {
			t.Errorf("%s/%s: writer %.50q, search pool %.50q, SQL surface %v; want %.50q", p.MessageID, p.ID, viaWriter, viaSearch, res.Rows, p.VariantData)
		}
	}
}

// TestTextPartsAreStoredOnce checks that a text part equal to its message's search text is
// stored as derived and read back whole, written with its message or apart from it (a
// rebuild), and that it keeps its text when the message's search text changes.
func TestTextPartsAreStoredOnce(t *testing.T) {
	ctx := context.Background()
	session := []SessionRow{{SessionID: "s", SourceAgent: "claude-code", CreatedAt: "2026-06-01T09:00:00Z", Project: "/p", IngestSeq: 1}}
	messages, parts := textRows(2)
	const want = "m1/p1=derived m2/p1=text m2/p2=text m2/p3=blob"

	together := tempMirror(t)
	if err := together.Apply(ctx, &Rows{Sessions: session, Messages: messages, Parts: parts}); err != nil {
		t.Fatal(err)
	}
	if got := storedForms(t, together); got != want {
		t.Errorf("written together: %s, want %s", got, want)
	}
	checkParts(t, together, parts)

	// A rebuild or a catch-up replays the tables one at a time.
	apart := tempMirror(t)
	for _, r := range []*Rows{{Messages: messages}, {Parts: parts}, {Sessions: session}} {
		if err := apart.Apply(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if got := storedForms(t, apart); got != want {
		t.Errorf("written apart: %s, want %s", got, want)
	}
	checkParts(t, apart, parts)

	// The message's search text changes (it gained a part): the derived part keeps its text,
	// now stored as its own.
	if err := together.Apply(ctx, &Rows{Updates: []SearchTextUpdate{{SessionID: "s", MessageID: "m1", SearchText: "something else entirely", IngestSeq: 20}}}); err != nil {
		t.Fatal(err)
	}
	if got := storedForms(t, together); got != "m1/p1=blob m2/p1=text m2/p2=text m2/p3=blob" {
		t.Errorf("after the search text changed: %s", got)
	}
	checkParts(t, together, parts)

	// A part whose message was stored before with another search text is not derived from
	// the batch's copy of that message: the stored one, newer, wins.
	newer := messages[1]
	newer.SearchText, newer.IngestSeq = "the newest text", 30
	if err := apart.Apply(ctx, &Rows{Messages: []MessageRow{newer}}); err != nil {
		t.Fatal(err)
	}
	older := messages[1]
	older.SearchText = "first half"
	late := PartRow{SessionID: "s", MessageID: "m2", ID: "p9", Type: "text", Provenance: "conversational", VariantData: TextPart("first half"), IngestSeq: 31}
	if err := apart.Apply(ctx, &Rows{Messages: []MessageRow{older}, Parts: []PartRow{late}}); err != nil {
		t.Fatal(err)
	}
	if got := storedForms(t, apart); !strings.Contains(got, "m2/p9=text") {
		t.Errorf("a part of a message stored before, with another text: %s", got)
	}
	checkParts(t, apart, append(parts, late))
}

// TestAppendJSONStringMatchesEncodingJSON holds the hand-written encoder to encoding/json's
// output with HTML escaping off, byte for byte, on every control character, the characters
// JSON and HTML escape, U+2028/U+2029, invalid UTF-8 and random strings: the mirror's stored
// text parts, written by either, must compare equal.
func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	want := func(s string) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	cases := []string{"", "plain", `quote " and \ backslash`, "<b> & </b>", "\u2028\u2029", "é日本🙂",
		"bad \xff\xfe utf-8", "\xe2\x80", "tail \xc3", "\x7f del", "\\u003c stays"}
	for c := range 0x20 {
		cases = append(cases, fmt.Sprintf("a%cb", c))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", " ", "\"", "\\", "\n", "\x00", "\x1f", "<", "&", "é", "\u2028", "\xff", "\xe2\x80", "🙂"}
	for range 2000 {
		var s strings.Builder
		for range rng.IntN(24) {
			s.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, s.String())
	}
	for _, s := range cases {
		if got, w := string(AppendJSONString([]byte("x"), s)), "x"+want(s); got != w {
			t.Fatalf("AppendJSONString(%q) = %s, want %s", s, got, w)
		}
		if !isTextPart(`{"text":`+want(s)+`}`, s) || isTextPart(`{"text":`+want(s+"!")+`}`, s) {
			t.Fatalf("isTextPart disagrees with encoding/json on %q", s)
		}
	}
}
