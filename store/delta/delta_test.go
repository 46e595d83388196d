package delta

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func roundTrip(t testing.TB, e *Encoder, value, ref string) string {
	t.Helper()
	enc := string(e.Append(nil, value, []byte(ref)))
	got, err := Decode(enc, []byte(ref))
	if err != nil {
		t.Fatalf("Decode(Append(%q)): %v", value, err)
	}
	if got != value {
		t.Fatalf("round trip of %q against %q gave %q (encoded %q)", value, ref, got, enc)
	}
	if utf8.ValidString(value) && !utf8.ValidString(enc) {
		t.Fatalf("encoding of valid UTF-8 %q is not: %q", value, enc)
	}
	return enc
}

// TestRecordSharesItsText: a JSON record holding its text is stored as the envelope and copies.
func TestRecordSharesItsText(t *testing.T) {
	text := strings.Repeat("the build failed because the linker could not find libfoo; ", 20)
	record := `{"type":"assistant","uuid":"0bca6711","message":{"content":[{"type":"text","text":"` + text + `"}]},"cwd":"/home/dev"}`
	var e Encoder
	enc := roundTrip(t, &e, record, text)
	if len(enc) > 200 {
		t.Errorf("encoded %d bytes of %d, want the text copied: %q", len(enc), len(record), enc)
	}
	// Nothing shared: stored as it is.
	other := `{"type":"user","message":"nothing in common with the reference at all, none"}`
	if got := roundTrip(t, &e, other, text); got != other {
		t.Errorf("an unshared value was encoded: %q", got)
	}
}

// TestNULValuesAreAlwaysEncoded: a value that looks encoded (leading NUL) still decodes to itself.
func TestNULValuesAreAlwaysEncoded(t *testing.T) {
	var e Encoder
	for _, v := range []string{"\x00", "\x001", "\x001L3:abc", "\x00" + strings.Repeat("x", 100)} {
		for _, ref := range []string{"", "abc", strings.Repeat("x", 100)} {
			roundTrip(t, &e, v, ref)
		}
	}
}

// TestCopiesKeepCharactersWhole: a copy never starts or ends inside a multi-byte character.
func TestCopiesKeepCharactersWhole(t *testing.T) {
	ref := strings.Repeat("日本語のテキスト、", 10)
	var e Encoder
	for cut := 0; cut < 9; cut++ {
		value := "前置き" + ref[cut:] + "後書き"
		if !utf8.ValidString(value) {
			value = strings.ToValidUTF8(value, "?")
		}
		roundTrip(t, &e, value, ref)
	}
}

// TestRandomRoundTrips mixes pieces of the reference, edits and noise, on one reused Encoder.
func TestRandomRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var e Encoder
	alphabet := "ab \n\"\\é日{}:,"
	randText := func(n int) string {
		r := []rune(alphabet)
		var b strings.Builder
		for range n {
			b.WriteRune(r[rng.IntN(len(r))])
		}
		return b.String()
	}
	for range 2000 {
		ref := randText(rng.IntN(3000))
		var b strings.Builder
		for range rng.IntN(8) {
			if len(ref) > 0 && rng.IntN(2) == 0 {
				i := rng.IntN(len(ref))
				j := i + rng.IntN(len(ref)-i+1)
				b.WriteString(ref[i:j])
			} else {
				b.WriteString(randText(rng.IntN(100)))
			}
		}
		roundTrip(t, &e, b.String(), ref)
	}
}

// TestCorruptValuesFail: what Decode cannot read is an error, never a panic or a wrong text.
func TestCorruptValuesFail(t *testing.T) {
	for _, s := range []string{"\x00", "\x002", "\x001X", "\x001L", "\x001L5:abc", "\x001L-1:", "\x001C0,99;", "\x001C5,1;", "\x001C1;", "\x001C99999999999,1;"} {
		if got, err := Decode(s, []byte("abcd")); err == nil {
			t.Errorf("Decode(%q) = %q, want an error", s, got)
		}
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add("hello world, hello world, hello world", "hello world, hello world")
	f.Add("\x001L1:x", "")
	f.Fuzz(func(t *testing.T, value, ref string) {
		var e Encoder
		roundTrip(t, &e, value, ref)
	})
}

func FuzzDecode(f *testing.F) {
	f.Add("\x001L3:abcC0,2;", "abcdef")
	f.Fuzz(func(t *testing.T, s, ref string) {
		Decode(s, []byte(ref)) // must not panic
	})
}

func BenchmarkEncode(b *testing.B) {
	text := strings.Repeat("the build failed because the linker could not find libfoo\n", 40)
	record := `{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.ReplaceAll(text, "\n", `\n`) + `"}]},"cwd":"/home/dev"}`
	ref := []byte(text + "\x00" + strings.ReplaceAll(text, "\n", `\n`))
	var e Encoder
	var buf []byte
	b.SetBytes(int64(len(record)))
	for b.Loop() {
		buf = e.Append(buf[:0], record, ref)
	}
}

// TestOtherReferenceIsAnError: a value decoded against a reference it was not encoded against
// (a row whose text changed without its record) fails rather than giving a wrong text.
func TestOtherReferenceIsAnError(t *testing.T) {
	ref := strings.Repeat("a line of the message's text, long enough to copy\n", 5)
	value := `{"text":"` + ref + `","id":1}`
	var e Encoder
	enc := roundTrip(t, &e, value, ref)
	other := strings.Replace(ref, "line", "LINE", 1)
	if got, err := Decode(enc, []byte(other)); err == nil {
		t.Fatalf("decoded against another reference: %q", got)
	}
}

func BenchmarkDecode(b *testing.B) {
	text := strings.Repeat("the build failed because the linker could not find libfoo\n", 40)
	record := `{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.ReplaceAll(text, "\n", `\n`) + `"}]},"cwd":"/home/dev"}`
	ref := []byte(text + "\x00" + strings.ReplaceAll(text, "\n", `\n`))
	var e Encoder
	enc := string(e.Append(nil, record, ref))
	b.SetBytes(int64(len(record)))
	for b.Loop() {
		if _, err := Decode(enc, ref); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeToolOutput: a record that is mostly a tool's output, which the search text
// (the reference) does not hold, as most of a coding agent's records are.
func BenchmarkEncodeToolOutput(b *testing.B) {
	var out strings.Builder
	for i := range 200 {
		fmt.Fprintf(&out, `ok  \tgithub.com/example/project/internal/pkg%03d\t0.%03ds\n`, i, i*7%1000)
	}
	text := "Running the tests now to see what still fails after the change."
	record := `{"type":"user","message":{"content":[{"type":"tool_result","content":"` + strings.ReplaceAll(out.String(), "\n", `\n`) +
		`"}]},"text":"` + text + `","cwd":"/home/dev"}`
	ref := []byte(text + "\x00" + text)
	var e Encoder
	var buf []byte
	b.SetBytes(int64(len(record)))
	for b.Loop() {
		buf = e.Append(buf[:0], record, ref)
	}
}
