package store

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// highlightTerms are the query's words worth marking in a hit: letters and digits only, longest
// first so that a longer term wins over a term it contains.
func highlightTerms(query string) []string {
	var terms []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(query, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		k := strings.ToLower(f)
		if !seen[k] {
			seen[k] = true
			terms = append(terms, f)
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
	var marks [][2]int
	for _, t := range terms {
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

// findStem finds term in s case-insensitively, or else its longest prefix of at least four
// characters; it returns the byte offset and length of the match, or -1.
func findStem(s, term string) (int, int) {
	runes := []rune(term)
	for l := len(runes); l >= min(4, len(runes)); l-- {
		if i, n := indexFold(s, string(runes[:l])); i >= 0 {
			return i, n
		}
		if l < 4 {
			break
		}
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
