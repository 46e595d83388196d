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
	word  string // lower case
	broad bool   // a keyword of broadRule, whose matches are looked for in windows (windowAround)
	odd   bool   // not a keyword: one of oddRunes
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
		l.needed = l.needed || k.broad || k.odd
		if len(k.word) == 2 {
			l.any = true
		} else {
			for _, c := range cases(k.word[2]) {
				l.third[c] = true
			}
		}
	}
	for id, rule := range rules {
		for _, w := range rule.Keywords {
			add(keyword{word: strings.ToLower(w), broad: id == broadRule})
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

// span is a part of a string, [from, to).
type span struct{ from, to int }

// look says what the rules' keywords in s ask for: rest, a keyword of a rule other than
// broadRule (s is scanned whole by those rules); windows, appended to, the parts of s around
// broadRule's keywords that hold every match of its expression (windowAround); odd, s holds
// one of oddRunes and is scanned whole by every rule (windows are then left as they were).
// Keywords are matched ASCII case folded, which is gitleaks' folding for every string without
// an odd rune.
func look[T ~string | ~[]byte](ix *keywordIndex, s T, windows []span) (rest, odd bool, _ []span) {
	if len(s) < 2 {
		return false, false, windows
	}
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
			case k.broad:
				windows = windowAround(s, windows, i, i+len(k.word))
			default:
				rest = true
			}
		}
	}
	return rest, false, windows
}

// broadRule's expression (gitleaks v8.30.1; TestBroadRuleIsTheOneWindowsWereMadeFor holds it)
// is: at most 50 of [\w.-] before the keyword, then at most 20 + 3 + 3 + 5 bytes of spacing,
// quotes and an assignment before the secret, a run of [\w.=+/-], ended by a quote, space, ';',
// an escaped \n or \r, or the end. So every match using a keyword lies within windowBefore
// bytes before it and the secret's run after windowAfter bytes past it, and two more bytes.
const (
	windowBefore = 64
	windowAfter  = 64
)

// windowAround appends the window of the broadRule keyword at [at, end) of s to windows,
// merged with the last window when they touch, so overlapping matches stay whole.
func windowAround[T ~string | ~[]byte](s T, windows []span, at, end int) []span {
	from := max(0, at-windowBefore)
	for from > 0 && s[from]&0xC0 == 0x80 {
		from-- // to the start of a rune
	}
	to := min(len(s), end+windowAfter)
	for to < len(s) && secretByte(s[to]) {
		to++
	}
	to = min(len(s), to+2)
	for to < len(s) && s[to]&0xC0 == 0x80 {
		to++
	}
	if n := len(windows); n > 0 && from <= windows[n-1].to {
		windows[n-1].to = max(windows[n-1].to, to)
		return windows
	}
	return append(windows, span{from, to})
}

// secretByte is a byte a secret of broadRule's may hold: its classes [\w.=-] and [a-z0-9+/],
// and any byte outside ASCII (case-insensitive classes take "ſ" and the Kelvin sign too).
func secretByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c >= 0x80:
		return true
	}
	return c == '_' || c == '.' || c == '=' || c == '-' || c == '+' || c == '/'
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
