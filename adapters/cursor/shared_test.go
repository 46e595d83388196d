package cursor

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/adaptertest"
)

// shared are the public samples of ../shared/fixtures/cursor (cursor-agent transcripts and a
// chat store from agent-sessions' tests; no public sample of the IDE's database exists).
var shared = filepath.Join("..", "..", "..", "shared", "fixtures", "cursor", "agent-sessions")

// TestSharedTranscripts: every line of every public transcript becomes a message, none is
// malformed, and every tool_use a tool call.
func TestSharedTranscripts(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("no shared fixtures: %v", err)
	}
	n := 0
	filepath.WalkDir(shared, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		n++
		data, _ := os.ReadFile(p)
		lines, tools := 0, bytes.Count(data, []byte(`"type":"tool_use"`))
		for sc := bufio.NewScanner(bytes.NewReader(data)); sc.Scan(); {
			if len(bytes.TrimSpace(sc.Bytes())) > 0 {
				lines++
			}
		}
		rel, _ := filepath.Rel(shared, p)
		var c adaptertest.Collector
		adaptertest.ReadSource(t, New(), testEnv(t), filepath.ToSlash(rel), p, adapters.Cursor{}, &c)
		calls := 0
		for _, part := range c.Parts() {
			if part.Type == "tool_call" {
				calls++
			}
		}
		if got := c.Counts(); got.Sessions != 1 || got.Messages != lines || got.Malformed != 0 || calls != tools {
			t.Errorf("%s: %v and %d tool calls, want 1 session, %d messages, %d tool calls", rel, got, calls, lines, tools)
		}
		return nil
	})
	if n == 0 {
		t.Error("no transcript in the shared fixtures")
	}
}

// TestSharedStore: the public chat store reads as its chat's session, named and timed by its
// meta row.
func TestSharedStore(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(shared, "test-store.db"))
	if err != nil {
		t.Skipf("no shared chat store: %v", err)
	}
	const id = "a1b2c3d4-e5f6-7890-abcd-ef1234567890" // its meta's agentId
	root := t.TempDir()
	path := filepath.Join(root, "chats", "0123", id, "store.db")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var c adaptertest.Collector
	adaptertest.ReadRoot(t, New(), testEnv(t), root, nil, &c)
	s, ok := c.Sessions()[id]
	if !ok || len(c.Bad) != 0 {
		t.Fatalf("sessions %v, malformed %v", c.Sessions(), c.Bad)
	}
	if want := time.UnixMilli(1775522590321).UTC(); !s.CreatedAt.Equal(want) || !strings.Contains(string(s.Options["source"]), `"name":"Test Session"`) {
		t.Errorf("session %+v: want created %v and the meta's name", s, want)
	}
}
