package redact

import (
	"strings"

	"github.com/zricethezav/gitleaks/v8/config"
)

// keywordIndex finds the rules' keywords in a string in one pass. gitleaks runs a rule over a
// text only when the text holds one of the rule's keywords (its prefilter, on the text lower
// cased), so a string that holds none can hold no finding of its own and need not be handed to
// gitleaks at all. On agents' sessions nearly every string is such a string; handing them over
// cost a lower-casing and an Aho–Corasick pass over every byte.
type keywordIndex struct {
	// at is, per byte pair as it stands (both cases of each letter are filled in), 1 + the
	// index in lists of the keywords that begin with it; 0 where none does, so most bytes cost
	// one lookup.
	at    [1 << 16]uint8
	lists []pairList
}

// pairList is the keywords that begin with one byte pair.
type pairList struct {
	keywords []keyword
	// third marks the third bytes (both cases) of the list's keywords; any is set when one
	// is only two bytes long, so most pairs that begin no keyword are refused without a
	// comparison.
	third [256]bool
	any   bool
	// needed says a string already known to wake the other rules still needs this list
	// looked at: it holds a keyword of broadRule or an odd rune.
	needed bool
}

type keyword struct {
	word string // lower case
	// window is 1 + the index in windowedRules of the keyword's rule, whose matches are
	// looked for in windows around it (windowAround); 0 for a rule run over whole strings.
	window int
	odd    bool // not a keyword: one of oddRunes
}

// oddRunes are the runes outside ASCII that case folding turns into ASCII letters: gitleaks'
// strings.ToLower makes "İ" an "i" and the Kelvin sign a "k" (so "\u212Aey" holds the keyword
// "key" to it), and case-insensitive expressions match "ſ" as "s" and the Kelvin sign as "k".
// A string holding one is handed to gitleaks whole, so the keyword pass needs no Unicode.
var oddRunes = []string{"\u0130", "\u212A", "\u017F"}

func newKeywordIndex(rules map[string]config.Rule) *keywordIndex {
	ix := &keywordIndex{}
	add := func(k keyword) {
		if len(k.word) < 2 {
			return // gitleaks' rules have none; a one-byte keyword would wake on nearly anything
		}
		var l *pairList
		for _, a := range cases(k.word[0]) {
			for _, b := range cases(k.word[1]) {
				p := uint16(a)<<8 | uint16(b)
				if ix.at[p] == 0 {
					if l == nil {
						if len(ix.lists) == 255 {
							panic("redact: more keyword pairs than the index holds")
						}
						ix.lists = append(ix.lists, pairList{})
						ix.at[p] = uint8(len(ix.lists))
					} else {
						ix.at[p] = ix.at[pairOf(k.word[0], k.word[1])]
					}
				}
				l = &ix.lists[ix.at[p]-1]
			}
		}
		l.keywords = append(l.keywords, k)
		l.needed = l.needed || k.window > 0 || k.odd
		if len(k.word) == 2 {
			l.any = true
		} else {
			for _, c := range cases(k.word[2]) {
				l.third[c] = true
			}
		}
	}
	for id, rule := range rules {
		window := 0
		for i, w := range windowedRules {
			if w.id == id {
				window = i + 1
			}
		}
		for _, w := range rule.Keywords {
			add(keyword{word: strings.ToLower(w), window: window})
		}
	}
	for _, r := range oddRunes {
		add(keyword{word: r, odd: true})
	}
	return ix
}

// cases is c in both cases when it is an ASCII letter, else c.
func cases(c byte) []byte {
	if 'a' <= c && c <= 'z' {
		return []byte{c, c - 'a' + 'A'}
	}
	return []byte{c}
}

// span is a part of a string, [from, to), that the windowed rule at index rule looks at.
type span struct{ rule, from, to int }

// look says what the rules' keywords in s ask for: rest, a keyword of a rule run over whole
// strings; windows, appended to, the parts of s around the windowed rules' keywords that hold
// every match of their expressions (windowAround); odd, s holds one of oddRunes and is scanned
// whole by every rule (windows are then left as they were). Keywords are matched ASCII case
// folded, which is gitleaks' folding for every string without an odd rune.
func look[T ~string | ~[]byte](ix *keywordIndex, s T, windows []span) (rest, odd bool, _ []span) {
	if len(s) < 2 {
		return false, false, windows
	}
	first := len(windows)
	pair := uint16(s[0])
	for i := 0; i+1 < len(s); i++ {
		pair = pair<<8 | uint16(s[i+1]) // s[i] and s[i+1]
		n := ix.at[pair]
		if n == 0 {
			continue
		}
		l := &ix.lists[n-1]
		if (rest && !l.needed) || (!l.any && (i+2 >= len(s) || !l.third[s[i+2]])) {
			continue
		}
		for _, k := range l.keywords {
			if !hasPrefixFold(s[i:], k.word) {
				continue
			}
			switch {
			case k.odd:
				return rest, true, windows
			case k.window > 0:
				windows = windowAround(s, windows, first, k.window-1, i, i+len(k.word))
			default:
				rest = true
			}
		}
	}
	return rest, false, windows
}

