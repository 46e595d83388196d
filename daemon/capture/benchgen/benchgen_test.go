package benchgen

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store/sqlite"
)

// TestAdaptersReadTheCorpus writes a small corpus and reads it back with the real adapters,
// each through its own discovery from the fake home: every session and message the manifest
// promises comes back, every tool run as a call and a result (failed exactly when the tool
// failed), with nothing malformed or unknown.
func TestAdaptersReadTheCorpus(t *testing.T) {
	home := t.TempDir()
	cfg := Default()
	cfg.Sessions, cfg.MessagesPerSession = 31, 40 // over 23 projects: some hold several sessions; every agent gets a failed run
	m, err := Write(home, cfg)
	if err != nil {
		t.Fatal(err)
	}
	env := adaptertest.FakeEnv("linux", home, nil)
	env.OpenSQLite = sqlite.OpenAgentDB
	for _, name := range Agents {
		t.Run(name, func(t *testing.T) {
			a, ok := all.ByName(name)
			if !ok {
				t.Fatalf("no adapter %s", name)
			}
			// An agent may have several roots (Cline: its data dir and each editor's folder);
			// the corpus goes in one of them.
			roots := a.Roots(env)
			if !slices.Contains(roots, m.Roots[name]) {
				t.Fatalf("adapter roots %v, corpus root %s", roots, m.Roots[name])
			}
			var c adaptertest.Collector
			cursors := adaptertest.ReadRoot(t, a, env, m.Roots[name], nil, &c)
			want := m.Agents[name]
			got := c.Counts()
			if got.Sessions != want.Sessions || got.Messages != want.Messages || got.Malformed != 0 {
				t.Errorf("read %v, want %d sessions, %d messages, 0 malformed", got, want.Sessions, want.Messages)
			}
			if len(c.Drift) > 0 {
				t.Errorf("unknown records reported: %v", c.Drift[:min(3, len(c.Drift))])
			}
			calls, results, failed := 0, 0, 0
			for _, p := range c.Parts() {
				switch p.Type {
				case session.PartToolCall:
					calls++
				case session.PartToolResult:
					results++
					if p.IsFailure {
						failed++
					}
				}
			}
			// The failures are counted, not hoped for: how sessions fall to agents changes
			// with every agent added.
			if calls != want.ToolRuns || results != want.ToolRuns || failed != want.Failed {
				t.Errorf("%d tool calls, %d results (%d failed), want %d runs (%d failed)", calls, results, failed, want.ToolRuns, want.Failed)
			}
			for _, s := range c.Sessions() {
				// An agent whose files lie in the project (Aider) has it under the home.
				if s.SourceAgent != name || filepath.Dir(s.Project) != "/home/dev/src" && filepath.Dir(s.Project) != filepath.Join(home, "src") {
					t.Errorf("session %s: agent %q project %q", s.ID, s.SourceAgent, s.Project)
				}
			}
			// A second read from the cursors finds nothing new.
			var again adaptertest.Collector
			adaptertest.ReadRoot(t, a, env, m.Roots[name], cursors, &again)
			if n := len(again.Events); n != 0 {
				t.Errorf("re-read emitted %d events", n)
			}
		})
	}
	if tot := m.Total(); tot.Sessions != cfg.Sessions || tot.Bytes == 0 || tot.Failed == 0 {
		t.Errorf("total %+v", tot)
	}
}

// TestDeterministic: the same config writes the same corpus.
func TestDeterministic(t *testing.T) {
	cfg := Default()
	cfg.Sessions, cfg.MessagesPerSession = 5, 20
	a, err := Write(t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Write(t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if a.Total() != b.Total() {
		t.Errorf("two runs: %+v vs %+v", a.Total(), b.Total())
	}
}

// TestOnly: a corpus for some agents holds their sessions alone, all of them; a name that is
// no corpus format is refused.
func TestOnly(t *testing.T) {
	cfg := Default()
	cfg.Sessions, cfg.MessagesPerSession = 6, 10
	cfg.Only = []string{"openclaw", "hermes"}
	m, err := Write(t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Agents) != 2 || m.Agents["hermes"] == nil || m.Agents["openclaw"] == nil ||
		m.Agents["hermes"].Sessions+m.Agents["openclaw"].Sessions != 6 || m.Agents["hermes"].Sessions == 0 {
		t.Errorf("agents in the manifest: %v", m.Agents)
	}
	cfg.Only = []string{"hermes", "no-such-agent"}
	if _, err := Write(t.TempDir(), cfg); err == nil {
		t.Errorf("a corpus for an unknown agent was written")
	}
}
