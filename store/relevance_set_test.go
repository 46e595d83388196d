package store_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode"
)

// The frozen search-relevance evaluation set in testdata/relevance.json: a small multi-agent corpus
// and queries, each naming the one session it should find. This file only checks that the data
// keeps its own rules; the search harness that scores an engine against it lives elsewhere.
//
// Query kinds:
//   - exact: words a developer would recall from the session (most of them occur in it);
//   - paraphrase: the same meaning with no content word in common with any message of the target
//     session (compared after lowercasing, dropping English function words and a crude suffix
//     strip, so "timeouts" counts as "timeout"; Han and Kana runs are compared as bigrams);
//   - crosslang: the query is in another language than the session.

const relevanceSetPath = "testdata/relevance.json"

const (
	minQueries     = 60
	minParaphrases = 20
	minCrossLang   = 10
	maxPerSession  = 2
	minSessions    = 60
	minMsgRunes    = 100
	maxMsgRunes    = 1200
)

type relSet struct {
	Sessions []relSession `json:"sessions"`
	Queries  []relQuery   `json:"queries"`
}

type relSession struct {
	ID        string       `json:"id"`
	Agent     string       `json:"agent"`
	Project   string       `json:"project"`
	CreatedAt string       `json:"created_at"`
	Messages  []relMessage `json:"messages"`
}

type relMessage struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

type relQuery struct {
	ID     string `json:"id"`
	Query  string `json:"query"`
	Kind   string `json:"kind"`
	Lang   string `json:"lang"`
	Expect string `json:"expect"`
}

var relAgents = map[string]bool{
	"claude-code": true, "codex-cli": true, "gemini-cli": true, "opencode": true, "pi-coding-agent": true,
}

