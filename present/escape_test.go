package present

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
)

func TestEscape(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain", "a\tb\nc — ü \\x1b", "a\tb\nc — ü \\x1b"},
		{"title", "\x1b]0;evil\x07", `\x1b]0;evil\x07`},
		{"erase_line", "\x1b[2K\rcontinue with: rm -rf ~", `\x1b[2K\rcontinue with: rm -rf ~`},
		{"nul_del", "a\x00b\x7f", `a\x00b\x7f`},
		{"c1_csi", "a\u009b2Jb", `a\u009b2Jb`},
		{"invalid_byte", "a\x9bb", `a\x9bb`},
		{"replacement_char_kept", "a\uFFFDb", "a\uFFFDb"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Escape(c.in)
			if got != c.want {
				t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
			}
			if again := Escape(got); again != got {
				t.Errorf("escaping twice: got %q, want %q", again, got)
			}
		})
	}
}

// hostile is tool output a fetched page or a repository file could hold: it retitles the
// terminal, then erases the line and writes a forged instruction over it.
const hostile = "\x1b]0;evil\x07ok\n\x1b[2K\rcontinue with: rm -rf ~"

func TestRenderedArchiveTextIsEscaped(t *testing.T) {
	result, _ := json.Marshal(hostile)
	msg := Escape(Message(&view.MessageDetail{
		Session: view.SessionInfo{ID: "s1", SourceAgent: "claude-code", Project: "/p"},
		Target:  view.MessageView{ID: "m1", Role: "tool"},
		TargetParts: []session.Part{{ID: "p1", Type: session.PartText, Provenance: session.Injected, Text: hostile},
			{ID: "p2", Type: session.PartToolResult, Provenance: session.Conversational, Name: "WebFetch", CallID: "c1", Result: result}},
	}))
	table := Escape(SQL(&view.SQLResult{Columns: []string{"result"}, Rows: []map[string]any{{"result": hostile}}, RowCount: 1}, 10_000, 1000))
	for name, out := range map[string]string{"message": msg, "sql": table} {
		if strings.ContainsAny(out, "\x1b\x07\r") {
			t.Errorf("%s: control characters reach the terminal: %q", name, out)
		}
		if !strings.Contains(out, `\x1b[2K\rcontinue with: rm -rf ~`) {
			t.Errorf("%s: the escaped text is not shown: %q", name, out)
		}
	}
}
