// Package fynelocale keeps Fyne from logging a locale error at start-up on machines whose locale
// is C.UTF-8 (Debian's and most containers' default).
//
// Fyne's lang package reads the locale in its package init, through go-locale, which treats "C"
// and "POSIX" as "no locale" but turns "C.UTF-8" into the tag "C" and hands it to a BCP 47
// parser that rejects it: every run of the binary, `pond version` included, printed three
// "Fyne error: Error parsing user locale C" lines. go-locale reads LANGUAGE before the parse
// when the locale is not plain C, so this package sets LANGUAGE=en in exactly that case.
//
// It must run before Fyne's init, and does without any ordering trick of ours: Go initialises,
// in each step, the first package by import path whose imports are ready; this package imports
// only os and strings, which are ready before golang.org/x/text/language (which Fyne's lang
// imports, and which sorts after this path), so this init always comes first. The end-to-end
// test that runs the binary under C.UTF-8 checks it.
//
// Setting LANGUAGE changes nothing else a C.* locale shows: untranslated messages are English,
// in Fyne and in any program a resume opens.
package fynelocale

import (
	"os"
	"strings"
)

func init() {
	if NeedsLanguage(os.Getenv) {
		os.Setenv("LANGUAGE", "en")
	}
}

// NeedsLanguage reports whether the environment names a C or POSIX locale with a codeset
// ("C.UTF-8", "POSIX.utf8"), which go-locale parses into an invalid tag, and no LANGUAGE.
func NeedsLanguage(getenv func(string) string) bool {
	if getenv("LANGUAGE") != "" {
		return false
	}
	// The variable that wins, in go-locale's order (and gettext's).
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(name); v != "" {
			base, _, _ := strings.Cut(v, ".")
			base, _, _ = strings.Cut(base, "@")
			return (base == "C" || base == "POSIX") && v != base
		}
	}
	return false
}