// windowedRule is a rule whose matches lie close to its keywords, read off its expression
// (TestWindowedRulesAreTheOnesTheirBoundsWereReadFrom holds each expression as gitleaks v8.30.1
// has it): every match using a keyword lies within before bytes before it, and after bytes
// past it and then the run of bytes its secret may hold, and two more (the expression's end:
// a quote, space or ';', an escaped \n or \r, or the end of the text). Such a rule is run by a
// detector of its own over those windows only: the rules whose keywords agents' text and code
// are full of ("key", "token", "s.", "ey") then look at a small part of the bytes.
type windowedRule struct {
	id            string
	before, after int
	run           func(byte) bool
	expr          string
}

var windowedRules = []windowedRule{
	// At most 50 of [\w.-] before the keyword, then at most 20 + 3 + 3 + 5 bytes of spacing,
	// quotes and an assignment before the secret, a run of [\w.=+/-]. The costliest rule by
	// far (2.35 of 2.87 s of expressions over 10 MB of the Go tree's sources).
	{id: broadRule, before: 64, after: 64, run: genericSecretByte,
		expr: `(?i)[\w.-]{0,50}?(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})(?:[\x60'"\s;]|\\[nr]|$)`},
	// The match begins at the keyword (a word boundary before it: the window keeps the byte
	// before), then a run of [\w-].
	{id: "vault-service-token", before: 8, run: wordOrDashByte,
		expr: `\b((?:hvs\.[\w-]{90,120}|s\.(?i:[a-z0-9]{24})))(?:[\x60'"\s;]|\\[nr]|$)`},
	// The match begins at the keyword (a word boundary before it), then a run of
	// [a-zA-Z0-9/\\_.=-] (the token's three parts and their dots).
	{id: "jwt", before: 8, run: jwtByte,
		expr: `\b(ey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9\/\\_-]{17,}\.(?:[a-zA-Z0-9\/\\_-]{10,}={0,2})?)(?:[\x60'"\s;]|\\[nr]|$)`},
}

// windowAround appends the window of windowed rule w's keyword at [at, end) of s to windows,
// merged with that rule's last window since first when they touch, so overlapping matches
// stay whole.
func windowAround[T ~string | ~[]byte](s T, windows []span, first, w, at, end int) []span {
	rule := &windowedRules[w]
	from := max(0, at-rule.before)
	for from > 0 && s[from]&0xC0 == 0x80 {
		from-- // to the start of a rune
	}
	to := min(len(s), end+rule.after)
	for to < len(s) && rule.run(s[to]) {
		to++
	}
	to = min(len(s), to+2)
	for to < len(s) && s[to]&0xC0 == 0x80 {
		to++
	}
	for i := len(windows) - 1; i >= first; i-- {
		if windows[i].rule == w {
			if from <= windows[i].to {
				windows[i].to = max(windows[i].to, to)
				return windows
			}
			break
		}
	}
	return append(windows, span{w, from, to})
}

// The bytes a windowed rule's secret may hold. Any byte outside ASCII is taken too:
// case-insensitive classes take "ſ" and the Kelvin sign, and a longer window only costs time.
func genericSecretByte(c byte) bool { // [\w.=-] and [a-z0-9+/]
	return asciiWord(c) || c >= 0x80 || c == '.' || c == '=' || c == '-' || c == '+' || c == '/'
}

func wordOrDashByte(c byte) bool { return asciiWord(c) || c >= 0x80 || c == '-' }

func jwtByte(c byte) bool {
	return asciiWord(c) || c >= 0x80 || c == '.' || c == '=' || c == '-' || c == '/' || c == '\\'
}

func asciiWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// hasPrefixFold says whether s begins with prefix, a lower-case keyword, ASCII case folded.
func hasPrefixFold[T ~string | ~[]byte](s T, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
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
