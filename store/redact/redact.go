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
	d *detect.Detector
	// broad are the keywords of the rule set's broadest rule (see Events), lower case, by
	// their first byte in either case; broadPair marks their first two bytes, case folded,
	// so the scan looks at a keyword list only where one could begin.
	broad     [256][]string
	broadPair [1 << 16]bool
}

// broadRule is gitleaks' rule whose keywords ("key", "token", "auth" …) most agent text holds
// and whose expression is the costliest: 2026-12-03, on the sync benchmark's corpus, it was
// nearly all of the time gitleaks spent in regular expressions.
const broadRule = "generic-api-key"

var loadOnce = sync.OnceValues(func() (*detect.Detector, error) {
	// gitleaks logs to stderr through its own global logger; a library of ours stays quiet.
	logging.Logger = zerolog.Nop()
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		return nil, fmt.Errorf("redact: load gitleaks' rules: %w", err)
	}
	return d, nil
})

// New loads gitleaks' default rule set (once per process).
func New() (*Redactor, error) {
	d, err := loadOnce()
	if err != nil {
		return nil, err
	}
	r := &Redactor{d: d}
	for _, k := range d.Config.Rules[broadRule].Keywords {
		if k = strings.ToLower(k); len(k) >= 2 {
			r.broadPair[pairOf(k[0], k[1])] = true
			// Under the first letter's both cases, so the scan looks a byte up as it is.
			r.broad[k[0]] = append(r.broad[k[0]], k)
			if up := strings.ToUpper(k[:1]); up != k[:1] {
				r.broad[up[0]] = append(r.broad[up[0]], k)
			}
		}
	}
	return r, nil
}

// wakesBroad says whether s holds a keyword of the broad rule, ASCII case folded as gitleaks
// folds them: one pass, keywords looked up by their first letter where their first two
// letters are.
func (r *Redactor) wakesBroad(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if !r.broadPair[pairOf(s[i], s[i+1])] {
			continue
		}
		for _, k := range r.broad[s[i]] {
			if len(s)-i >= len(k) && hasPrefixFold(s[i+1:], k[1:]) {
				return true
			}
		}
	}
	return false
}

// keyedRuleKey says whether a JSON key holds a keyword of any rule, so that its value is scanned
// after it ("client_secret: …"): the context rules that find a secret by what it is called
// need. Any other value is scanned alone, and only once however many keys and texts hold it.
// known caches the answers by key.
func (r *Redactor) keyedRuleKey(key string, known map[string]bool) bool {
	if v, ok := known[key]; ok {
		return v
	}
	l := strings.ToLower(key)
	v := false
	for k := range r.d.Config.Keywords {
		if strings.Contains(l, k) {
			v = true
			break
		}
	}
	known[key] = v
	return v
}

