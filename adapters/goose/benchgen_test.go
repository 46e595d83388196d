package goose_test

import (
	"testing"
	"time"

	"github.com/pondhq/pond/adapters/corpus"
	"github.com/pondhq/pond/adapters/goose"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store/sqlite"
)

// TestCorpusReadsBack: the benchmark corpus's database reads back as the messages Messages
// promises, every tool request with its response.
func TestCorpusReadsBack(t *testing.T) {
	f := goose.New().Corpus(corpus.Env{CreateDB: sqlite.CreateFromScript, WriteDB: sqlite.WriteAgentDB})
	home := t.TempDir()
	root := f.Root(home)
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	want := 0
	for i := range 3 {
		c := &corpus.Conv{Index: i, ID: "0f0e0d0c-0b0a-4909-8807-06050403020" + string(rune('1'+i)), Cwd: "/w/p", Start: t0.Add(time.Duration(i) * time.Hour),
			RandHex: func(n int) string { return "abcdef0123456789abcdef0123456789abcdef"[:n] }}
		c.Turns = []corpus.Turn{
			{Kind: corpus.UserText, At: c.Start.Add(time.Second), Text: "fix it"},
			{Kind: corpus.ToolRun, At: c.Start.Add(2 * time.Second), Text: "go test", Tool: "developer__shell", Output: "ok"},
			{Kind: corpus.AssistantText, At: c.Start.Add(3 * time.Second), Text: "fixed"},
		}
		c.LastAt = c.Start.Add(4 * time.Second)
		if _, err := f.Write(root, c); err != nil {
			t.Fatal(err)
		}
		want += f.Messages(c)
	}
	if err := f.Finish(root); err != nil {
		t.Fatal(err)
	}
	c := readRoot(t, root)
	if got := c.Counts(); got.Sessions != 3 || got.Messages != want {
		t.Errorf("read %+v, want 3 sessions and %d messages", got, want)
	}
	calls, results := 0, 0
	for _, p := range c.Parts() {
		switch p.Type {
		case session.PartToolCall:
			calls++
		case session.PartToolResult:
			results++
		}
	}
	if calls != 3 || results != 3 {
		t.Errorf("%d calls, %d results, want 3 of each", calls, results)
	}
}
