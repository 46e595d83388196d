package adaptertest

import (
	"strings"

	"github.com/pondhq/pond/adapters"
)

// FuzzLimits are the read bounds fuzz tests read with: small enough that a seed can hold a line
// over the cap.
var FuzzLimits = adapters.Limits{LineBytes: 256 << 10, DecompressedBytes: 4 << 20}

// Hostile are JSON values that test a reader's bounds, for fuzz seeds: lists and objects nested
// just within adapters.MaxDepth and beyond it (a record holding one is malformed, never a
// stack overflow), a long string full of escapes, one longer than FuzzLimits allows a line
// (reported, passed over), and strings with invalid UTF-8 and unpaired surrogates (read as
// U+FFFD, as encoding/json reads them; the archive keeps the record's bytes as written). Each is
// one JSON value (the deep ones only are not valid), to put where a record has a value.
func Hostile() []string {
	const within = adapters.MaxDepth - 16 // room for the record around it
	return []string{
		strings.Repeat("[", within) + strings.Repeat("]", within),
		strings.Repeat("[", adapters.MaxDepth+1) + strings.Repeat("]", adapters.MaxDepth+1),
		strings.Repeat(`{"content":[`, adapters.MaxDepth/2+1) + strings.Repeat("]}", adapters.MaxDepth/2+1),
		strings.Repeat(`{"a":`, 200_000),                              // cut short, far too deep
		`"` + strings.Repeat(`line\n\"quoted\"\u00e9\t`, 1<<12) + `"`, // 100 KB
		`"` + strings.Repeat("x", int(FuzzLimits.LineBytes)) + `"`,    // over the line cap
		"\"\xff\xfe bad \xed\xa0\x80 \xc0\xaf cut \xe2\x82\"",
		`"\ud800 \udc00 \ud83d\u0041 \ud83d"`,
		"{\"k\xff\":\"\xff\",\"text\":\"\xe2\x28\xa1\"}",
	}
}
