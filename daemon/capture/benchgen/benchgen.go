// Package benchgen writes a corpus of native session files for every agent in adapters/all —
// today Claude Code, Codex CLI, Gemini CLI, OpenCode and Pi — laid out in one fake home
// directory the way each agent lays out its own, so that the real adapters discover and parse it
// and a whole `pond sync` can be measured on it. Each agent's format is its adapter's
// corpus.Generator (adapters/<agent>/benchgen.go); this package deals the sessions.
//
// Sessions go round-robin to the agents. Each is a conversation of user turns, assistant
// answers and tool exchanges (a call and its result); texts and tool results are drawn from
// session/sessiongen's size distribution (text log-normal, median ~300 B, p95 ~4 KB; results
// log-uniform 1–32 KB). A tool exchange is one message in the formats that keep a call with its
// result (Gemini CLI, OpenCode) and two in the others, so each session's length is counted in
// the canonical messages its own adapter will produce, and the manifest says how many that is.
package benchgen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/adapters/corpus"
	"github.com/pondhq/pond/session/sessiongen"
	"github.com/pondhq/pond/store/sqlite"
)

// Config shapes a corpus.
type Config struct {
	Seed     uint64
	Sessions int
	// MessagesPerSession is the average length in canonical messages; each session gets
	// 50–150 % of it.
	MessagesPerSession int
	// ToolShare is the chance that an assistant step is a tool exchange rather than an answer.
	ToolShare float64
	Start     time.Time
	// Only, when set, names the agents the corpus is for (a subset of Agents, dealt in
	// Agents' order), to measure some formats alone.
	Only []string
}

// Default is issue 4's benchmark corpus: 2,000 sessions, ~500k messages over the five formats.
func Default() Config {
	return Config{Seed: 1, Sessions: 2000, MessagesPerSession: 250, ToolShare: 0.25,
		Start: time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)}
}

// Agents are the adapters' names, in the order sessions are dealt to them: adapters/all's.
var Agents = func() []string {
	var out []string
	for _, a := range all.Adapters() {
		if _, ok := a.(corpus.Generator); ok {
			out = append(out, a.Name())
		}
	}
	return out
}()

// Counts is what a corpus holds for one agent: what its adapter should read back.
type Counts struct {
	Sessions int   `json:"sessions"`
	Messages int   `json:"messages"` // canonical messages the adapter produces
	ToolRuns int   `json:"tool_runs"`
	Failed   int   `json:"failed_runs"` // tool runs whose tool failed
	Bytes    int64 `json:"bytes"`       // size of the native records written
}

// Manifest describes a written corpus.
type Manifest struct {
	Home   string             `json:"home"`
	Roots  map[string]string  `json:"roots"` // adapter name → the root its discovery finds under Home
	Agents map[string]*Counts `json:"agents"`
}

// Total sums the agents' counts.
func (m *Manifest) Total() Counts {
	var t Counts
	for _, c := range m.Agents {
		t.Sessions += c.Sessions
		t.Messages += c.Messages
		t.ToolRuns += c.ToolRuns
		t.Failed += c.Failed
		t.Bytes += c.Bytes
	}
	return t
}

// formats are a fresh format of each agent's, by name.
func formats() map[string]corpus.Format {
	env := corpus.Env{CreateDB: sqlite.CreateFromScript, WriteDB: sqlite.WriteAgentDB}
	out := map[string]corpus.Format{}
	for _, a := range all.Adapters() {
		if g, ok := a.(corpus.Generator); ok {
			out[a.Name()] = g.Corpus(env)
		}
	}
	return out
}

// Write generates cfg's corpus under home and returns its manifest.
func Write(home string, cfg Config) (*Manifest, error) {
	words := sessiongen.New(sessiongen.Config{Seed: cfg.Seed})
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5bd1e995))
	fs := formats()
	agents := Agents
	if len(cfg.Only) > 0 {
		agents = nil
		for _, a := range Agents {
			if slices.Contains(cfg.Only, a) {
				agents = append(agents, a)
			}
		}
		for _, a := range cfg.Only {
			if fs[a] == nil {
				return nil, fmt.Errorf("benchgen: no corpus format for %q (formats: %s)", a, strings.Join(Agents, ", "))
			}
		}
	}
	m := &Manifest{Home: home, Roots: map[string]string{}, Agents: map[string]*Counts{}}
	for _, a := range agents {
		m.Roots[a] = fs[a].Root(home)
		m.Agents[a] = &Counts{}
		if err := os.MkdirAll(m.Roots[a], 0o755); err != nil {
			return nil, fmt.Errorf("benchgen: %w", err)
		}
	}
	hex := func(n int) string {
		const digits = "0123456789abcdef"
		b := make([]byte, n)
		for i := range b {
			b[i] = digits[rng.IntN(16)]
		}
		return string(b)
	}
	for i := 0; i < cfg.Sessions; i++ {
		agent := agents[i%len(agents)]
		f := fs[agent]
		start := cfg.Start.Add(time.Duration(i) * 37 * time.Minute)
		c := &corpus.Conv{
			Index: i,
			ID:    hex(8) + "-" + hex(4) + "-4" + hex(3) + "-8" + hex(3) + "-" + hex(12),
			Cwd:   fmt.Sprintf("/home/dev/src/project-%02d", i%23),
			Start: start, LastAt: start, RandHex: hex,
		}
		target := cfg.MessagesPerSession/2 + rng.IntN(cfg.MessagesPerSession+1)
		next := corpus.UserText
		for f.Messages(c) < target {
			c.LastAt = c.LastAt.Add(time.Duration(1+rng.IntN(90)) * time.Second)
			t := corpus.Turn{Kind: next, At: c.LastAt}
			switch next {
			case corpus.UserText, corpus.AssistantText:
				t.Text = words.Text(words.TextSize())
			case corpus.ToolRun:
				t.Tool = []string{"bash", "read", "edit", "grep"}[rng.IntN(4)]
				t.Text = words.Text(20 + rng.IntN(100))
				t.Output = words.Text(words.ResultSize())
				t.Failed = rng.IntN(10) == 0
			}
			c.Turns = append(c.Turns, t)
			switch {
			case next == corpus.AssistantText:
				next = corpus.UserText
			case rng.Float64() < cfg.ToolShare:
				next = corpus.ToolRun
			default:
				next = corpus.AssistantText
			}
		}
		n, err := f.Write(m.Roots[agent], c)
		if err != nil {
			return nil, fmt.Errorf("benchgen: write %s session %s: %w", agent, c.ID, err)
		}
		ac := m.Agents[agent]
		ac.Sessions++
		ac.Messages += f.Messages(c)
		ac.Bytes += n
		_, tools := c.CountTurns()
		ac.ToolRuns += tools
		for _, t := range c.Turns {
			if t.Kind == corpus.ToolRun && t.Failed {
				ac.Failed++
			}
		}
	}
	for _, a := range agents {
		if err := fs[a].Finish(m.Roots[a]); err != nil {
			return nil, fmt.Errorf("benchgen: finish %s: %w", a, err)
		}
	}
	return m, nil
}