// hasPrefixFold says whether s begins with prefix, a lower-case keyword.
func hasPrefixFold(s, prefix string) bool {
	for j := 0; j < len(prefix); j++ {
		if lower(s[j]) != prefix[j] {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func pairOf(a, b byte) uint16 { return uint16(lower(a))<<8 | uint16(lower(b)) }

// finding is one secret and the rule that found it.
type finding struct {
	secret, rule string
}

// find returns the secrets in s.
func (r *Redactor) find(s string) []finding {
	if s == "" {
		return nil
	}
	var out []finding
	for _, f := range r.d.DetectString(s) {
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
	fs := r.find(s)
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

// replacer replaces a batch's findings in many fields: one pass of a strings.Replacer finds
// whether a field holds any of them (most hold none), and only a field that does is replaced
// finding by finding, to count them.
type replacer struct {
	fs  []finding
	any *strings.Replacer
	// escaped says a secret holds a character JSON may write escaped, so a JSON value must
	// also be searched decoded.
	escaped bool
}

func newReplacer(fs []finding) *replacer {
	fs = slices.Clone(fs)
	slices.SortStableFunc(fs, func(a, b finding) int { return cmp.Compare(len(b.secret), len(a.secret)) })
	pairs := make([]string, 0, 2*len(fs))
	r := &replacer{fs: fs}
	for _, f := range fs {
		pairs = append(pairs, f.secret, "")
		if b, _ := json.Marshal(f.secret); string(b[1:len(b)-1]) != f.secret {
			r.escaped = true
		}
	}
	r.any = strings.NewReplacer(pairs...)
	return r
}

func (r *replacer) replace(s string) (string, Counts) {
	if len(r.fs) == 0 || r.any.Replace(s) == s {
		return s, nil
	}
	counts := Counts{}
	for _, f := range r.fs {
		if n := strings.Count(s, f.secret); n > 0 {
			s = strings.ReplaceAll(s, f.secret, Marker(f.rule))
			counts[f.rule] += n
		}
	}
	return s, counts
}

// Events redacts a batch of events in place: it looks for secrets in every text, parameter,
// result, file body and raw record of the batch, then replaces every value found in any of
// them in all of them, so one secret is hidden everywhere its session holds it. JSON values
// stay valid JSON (a secret is replaced inside the strings that hold it). It returns the
// replacements made, per rule.
func (r *Redactor) Events(events []session.Event) Counts {
	// The fields are scanned joined into chunks of about chunkBytes, a chunk per goroutine:
	// gitleaks' cost is mostly per call (a keyword pass, then the rules whose keywords
	// matched), so one call over many fields is far cheaper than a call per field.
	//
	// Each distinct string is scanned once. JSON (raw records, tool parameters and results) is
	// scanned as its string values, unescaped, each after its key ("api_key: …", the context
	// gitleaks' generic rules look for): scanned as JSON text, its keys ("input_tokens", …)
	// and punctuation woke the keyword rules in nearly every chunk, and a raw record repeats
	// the strings its parsed fields hold; that tripled a cold sync's CPU.
	//
	// A rule runs over a whole chunk when any field of it holds one of the rule's keywords, so
	// the fields that wake the broad rule are chunked apart from the rest: its expression then
	// runs over those fields only, not over every chunk one of them landed in. Every field is
	// still scanned by every rule its keywords wake: a secret lies within one field, so which
	// fields share a chunk changes no finding.
	//
	// Chunks are scanned as they fill, on other goroutines, while the gathering goes on.
	sc := r.startScan()
	var hot, cold strings.Builder
	seen := map[string]bool{}
	keyed := map[string]bool{}
	add := func(s string) {
		if s == "" || seen[s] {
			return
		}
		seen[s] = true
		b := &cold
		if r.wakesBroad(s) {
			b = &hot
		}
		if b.Len() > 0 && b.Len()+len(s) > chunkBytes {
			sc.add(b.String())
			b.Reset()
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	// The plain fields first: a raw record repeats the texts parsed from it, and a value
	// already scanned as a text is not scanned again under its key.
	visit(events, func(s *string) { add(*s) }, func(*json.RawMessage) {})
	visit(events, func(*string) {}, func(raw *json.RawMessage) {
		jsonStrings(*raw, func(key, value string) {
			if key != "" && r.keyedRuleKey(key, keyed) {
				add(key + ": " + value)
				return
			}
			add(value)
		})
	})
	for _, b := range []*strings.Builder{&hot, &cold} {
		if b.Len() > 0 {
			sc.add(b.String())
		}
	}
	found := sc.wait()
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

// chunkBytes is the size of the text handed to gitleaks at once.
const chunkBytes = 8 << 10

// scan finds the secrets in chunks handed to it one at a time, on as many goroutines as there
// are processors.
type scan struct {
	r    *Redactor
	next chan *scanJob
	jobs []*scanJob
	wg   sync.WaitGroup
}

type scanJob struct {
	chunk string
	found []finding
}

func (r *Redactor) startScan() *scan {
	sc := &scan{r: r, next: make(chan *scanJob, 4)}
	for range runtime.GOMAXPROCS(0) {
		sc.wg.Add(1)
		go func() {
			defer sc.wg.Done()
			for j := range sc.next {
				j.found = sc.r.find(j.chunk)
			}
		}()
	}
	return sc
}

func (sc *scan) add(chunk string) {
	j := &scanJob{chunk: chunk}
	sc.jobs = append(sc.jobs, j)
	sc.next <- j
}

// wait returns each secret found once, in the order of the chunks (so a secret two rules
// find is always named by the same one).
func (sc *scan) wait() []finding {
	close(sc.next)
	sc.wg.Wait()
	var found []finding
	seen := map[string]bool{}
	for _, j := range sc.jobs {
		for _, f := range j.found {
			if !seen[f.secret] {
				seen[f.secret] = true
				found = append(found, f)
			}
		}
	}
	return found
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