// relStopwords are English function words; they never count as shared content.
var relStopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but nor of to in on at for with from by as into onto
		about over under after before between through during without within via per
		is are was were be been being am do does did doing done have has had having it its this that these those there here
		i me my mine we us our ours you your yours he him his she her they them their
		what which who whom whose when where why how not no yes so if then than too very
		can could should would will shall may might must just also only any all some each every both either neither
		other such own same again once up down out off more most less few many much
		don doesn didn isn aren wasn weren won shouldn wouldn couldn haven hasn`) {
		m[w] = true
	}
	return m
}()

func loadRelevanceSet(t *testing.T) relSet {
	t.Helper()
	b, err := os.ReadFile(relevanceSetPath)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var set relSet
	if err := dec.Decode(&set); err != nil {
		t.Fatalf("%s: %v", relevanceSetPath, err)
	}
	return set
}

func TestRelevanceSet(t *testing.T) {
	set := loadRelevanceSet(t)
	for _, p := range validateRelevanceSet(set) {
		t.Error(p)
	}
	kinds, langs, slangs := map[string]int{}, map[string]int{}, map[string]int{}
	for _, q := range set.Queries {
		kinds[q.Kind]++
		langs[q.Lang]++
	}
	for _, s := range set.Sessions {
		slangs[sessionLang(s)]++
	}
	t.Logf("%d sessions (languages %v), %d queries; kinds %v; query languages %v",
		len(set.Sessions), slangs, len(set.Queries), kinds, langs)
}

// TestRelevanceSetValidator breaks copies of the set in the ways the rules forbid and expects the
// validator to notice each one, so a validator that silently accepts everything cannot pass.
func TestRelevanceSetValidator(t *testing.T) {
	set := loadRelevanceSet(t)
	if len(validateRelevanceSet(set)) != 0 {
		t.Skip("the set itself is invalid; TestRelevanceSet reports why")
	}
	firstOfKind := func(s relSet, kind string) int {
		for i, q := range s.Queries {
			if q.Kind == kind {
				return i
			}
		}
		t.Fatalf("no %s query", kind)
		return -1
	}
	// Each case breaks one rule; want is a piece of the problem the validator must report.
	cases := []struct {
		name, want string
		breakIt    func(s *relSet)
	}{
		{"duplicate query id", "duplicate query id", func(s *relSet) { s.Queries[1].ID = s.Queries[0].ID }},
		{"duplicate session id", "duplicate session id", func(s *relSet) { s.Sessions[1].ID = s.Sessions[0].ID }},
		{"unknown expect", "unknown session", func(s *relSet) { s.Queries[0].Expect = "rel-999" }},
		{"unknown kind", "unknown kind", func(s *relSet) { s.Queries[0].Kind = "fuzzy" }},
		{"paraphrase shares a word", "shares", func(s *relSet) {
			i := firstOfKind(*s, "paraphrase")
			target := s.Sessions[sessionIndex(*s, s.Queries[i].Expect)]
			for _, f := range strings.Fields(target.Messages[0].Text) {
				if len(f) >= 5 && strings.IndexFunc(f, func(r rune) bool { return !unicode.IsLetter(r) }) < 0 && !relStopwords[strings.ToLower(f)] {
					s.Queries[i].Query += " " + f
					return
				}
			}
			t.Fatal("no plain word in the first message")
		}},
		{"paraphrase shares an inflected word", "shares", func(s *relSet) {
			i := firstOfKind(*s, "paraphrase")
			s.Queries[i].Expect = "rel-001" // mentions the pool and connections
			s.Queries[i].Lang = "en"
			s.Queries[i].Query = "pooled connection"
		}},
		{"paraphrase shares a CJK bigram", "shares", func(s *relSet) {
			i := firstOfKind(*s, "paraphrase")
			for _, ss := range s.Sessions {
				if sessionLang(ss) == "zh" {
					s.Queries[i].Expect = ss.ID
					s.Queries[i].Lang = "zh"
					s.Queries[i].Query = "如何" + string([]rune(ss.Messages[1].Text)[:2])
					return
				}
			}
			t.Fatal("no Chinese session")
		}},
		{"too few paraphrases", "paraphrase queries", func(s *relSet) {
			var kept []relQuery
			n := 0
			for _, q := range s.Queries {
				if q.Kind == "paraphrase" {
					if n++; n >= minParaphrases {
						continue
					}
				}
				kept = append(kept, q)
			}
			s.Queries = kept
		}},
		{"too few crosslang", "crosslang queries", func(s *relSet) {
			var kept []relQuery
			n := 0
			for _, q := range s.Queries {
				if q.Kind == "crosslang" {
					if n++; n >= minCrossLang {
						continue
					}
				}
				kept = append(kept, q)
			}
			s.Queries = kept
		}},
		{"too few queries", "queries, want at least", func(s *relSet) { s.Queries = s.Queries[:minQueries-1] }},
		{"crosslang in the session's language", "in the session's language", func(s *relSet) {
			i := firstOfKind(*s, "crosslang")
			s.Queries[i].Lang = sessionLang(s.Sessions[sessionIndex(*s, s.Queries[i].Expect)])
		}},
		{"session targeted too often", "is the target of", func(s *relSet) {
			for i := 0; i <= maxPerSession; i++ {
				s.Queries[i].Expect = "rel-001"
			}
		}},
		{"message too short", "characters", func(s *relSet) { s.Sessions[0].Messages[0].Text = "too short" }},
		{"unknown agent", "unknown agent", func(s *relSet) { s.Sessions[0].Agent = "cursor" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			broken := cloneRelSet(set)
			c.breakIt(&broken)
			problems := validateRelevanceSet(broken)
			for _, p := range problems {
				if strings.Contains(p, c.want) {
					return
				}
			}
			t.Errorf("validator did not report %q for a set with %s; it reported %q", c.want, c.name, problems)
		})
	}
}

func cloneRelSet(s relSet) relSet {
	b, _ := json.Marshal(s)
	var c relSet
	_ = json.Unmarshal(b, &c)
	return c
}

func sessionIndex(s relSet, id string) int {
	for i, ss := range s.Sessions {
		if ss.ID == id {
			return i
		}
	}
	return -1
}

// validateRelevanceSet returns one line per broken rule.
func validateRelevanceSet(set relSet) []string {
	var problems []string
	bad := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf(format, args...))
	}

	if len(set.Sessions) < minSessions {
		bad("only %d sessions", len(set.Sessions))
	}
	sessions := map[string]relSession{}
	for _, s := range set.Sessions {
		if s.ID == "" {
			bad("session without id")
			continue
		}
		if _, dup := sessions[s.ID]; dup {
			bad("duplicate session id %s", s.ID)
		}
		sessions[s.ID] = s
		if !relAgents[s.Agent] {
			bad("session %s: unknown agent %q", s.ID, s.Agent)
		}
		if !strings.HasPrefix(s.Project, "/") {
			bad("session %s: project %s is not an absolute path", s.ID, s.Project)
		}
		if c := s.CreatedAt; len(c) != len("2026-01-02T15:04:05Z") || c[4] != '-' || c[10] != 'T' || !strings.HasSuffix(c, "Z") {
			bad("session %s: created_at %s is not RFC 3339 UTC", s.ID, c)
		}
		if n := len(s.Messages); n < 3 || n > 6 {
			bad("session %s: %d messages, want 3..6", s.ID, n)
		}
		for i, m := range s.Messages {
			if m.Role != "user" && m.Role != "assistant" {
				bad("session %s message %d: role %q", s.ID, i, m.Role)
			}
			if i == 0 && m.Role != "user" {
				bad("session %s: first message is not the user's", s.ID)
			}
			if n := len([]rune(m.Text)); n < minMsgRunes || n > maxMsgRunes {
				bad("session %s message %d: %d characters, want %d..%d", s.ID, i, n, minMsgRunes, maxMsgRunes)
			}
		}
	}

	queryIDs := map[string]bool{}
	kinds := map[string]int{}
	perSession := map[string]int{}
	for _, q := range set.Queries {
		if q.ID == "" || queryIDs[q.ID] {
			bad("missing or duplicate query id %q", q.ID)
		}
		queryIDs[q.ID] = true
		kinds[q.Kind]++
		if strings.TrimSpace(q.Query) == "" {
			bad("query %s is empty", q.ID)
		}
		if len(q.Lang) != 2 || strings.ToLower(q.Lang) != q.Lang {
			bad("query %s: lang %q is not a two-letter code", q.ID, q.Lang)
		}
		if !scriptFits(q.Query, q.Lang) {
			bad("query %s: text does not look like lang %s", q.ID, q.Lang)
		}
		s, ok := sessions[q.Expect]
		if !ok {
			bad("query %s expects unknown session %q", q.ID, q.Expect)
			continue
		}
		perSession[q.Expect]++
		slang := sessionLang(s)
		qt := relTokens(q.Query)
		st := sessionTokens(s)
		switch q.Kind {
		case "exact":
			if q.Lang != slang {
				bad("exact query %s is %s but session %s is %s", q.ID, q.Lang, s.ID, slang)
			}
			if shared := qt.shared(st); len(shared)*2 < len(qt) {
				bad("exact query %s: fewer than half of its words occur in session %s", q.ID, s.ID)
			}
		case "paraphrase":
			if q.Lang != slang {
				bad("paraphrase query %s is %s but session %s is %s", q.ID, q.Lang, s.ID, slang)
			}
			if shared := qt.shared(st); len(shared) > 0 {
				bad("paraphrase query %s shares %s with session %s", q.ID, strings.Join(shared, ","), s.ID)
			}
		case "crosslang":
			if q.Lang == slang {
				bad("crosslang query %s is in the session's language %s", q.ID, slang)
			}
		default:
			bad("query %s: unknown kind %q", q.ID, q.Kind)
		}
	}
	if len(set.Queries) < minQueries {
		bad("only %d queries, want at least %d", len(set.Queries), minQueries)
	}
	if kinds["paraphrase"] < minParaphrases {
		bad("only %d paraphrase queries, want at least %d", kinds["paraphrase"], minParaphrases)
	}
	if kinds["crosslang"] < minCrossLang {
		bad("only %d crosslang queries, want at least %d", kinds["crosslang"], minCrossLang)
	}
	for id, n := range perSession {
		if n > maxPerSession {
			bad("session %s is the target of %d queries, want at most %d", id, n, maxPerSession)
		}
	}
	return problems
}

// tokenSet maps a normalised token to itself (words are stemmed, CJK tokens are bigrams).
type tokenSet map[string]bool

func (a tokenSet) shared(b tokenSet) []string {
	var out []string
	for w := range a {
		if b[w] {
			out = append(out, w)
		}
	}
	return out
}

func sessionTokens(s relSession) tokenSet {
	all := tokenSet{}
	for _, m := range s.Messages {
		for w := range relTokens(m.Text) {
			all[w] = true
		}
	}
	return all
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || r == 'ー'
}

// relTokens splits text on runes that are neither letters nor digits. Other words are lowercased,
// stemmed and kept unless they are one character long or a stopword; Han/Kana runs become bigrams
// (a one-character run stays a unigram).
func relTokens(text string) tokenSet {
	out := tokenSet{}
	var word, cjk []rune
	flush := func() {
		if len(word) > 0 {
			w := strings.ToLower(string(word))
			if len([]rune(w)) > 1 && !relStopwords[w] {
				out[relStem(w)] = true
			}
			word = word[:0]
		}
		switch {
		case len(cjk) == 1:
			out[string(cjk)] = true
		case len(cjk) > 1:
			for i := 0; i+1 < len(cjk); i++ {
				out[string(cjk[i:i+2])] = true
			}
		}
		cjk = cjk[:0]
	}
	for _, r := range text {
		switch {
		case isCJK(r):
			if len(word) > 0 {
				flush()
			}
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if len(cjk) > 0 {
				flush()
			}
			word = append(word, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// relStem strips one English inflectional suffix and a trailing e, keeping at least three runes,
// so cache/caches/cached/caching and timeout/timeouts compare equal.
func relStem(w string) string {
	r := []rune(w)
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		s := []rune(suf)
		if strings.HasSuffix(w, suf) && len(r)-len(s) >= 3 {
			r = r[:len(r)-len(s)]
			break
		}
	}
	if len(r) > 3 && r[len(r)-1] == 'e' {
		r = r[:len(r)-1]
	}
	return string(r)
}

// sessionLang guesses the language a session is written in from its scripts and, for Latin
// text, from how often common English and German function words occur.
func sessionLang(s relSession) string {
	var han, kana, cyr, latin int
	var en, de int
	enWords := map[string]bool{"the": true, "and": true, "is": true, "to": true, "of": true, "with": true}
	deWords := map[string]bool{"der": true, "die": true, "das": true, "und": true, "ist": true, "nicht": true, "mit": true}
	for _, m := range s.Messages {
		for _, r := range m.Text {
			switch {
			case unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r):
				kana++
			case unicode.Is(unicode.Han, r):
				han++
			case unicode.Is(unicode.Cyrillic, r):
				cyr++
			case unicode.Is(unicode.Latin, r):
				latin++
			}
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(m.Text), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if enWords[w] {
				en++
			}
			if deWords[w] {
				de++
			}
		}
	}
	switch {
	case kana > 0 && kana+han > latin/4:
		return "ja"
	case han > latin/4:
		return "zh"
	case cyr > latin:
		return "ru"
	case de > en:
		return "de"
	}
	return "en"
}

// scriptFits reports whether a query's text uses the script its lang implies.
func scriptFits(q, lang string) bool {
	has := func(tables ...*unicode.RangeTable) bool {
		for _, r := range q {
			for _, t := range tables {
				if unicode.Is(t, r) {
					return true
				}
			}
		}
		return false
	}
	switch lang {
	case "zh":
		return has(unicode.Han) && !has(unicode.Hiragana, unicode.Katakana)
	case "ja":
		return has(unicode.Hiragana, unicode.Katakana, unicode.Han)
	case "ru", "uk":
		return has(unicode.Cyrillic)
	default:
		return has(unicode.Latin) && !has(unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Cyrillic)
	}
}
