package store

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pondhq/pond/store/sqlite"
)

// highlightTerms are the query's words worth marking in a hit, in query order: each
// white-space separated term as typed (without surrounding punctuation), then the words inside
// it, so "calc_test.go" marks that name whole and "calc" alone still marks "calc".
func highlightTerms(query string) []string {
	var terms []string
	seen := map[string]bool{}
	add := func(t string) {
		if k := strings.ToLower(t); t != "" && !seen[k] {
			seen[k] = true
			terms = append(terms, t)
		}
	}
	notWord := func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }
	for _, f := range strings.Fields(query) {
		add(strings.TrimFunc(f, notWord))
		for _, w := range strings.FieldsFunc(f, notWord) {
			add(w)
		}
	}
	return terms
}

// Snippet cuts text to a window of at most width characters centred on the first query term of
// four or more characters that occurs in it (a shorter term, then the start, when none does),
// with "[N chars before]" and "[+N more chars]" markers, and returns the byte ranges of the
// query terms inside the result. Terms are matched case-insensitively; a term that does not
// occur is also tried by its stem (shorter prefixes down to four characters), as the stemming
// full-text index would have matched "failing" to "failed".
func Snippet(text string, terms []string, width int) (string, [][2]int) {
	n := utf8.RuneCountInString(text)
	window, prefix, suffix := text, "", ""
	if n > width {
		anchor := -1
		for _, minLen := range []int{4, 1} {
			for _, t := range terms {
				if utf8.RuneCountInString(t) < minLen {
					continue
				}
				if i, _ := findStem(text, t); i >= 0 {
					anchor = i
					break
				}
			}
			if anchor >= 0 {
				break
			}
		}
		start := 0
		if anchor > 0 {
			start = max(0, min(utf8.RuneCountInString(text[:anchor])-width/2, n-width))
		}
		lo, hi := runeOffset(text, start), runeOffset(text, start+width)
		window = text[lo:hi]
		if start > 0 {
			prefix = fmt.Sprintf("[%d chars before] ", start)
		}
		if rest := n - start - width; rest > 0 {
			suffix = fmt.Sprintf(" [+%d more chars]", rest)
		}
	}
	// Longer terms first, so that a term marks whole before the words inside it could.
	byLength := slices.Clone(terms)
	slices.SortStableFunc(byLength, func(a, b string) int { return len(b) - len(a) })
	var marks [][2]int
	for _, t := range byLength {
		for off := 0; off < len(window); {
			i, l := findStem(window[off:], t)
			if i < 0 {
				break
			}
			at := len(prefix) + off + i
			if !overlaps(marks, at, at+l) {
				marks = append(marks, [2]int{at, at + l})
			}
			off += i + l
		}
	}
	sortRanges(marks)
	return prefix + window + suffix, marks
}

// findStem finds term at the start of a word of s, case-insensitively, or else its longest
// prefix of at least four characters; it returns the byte offset and length of the match, or
// -1. Words start where a letter or digit follows anything else (so "test" is not found
// inside "pytest", as the word index would not have matched it there either).
func findStem(s, term string) (int, int) { return findPrefix(s, term, 4) }

// findPrefix is findStem with the shortest prefix tried given.
func findPrefix(s, term string, shortest int) (int, int) {
	runes := []rune(term)
	for l := len(runes); l >= min(shortest, len(runes)); l-- {
		if i, n := indexWordFold(s, string(runes[:l])); i >= 0 {
			return i, n
		}
	}
	return -1, 0
}

// indexWordFold is indexFold restricted to matches at the start of a word. CJK text has no
// word boundaries, so there any match counts.
func indexWordFold(s, sub string) (int, int) {
	for off := 0; off < len(s); {
		i, n := indexFold(s[off:], sub)
		if i < 0 {
			return -1, 0
		}
		at := off + i
		prev, _ := utf8.DecodeLastRuneInString(s[:at])
		first, _ := utf8.DecodeRuneInString(sub)
		if at == 0 || !(unicode.IsLetter(prev) || unicode.IsNumber(prev)) || sqlite.IsCJK(first) {
			return at, n
		}
		_, size := utf8.DecodeRuneInString(s[at:])
		off = at + size
	}
	return -1, 0
}

// indexFold is a case-insensitive strings.Index; it returns the match's byte length too, which
// can differ from the needle's under case folding.
func indexFold(s, sub string) (int, int) {
	k := utf8.RuneCountInString(sub)
	if k == 0 {
		return -1, 0
	}
	first, _ := utf8.DecodeRuneInString(sub)
	first = unicode.ToLower(first)
	for i, r := range s {
		if unicode.ToLower(r) != first {
			continue
		}
		if end := runeOffset(s[i:], k); strings.EqualFold(s[i:i+end], sub) {
			return i, end
		}
	}
	return -1, 0
}

// runeOffset is the byte offset of the n-th rune of s (len(s) past the end).
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

func overlaps(marks [][2]int, lo, hi int) bool {
	for _, m := range marks {
		if lo < m[1] && hi > m[0] {
			return true
		}
	}
	return false
}

func sortRanges(r [][2]int) {
	for i := 1; i < len(r); i++ {
		for j := i; j > 0 && r[j][0] < r[j-1][0]; j-- {
			r[j], r[j-1] = r[j-1], r[j]
		}
	}
}
