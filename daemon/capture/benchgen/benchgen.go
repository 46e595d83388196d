// Package benchgen writes a corpus of native session files for the five agents Pond captures —
// Claude Code, Codex CLI, Gemini CLI, OpenCode and Pi — laid out in one fake home directory the
// way each agent lays out its own, so that the real adapters discover and parse it and a whole
// `pond sync` can be measured on it.
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
	"path/filepath"
	"time"

	"github.com/pondhq/pond/session/sessiongen"
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
}

// Default is issue 4's benchmark corpus: 2,000 sessions, ~500k messages over the five formats.
func Default() Config {
	return Config{Seed: 1, Sessions: 2000, MessagesPerSession: 250, ToolShare: 0.25,
		Start: time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)}
}

// Agents are the adapters' names, in the order sessions are dealt to them.
var Agents = []string{"claude-code", "codex-cli", "gemini-cli", "opencode", "pi-coding-agent"}

// Counts is what a corpus holds for one agent: what its adapter should read back.
type Counts struct {
	Sessions int   `json:"sessions"`
	Messages int   `json:"messages"` // canonical messages the adapter produces
	ToolRuns int   `json:"tool_runs"`
	Bytes    int64 `json:"bytes"` // size of the native records written
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
		t.Bytes += c.Bytes
	}
	return t
}

// turnKind is what one step of a conversation is.
type turnKind int

const (
	userText turnKind = iota
	assistantText
	toolRun // an assistant's tool call and the tool's result
)

type turn struct {
	kind   turnKind
	at     time.Time
	text   string // user or assistant text; the command of a tool run
	tool   string
	output string // a tool run's result
	failed bool
}

// conv is one generated session before it is written in an agent's format.
type conv struct {
	index   int
	id      string // a UUID
	cwd     string
	start   time.Time
	turns   []turn
	lastAt  time.Time
	randHex func(n int) string
}

// format writes sessions in one agent's native layout.
type format interface {
	// root is the directory the adapter's discovery finds under home.
	root(home string) string
	// messages is what c becomes in the adapter: the canonical messages its records produce.
	messages(c *conv) int
	// write stores c under root and returns the bytes written.
	write(root string, c *conv) (int64, error)
	// finish completes what write left open (an index file, a database).
	finish(root string) error
}

func formats() map[string]format {
	return map[string]format{
		"claude-code":     &claudeFormat{},
		"codex-cli":       &codexFormat{},
		"gemini-cli":      &geminiFormat{projects: map[string]string{}},
		"opencode":        &opencodeFormat{},
		"pi-coding-agent": &piFormat{},
	}
}

// Write generates cfg's corpus under home and returns its manifest.
func Write(home string, cfg Config) (*Manifest, error) {
	words := sessiongen.New(sessiongen.Config{Seed: cfg.Seed})
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5bd1e995))
	fs := formats()
	m := &Manifest{Home: home, Roots: map[string]string{}, Agents: map[string]*Counts{}}
	for _, a := range Agents {
		m.Roots[a] = fs[a].root(home)
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
		agent := Agents[i%len(Agents)]
		f := fs[agent]
		start := cfg.Start.Add(time.Duration(i) * 37 * time.Minute)
		c := &conv{
			index: i,
			id:    hex(8) + "-" + hex(4) + "-4" + hex(3) + "-8" + hex(3) + "-" + hex(12),
			cwd:   fmt.Sprintf("/home/dev/src/project-%02d", i%23),
			start: start, lastAt: start, randHex: hex,
		}
		target := cfg.MessagesPerSession/2 + rng.IntN(cfg.MessagesPerSession+1)
		next := userText
		for f.messages(c) < target {
			c.lastAt = c.lastAt.Add(time.Duration(1+rng.IntN(90)) * time.Second)
			t := turn{kind: next, at: c.lastAt}
			switch next {
			case userText, assistantText:
				t.text = words.Text(words.TextSize())
			case toolRun:
				t.tool = []string{"bash", "read", "edit", "grep"}[rng.IntN(4)]
				t.text = words.Text(20 + rng.IntN(100))
				t.output = words.Text(words.ResultSize())
				t.failed = rng.IntN(10) == 0
			}
			c.turns = append(c.turns, t)
			switch {
			case next == assistantText:
				next = userText
			case rng.Float64() < cfg.ToolShare:
				next = toolRun
			default:
				next = assistantText
			}
		}
		n, err := f.write(m.Roots[agent], c)
		if err != nil {
			return nil, fmt.Errorf("benchgen: write %s session %s: %w", agent, c.id, err)
		}
		ac := m.Agents[agent]
		ac.Sessions++
		ac.Messages += f.messages(c)
		ac.Bytes += n
		for _, t := range c.turns {
			if t.kind == toolRun {
				ac.ToolRuns++
			}
		}
	}
	for _, a := range Agents {
		if err := fs[a].finish(m.Roots[a]); err != nil {
			return nil, fmt.Errorf("benchgen: finish %s: %w", a, err)
		}
	}
	return m, nil
}

// countTurns counts c's turns by kind.
func countTurns(c *conv) (texts, tools int) {
	for _, t := range c.turns {
		if t.kind == toolRun {
			tools++
		} else {
			texts++
		}
	}
	return texts, tools
}

// writeLines writes JSONL records to path, creating its folder.
func writeLines(path string, lines [][]byte) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	var n int
	for _, l := range lines {
		n += len(l) + 1
	}
	buf := make([]byte, 0, n)
	for _, l := range lines {
		buf = append(append(buf, l...), '\n')
	}
	return int64(n), os.WriteFile(path, buf, 0o644)
}

// millis is t in Unix milliseconds, as several agents record time.
func millis(t time.Time) int64 { return t.UnixMilli() }

// iso is t as the agents' ISO-8601 timestamps with milliseconds.
func iso(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
