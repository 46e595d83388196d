// Package redact finds secrets in captured sessions with gitleaks' maintained rule set (its
// detect package and default config; no rule here is written by hand) and replaces each with a
// typed marker, [REDACTED:<rule id>], in text, tool parameters and results, and the raw record
// alike: every value a secret was found in anywhere in a session is replaced everywhere in that
// session, so what search hides a restore does not write back.
package redact

import (
	"cmp"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"

	"github.com/pondhq/pond/session"
)

// Marker is what replaces a secret found by rule.
func Marker(rule string) string { return "[REDACTED:" + rule + "]" }

// Counts are the secrets replaced, per rule id.
type Counts map[string]int

// Add adds o to c.
func (c Counts) Add(o Counts) {
	for k, v := range o {
		c[k] += v
	}
}

// Redactor finds and replaces secrets. It is safe for concurrent use.
type Redactor struct {
	// The rule set is split: each of windowedRules has a detector of its own (windowed,
	// in that order), run over windows around its keywords (windowAround); rest holds every
	// other rule and is run over whole strings that hold one of their keywords.
	rest     *detect.Detector
	windowed []*detect.Detector
	keywords *keywordIndex
	// ruleKeywords are every rule's keywords, lower case, for keyedRuleKey.
	ruleKeywords []string
}

// broadRule is gitleaks' generic rule, whose keywords ("key", "token", "auth" …) most agent
// text holds and whose expression is the costliest: 2026-12-03, it was nearly all of the time
// gitleaks spent in regular expressions, on the sync benchmark's corpus and on the Go tree's
// sources alike (2.35 of 2.87 s over 10 MB of the latter). Where two rules find one secret,
// the other names it.
const broadRule = "generic-api-key"

var loadOnce = sync.OnceValues(func() (*Redactor, error) {
	// gitleaks logs to stderr through its own global logger; a library of ours stays quiet.
	logging.Logger = zerolog.Nop()
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		return nil, fmt.Errorf("redact: load gitleaks' rules: %w", err)
	}
	return split(d.Config)
})

// split makes a Redactor of a rule set.
func split(cfg config.Config) (*Redactor, error) {
	windowed := map[string]bool{}
	for _, w := range windowedRules {
		if _, ok := cfg.Rules[w.id]; !ok {
			return nil, fmt.Errorf("redact: gitleaks' rules have no %s", w.id)
		}
		windowed[w.id] = true
	}
	part := func(keep func(id string) bool) config.Config {
		c := cfg
		c.Rules, c.Keywords, c.OrderedRules = map[string]config.Rule{}, map[string]struct{}{}, nil
		for _, id := range cfg.OrderedRules {
			if rule, ok := cfg.Rules[id]; ok && keep(id) {
				c.Rules[id] = rule
				c.OrderedRules = append(c.OrderedRules, id)
				for _, k := range rule.Keywords {
					c.Keywords[strings.ToLower(k)] = struct{}{}
				}
			}
		}
		return c
	}
	for id, rule := range cfg.Rules {
		// A composite rule needs the rules it names in its own detector.
		for _, req := range rule.RequiredRules {
			if windowed[id] || windowed[req.RuleID] {
				return nil, fmt.Errorf("redact: rule %s requires %s, which the split puts apart", id, req.RuleID)
			}
		}
	}
	r := &Redactor{
		rest:     detect.NewDetector(part(func(id string) bool { return !windowed[id] })),
		keywords: newKeywordIndex(cfg.Rules),
	}
	n := len(r.rest.Config.Rules)
	for _, w := range windowedRules {
		d := detect.NewDetector(part(func(id string) bool { return id == w.id }))
		r.windowed = append(r.windowed, d)
		n += len(d.Config.Rules)
	}
	if n != len(cfg.Rules) {
		return nil, fmt.Errorf("redact: %d of gitleaks' %d rules are in its rule order", n, len(cfg.Rules))
	}
	for k := range cfg.Keywords {
		r.ruleKeywords = append(r.ruleKeywords, k)
	}
	return r, nil
}

// New loads gitleaks' default rule set (once per process).
func New() (*Redactor, error) {
	return loadOnce()
}

