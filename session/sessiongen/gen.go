// Package sessiongen generates realistic canonical sessions for tests and benchmarks,
// deterministically from a seed. The size distribution follows what coding-agent transcripts
// look like:
//
//   - message text: log-normal, median ~300 B, p95 ~4 KB;
//   - ~40 % of parts are tool results of 1–32 KB (log-uniform), ~20 % tool calls, the rest text;
//   - each message keeps a raw source record in options of ~1.5× its text;
//   - words follow a Zipf law over a 20,000-word vocabulary, so common and rare terms both exist.
package sessiongen

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/pondhq/pond/session"
)

// Config shapes a generated corpus.
type Config struct {
	Seed            uint64
	Sessions        int
	MessagesPerSess int // average; each session gets 50–150 % of it
	PartsPerMessage int // average
	Agents          []string
	Start           time.Time
}

// Default is 2,000 sessions of ~50 messages of ~3 parts: 100k messages, 300k parts.
func Default() Config {
	return Config{Seed: 1, Sessions: 2000, MessagesPerSess: 50, PartsPerMessage: 3,
		Agents: []string{"claude-code", "codex-cli", "gemini-cli", "opencode", "pi-coding-agent"},
		Start:  time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// Generator produces sessions one at a time.
type Generator struct {
	cfg   Config
	rng   *rand.Rand
	zipf  *rand.Zipf
	words []string
	n     int
}

// New returns a generator for cfg.
func New(cfg Config) *Generator {
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	g := &Generator{cfg: cfg, rng: rng, zipf: rand.NewZipf(rng, 1.1, 1, 19_999)}
	syll := []string{"ka", "ro", "mi", "te", "lu", "sa", "po", "ne", "di", "fa", "gu", "ze", "bo", "chi", "va", "qu"}
	for i := 0; i < 20_000; i++ {
		var b strings.Builder
		for x := i + 1; x > 0; x /= len(syll) {
			b.WriteString(syll[x%len(syll)])
		}
		g.words = append(g.words, b.String())
	}
	return g
}

// Text returns about n bytes of Zipf-distributed words.
func (g *Generator) Text(n int) string {
	var b strings.Builder
	b.Grow(n + 16)
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.words[g.zipf.Uint64()])
	}
	return b.String()
}

// TextSize draws the size of a message text: log-normal, median 300 B, p95 4 KB.
func (g *Generator) TextSize() int {
	v := math.Exp(math.Log(300) + 1.575*g.rng.NormFloat64())
	return int(math.Min(math.Max(v, 8), 64<<10))
}

// ResultSize draws the size of a tool result: log-uniform over 1–32 KB.
func (g *Generator) ResultSize() int {
	return int(math.Exp(math.Log(1024) + g.rng.Float64()*math.Log(32)))
}

// Next returns the next session's events, or nil after Config.Sessions sessions.
func (g *Generator) Next() []session.Event {
	if g.n >= g.cfg.Sessions {
		return nil
	}
	i := g.n
	g.n++
	id := fmt.Sprintf("sess-%06d-%08x", i, g.rng.Uint32())
	agent := g.cfg.Agents[i%len(g.cfg.Agents)]
	start := g.cfg.Start.Add(time.Duration(i) * 37 * time.Minute)
	s := &session.Session{ID: id, SourceAgent: agent, Project: fmt.Sprintf("/home/dev/src/project-%02d", i%23), CreatedAt: start}
	if i%10 == 9 {
		s.SourceAgent = agent + "/subagent"
		s.ParentSessionID = fmt.Sprintf("sess-parent-%06d", i-1)
	}
	ev := []session.Event{{Session: s}}
	msgs := g.cfg.MessagesPerSess/2 + g.rng.IntN(g.cfg.MessagesPerSess+1)
	ts := start
	for m := 0; m < msgs; m++ {
		ts = ts.Add(time.Duration(1+g.rng.IntN(90)) * time.Second)
		role := session.RoleUser
		if m%2 == 1 {
			role = session.RoleAssistant
		}
		text := g.Text(g.TextSize())
		raw, _ := json.Marshal(map[string]any{"type": string(role), "uuid": fmt.Sprintf("%s-m%d", id, m), "payload": g.Text(len(text) * 3 / 2)})
		msg := &session.Message{SessionID: id, ID: fmt.Sprintf("m%04d", m), Role: role, Timestamp: ts,
			Options: session.Options{"source": raw}}
		ev = append(ev, session.Event{Message: msg})
		nparts := 1 + g.rng.IntN(2*g.cfg.PartsPerMessage-1)
		for p := 0; p < nparts; p++ {
			part := &session.Part{SessionID: id, MessageID: msg.ID, ID: fmt.Sprintf("p%d", p), Ordinal: p, Provenance: session.Conversational}
			switch r := g.rng.Float64(); {
			case p == 0 || r < 0.4:
				part.Type, part.Text = session.PartText, text
				if p > 0 {
					part.Text = g.Text(g.TextSize())
				}
			case r < 0.6:
				call := fmt.Sprintf("call_%d_%d", m, p)
				part.Type, part.CallID, part.Name = session.PartToolCall, call, []string{"Bash", "Read", "Edit", "Grep"}[g.rng.IntN(4)]
				part.Params, _ = json.Marshal(map[string]string{"command": g.Text(60)})
			default:
				part.Type, part.CallID, part.Name = session.PartToolResult, fmt.Sprintf("call_%d_%d", m, p-1), "Bash"
				part.IsFailure = g.rng.IntN(10) == 0
				part.Result, _ = json.Marshal(g.Text(g.ResultSize()))
			}
			ev = append(ev, session.Event{Part: part})
		}
	}
	return ev
}

// All returns every session's events.
func (g *Generator) All() [][]session.Event {
	var out [][]session.Event
	for ev := g.Next(); ev != nil; ev = g.Next() {
		out = append(out, ev)
	}
	return out
}
