package opencode

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store/sqlite"
)

// fixtures is the shared folder of real agent files (never copied into the repository).
var fixtures = filepath.Join("..", "..", "..", "shared", "fixtures", "opencode")

// TestCorpus reads the genuine OpenCode 1.18.33 database dump and the two hand-made legacy
// trees, logging the outcome per session.
func TestCorpus(t *testing.T) {
	tests := []struct {
		name  string
		db    string // an SQL dump, loaded as opencode.db
		tree  string // a legacy tree, copied as storage/
		want  adaptertest.Counts
		drift int
	}{
		{name: "lazyagents-1.18.33", db: "lazyagents/1.18.33/home/.local/share/opencode/opencode.sql",
			want: adaptertest.Counts{Sessions: 1, Messages: 7, Parts: 4}},
		{name: "agent-sessions-storage_v2", tree: "agent-sessions/storage_v2",
			want: adaptertest.Counts{Sessions: 2, Messages: 10, Parts: 12}},
		{name: "agent-sessions-storage_legacy", tree: "agent-sessions/storage_legacy",
			want: adaptertest.Counts{Sessions: 1, Messages: 2, Parts: 3}, drift: 1}, // tool status "success"
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if tt.db != "" {
				script, err := os.ReadFile(filepath.Join(fixtures, tt.db))
				if err != nil {
					t.Skipf("fixture not available: %v", err)
				}
				if err := sqlite.CreateFromScript(filepath.Join(root, "opencode.db"), string(script)); err != nil {
					t.Fatal(err)
				}
			}
			if tt.tree != "" {
				dir := filepath.Join(fixtures, tt.tree)
				if _, err := os.Stat(dir); err != nil {
					t.Skipf("fixture not available: %v", err)
				}
				if err := os.CopyFS(filepath.Join(root, "storage"), os.DirFS(dir)); err != nil {
					t.Fatal(err)
				}
			}
			var c adaptertest.Collector
			adaptertest.ReadRoot(t, New(), testEnv(root), root, nil, &c)
			logSessions(t, &c)
			if got := c.Counts(); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if len(c.Drift) != tt.drift {
				t.Errorf("got %d unknown reports %+v, want %d", len(c.Drift), c.Drift, tt.drift)
			}
			for _, p := range c.Parts() {
				if p.Type == session.PartToolCall && p.CallID == "" {
					t.Errorf("tool call %s/%s has no call id", p.MessageID, p.ID)
				}
			}
		})
	}
}

func logSessions(t *testing.T, c *adaptertest.Collector) {
	t.Helper()
	type tally struct{ messages, system, parts, tools int }
	n := map[string]*tally{}
	for id := range c.Sessions() {
		n[id] = &tally{}
	}
	for _, m := range c.Messages() {
		n[m.SessionID].messages++
		if m.Role == session.RoleSystem {
			n[m.SessionID].system++
		}
	}
	for _, p := range c.Parts() {
		n[p.SessionID].parts++
		if p.Type == session.PartToolCall {
			n[p.SessionID].tools++
		}
	}
	var ids []string
	for id := range n {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		s, x := c.Sessions()[id], n[id]
		t.Logf("%s (%s, %s): %d messages (%d system), %d parts, %d tool calls", id, s.SourceAgent, s.Project, x.messages, x.system, x.parts, x.tools)
	}
	for _, p := range c.Bad {
		t.Logf("malformed %s: %s", p.At.Path, p.What)
	}
	for _, p := range c.Drift {
		t.Logf("unknown %s: %s", p.At.Path, p.What)
	}
}