// keyedRuleKey says whether a JSON key holds a keyword of any rule, so that its value is scanned
// after it ("client_secret: …"): the context rules that find a secret by what it is called
// need. Any other value is scanned alone, and only once however many keys and texts hold it.
// known caches the answers by key.
func (r *Redactor) keyedRuleKey(key []byte, known map[string]bool) bool {
	if v, ok := known[string(key)]; ok {
		return v
	}
	l := strings.ToLower(string(key))
	v := false
	for _, k := range r.ruleKeywords {
		if strings.Contains(l, k) {
			v = true
			break
		}
	}
	known[string(key)] = v
	return v
}

// finding is one secret and the rule that found it.
type finding struct {
	secret, rule string
}

// find returns the secrets d finds in s.
func find(d *detect.Detector, s string) []finding {
	if s == "" {
		return nil
	}
	var out []finding
	for _, f := range d.DetectString(s) {
		secret := cmp.Or(f.Secret, f.Match)
		if len(secret) < 4 || strings.HasPrefix(secret, "[REDACTED:") {
			continue
		}
		out = append(out, finding{secret, f.RuleID})
	}
	return out
}

// String replaces the secrets in s and counts them.
func (r *Redactor) String(s string) (string, Counts) {
	g := r.gather()
	g.text(s)
	fs := g.wait()
	if len(fs) == 0 {
		return s, nil
	}
	return replace(s, fs)
}

// replace puts a marker for each finding at every place it occurs, longest secrets first (a
// secret holding another is replaced whole).
func replace(s string, fs []finding) (string, Counts) {
	return newReplacer(fs).replace(s)
}

// replacer replaces a batch's findings in many fields, each in one pass: most fields hold
// none, which a pass that writes nothing tells without copying the field.
type replacer struct {
	// holds replaces each secret with nothing: a field holds a finding when that shortens it.
	holds *strings.Replacer
	// mark replaces each secret with its marker, the longest first where two begin at one
	// place; markers are never looked at again.
	mark  *strings.Replacer
	rules []string // the rules of the findings, each once
	// escaped says a secret holds a character JSON may write escaped, so a JSON value must
	// also be searched decoded.
	escaped bool
}

func newReplacer(fs []finding) *replacer {
	fs = slices.Clone(fs)
	slices.SortStableFunc(fs, func(a, b finding) int { return cmp.Compare(len(b.secret), len(a.secret)) })
	holds := make([]string, 0, 2*len(fs))
	mark := make([]string, 0, 2*len(fs))
	r := &replacer{}
	for _, f := range fs {
		holds = append(holds, f.secret, "")
		mark = append(mark, f.secret, Marker(f.rule))
		if !slices.Contains(r.rules, f.rule) {
			r.rules = append(r.rules, f.rule)
		}
		if b, _ := json.Marshal(f.secret); string(b[1:len(b)-1]) != f.secret {
			r.escaped = true
		}
	}
	r.holds, r.mark = strings.NewReplacer(holds...), strings.NewReplacer(mark...)
	return r
}

// replace puts a marker for each finding at every place it occurs and counts them per rule.
func (r *replacer) replace(s string) (string, Counts) {
	if len(r.rules) == 0 {
		return s, nil
	}
	var n byteCount
	if r.holds.WriteString(&n, s); int(n) == len(s) {
		return s, nil
	}
	out := r.mark.Replace(s)
	counts := Counts{}
	for _, rule := range r.rules {
		m := Marker(rule)
		if n := strings.Count(out, m) - strings.Count(s, m); n > 0 {
			counts[rule] = n
		}
	}
	return out, counts
}

// byteCount is a writer that only counts what it is given.
type byteCount int

func (c *byteCount) Write(p []byte) (int, error) {
	*c += byteCount(len(p))
	return len(p), nil
}

func (c *byteCount) WriteString(s string) (int, error) {
	*c += byteCount(len(s))
	return len(s), nil
}

// Events redacts a batch of events in place: it looks for secrets in every text, parameter,
// result, file body and raw record of the batch, then replaces every value found in any of
// them in all of them, so one secret is hidden everywhere its session holds it. JSON values
// stay valid JSON (a secret is replaced inside the strings that hold it). It returns the
// replacements made, per rule.
func (r *Redactor) Events(events []session.Event) Counts {
	g := r.gather()
	// The plain fields first: a raw record repeats the texts parsed from it, and a value
	// already scanned as a text is not scanned again under its key.
	visit(events, func(s *string) { g.text(*s) }, func(*json.RawMessage) {})
	visit(events, func(*string) {}, func(raw *json.RawMessage) { g.json(*raw) })
	found := g.wait()
	if len(found) == 0 {
		return Counts{}
	}
	total := Counts{}
	rep := newReplacer(found)
	visit(events, func(s *string) {
		var c Counts
		*s, c = rep.replace(*s)
		total.Add(c)
	}, func(raw *json.RawMessage) {
		out, c := rep.replaceJSON(*raw)
		*raw = out
		total.Add(c)
	})
	return total
}

// gatherer hands a batch's strings to gitleaks and collects what it finds.
//
// Only what can hold a finding is handed over: a string that holds no keyword of any rule
// holds none (gitleaks runs a rule only over text holding one of its keywords), the
// windowed rules' expressions run over windows around their keywords only (windowAround), and
// the other rules over the whole strings that hold one of theirs. On agents' sessions that
// leaves a small part of the bytes: gitleaks' lower-casing and keyword pass over all of them,
// and broadRule's expression over whole fields that named a "key" or "token" once, were most
// of a sync's redaction.
//
// Each distinct string is looked at once. JSON (raw records, tool parameters and results) is
// looked at as its string values, unescaped, each after its key when the key holds a rule's
// keyword ("client_secret: …", the context rules that find a secret by its name need).
//
// What is handed over is joined into chunks of about chunkBytes, one gitleaks call each (its
// cost is much per call), scanned on other goroutines while the gathering goes on. A rule
// runs over a whole chunk when any string of it holds one of the rule's keywords, which can
// only add findings: a secret lies within one string.
type gatherer struct {
	r          *Redactor
	sc         *scan
	rest       strings.Builder
	windowed   []strings.Builder // per windowed rule
	seen       map[string]bool
	keyed      map[string]bool
	windows    []span
	keyedValue []byte
}

func (r *Redactor) gather() *gatherer {
	return &gatherer{r: r, sc: r.startScan(), seen: map[string]bool{}, keyed: map[string]bool{},
		windowed: make([]strings.Builder, len(r.windowed))}
}

// text looks at a plain field.
func (g *gatherer) text(s string) {
	// Every text is remembered (it costs no copy), so its copies in the raw records that
	// follow are not looked at again.
	if g.seen[s] {
		return
	}
	g.seen[s] = true
	rest, odd, windows := look(g.r.keywords, s, g.windows[:0])
	g.windows = windows
	if rest || odd || len(windows) > 0 {
		g.put(s, rest, odd)
	}
}

// json looks at the strings of a JSON value.
func (g *gatherer) json(raw []byte) {
	jsonStrings(raw, func(key, value []byte) {
		s := value
		if len(key) > 0 && g.r.keyedRuleKey(key, g.keyed) {
			g.keyedValue = append(append(append(g.keyedValue[:0], key...), ": "...), value...)
			s = g.keyedValue
		}
		if g.seen[string(s)] {
			return
		}
		rest, odd, windows := look(g.r.keywords, s, g.windows[:0])
		g.windows = windows
		if !rest && !odd && len(windows) == 0 {
			return // not remembered: that would copy it
		}
		str := string(s)
		g.seen[str] = true
		g.put(str, rest, odd)
	})
}

// put hands s over: whole to the rules run over whole strings when it holds one of their
// keywords, and its windows (g.windows, from look) each to its windowed rule; whole to every
// detector when it holds an odd rune.
func (g *gatherer) put(s string, rest, odd bool) {
	if rest || odd {
		g.add(&g.rest, g.r.rest, s, "\n")
	}
	if odd {
		for i, d := range g.r.windowed {
			g.add(&g.windowed[i], d, s, windowSep)
		}
		return
	}
	for _, w := range g.windows {
		g.add(&g.windowed[w.rule], g.r.windowed[w.rule], s[w.from:w.to], windowSep)
	}
}

// windowSep ends each window in a windowed rule's chunks: the newline ends a secret at the
// window's end as the string's end would, and no part of those expressions takes a NUL, so no
// match runs from one window into the next.
const windowSep = "\n\x00"

func (g *gatherer) add(b *strings.Builder, d *detect.Detector, s, sep string) {
	if b.Len() > 0 && b.Len()+len(s) > chunkBytes {
		g.sc.add(d, b.String())
		b.Reset()
	}
	b.WriteString(s)
	b.WriteString(sep)
}

// wait scans what is left and returns each secret found once.
func (g *gatherer) wait() []finding {
	if g.rest.Len() > 0 {
		g.sc.add(g.r.rest, g.rest.String())
	}
	for i := range g.windowed {
		if g.windowed[i].Len() > 0 {
			g.sc.add(g.r.windowed[i], g.windowed[i].String())
		}
	}
	return g.sc.wait()
}

// chunkBytes is the size of the text handed to gitleaks at once.
const chunkBytes = 8 << 10

// scan finds the secrets in chunks handed to it one at a time, on as many goroutines as there
// are processors.
type scan struct {
	next chan *scanJob
	jobs []*scanJob
	wg   sync.WaitGroup
}

type scanJob struct {
	d     *detect.Detector
	chunk string
	found []finding
}

func (r *Redactor) startScan() *scan {
	sc := &scan{next: make(chan *scanJob, 4)}
	for range runtime.GOMAXPROCS(0) {
		sc.wg.Add(1)
		go func() {
			defer sc.wg.Done()
			for j := range sc.next {
				j.found = find(j.d, j.chunk)
			}
		}()
	}
	return sc
}

func (sc *scan) add(d *detect.Detector, chunk string) {
	j := &scanJob{d: d, chunk: chunk}
	sc.jobs = append(sc.jobs, j)
	sc.next <- j
}

// wait returns each secret found once, named by one rule the same way every time: a rule of
// its own before broadRule, then the first rule by name.
func (sc *scan) wait() []finding {
	close(sc.next)
	sc.wg.Wait()
	var all []finding
	for _, j := range sc.jobs {
		all = append(all, j.found...)
	}
	slices.SortStableFunc(all, func(a, b finding) int {
		return cmp.Or(cmp.Compare(a.secret, b.secret), compareBool(a.rule == broadRule, b.rule == broadRule), cmp.Compare(a.rule, b.rule))
	})
	all = slices.CompactFunc(all, func(a, b finding) bool { return a.secret == b.secret })
	return all
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// replaceJSON replaces secrets inside a JSON value's strings. A secret written with JSON escapes
// (a quote or backslash in it) is found in the decoded strings instead.
func (r *replacer) replaceJSON(raw json.RawMessage) (json.RawMessage, Counts) {
	if len(raw) == 0 {
		return raw, nil
	}
	s, c := r.replace(string(raw))
	if len(c) > 0 && json.Valid([]byte(s)) {
		return json.RawMessage(s), c
	}
	// Decoding is only needed when a secret may be written escaped here: it holds a character
	// JSON escapes, or the text uses \u escapes at all.
	if len(c) == 0 && !r.escaped && !strings.Contains(string(raw), `\u`) {
		return raw, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return raw, nil // not JSON: left as it is (the validator rejects it anyway)
	}
	total := Counts{}
	v = walkJSON(v, func(s string) string {
		out, c := r.replace(s)
		total.Add(c)
		return out
	})
	if len(total) == 0 {
		return raw, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw, nil
	}
	return b, total
}

func walkJSON(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		for i := range x {
			x[i] = walkJSON(x[i], f)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = walkJSON(e, f)
		}
	}
	return v
}

// visit calls str and raw with every field of events that can hold a secret.
func visit(events []session.Event, str func(*string), raw func(*json.RawMessage)) {
	opts := func(o session.Options) {
		for k, v := range o {
			raw(&v)
			o[k] = v
		}
	}
	for i := range events {
		e := &events[i]
		switch {
		case e.Session != nil:
			opts(e.Session.Options)
		case e.Message != nil:
			str(&e.Message.Content)
			opts(e.Message.Options)
		case e.Part != nil:
			p := e.Part
			str(&p.Text)
			str(&p.Reason)
			if len(p.Params) > 0 {
				raw(&p.Params)
			}
			if len(p.Result) > 0 {
				raw(&p.Result)
			}
			switch d := p.Data; {
			case d == nil:
			case d.Kind == session.FileBytes && isText(d.Bytes):
				s := string(d.Bytes)
				str(&s)
				d.Bytes = []byte(s)
			case d.Kind != session.FileBytes:
				str(&d.Value)
			}
			opts(p.Options)
		}
	}
}

// isText reports whether b looks like text (valid UTF-8 without NUL), the file bodies worth
// scanning.
func isText(b []byte) bool {
	if len(b) == 0 || len(b) > 16<<20 {
		return false
	}
	s := string(b)
	return !strings.ContainsRune(s, 0) && strings.ToValidUTF8(s, "\uFFFD") == s
}
