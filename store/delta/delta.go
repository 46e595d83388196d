// Package delta stores a text as the parts of it that another text (its reference) already
// holds, plus the bytes it does not share: copy instructions and literals, as LZ77 does with
// the text that came before, but with a reference the reader has at hand.
//
// Pond keeps each message's raw record (the line the agent wrote) beside its search text in
// one Lance row, and the search text is mostly the record's own prose. Lance compresses each
// column page by page, so it cannot see that repetition; stored as a delta against the search
// text, the record keeps only its envelope and tool bodies (docs/benchmarks.md, 2026-12-07).
//
// The form is part of the archive's format and must stay decodable:
//
//	"\x00" "1" <8 hex digits: CRC-32C of the value> ops...
//	op: "L" <decimal n> ":" <n bytes copied as they are>
//	  | "C" <decimal offset> "," <decimal n> ";"   (n bytes of the reference from offset)
//
// The checksum makes a value decoded against any other reference than its own an error rather
// than a wrong text. A value that does not start with NUL is stored as it is; one that does (no
// JSON record does) is always encoded, so that Decode can tell the two apart. Literals are cut
// only at UTF-8 character boundaries, so an encoded valid UTF-8 text stays valid.
package delta

import (
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
)

const (
	marker = "\x00" + "1"
	// minCopy is the shortest run worth a copy: its instruction costs up to ~14 bytes, and
	// a literal's header is as long again.
	minCopy = 24
	// hashBits bounds the match table: references longer than 1<<hashBits positions keep
	// the first position of each colliding hash, which finds fewer but still correct copies.
	hashBits = 16
	// maxStride bounds how far the scan strides through a value's text the reference lacks
	// (one more byte every 32 misses, as LZ4 does): tool output is most of a record and none
	// of the search text. A copy is still found from any position inside it.
	maxStride = 16
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendHeader appends the start of the encoded form of value: the marker and its checksum.
func appendHeader(dst []byte, value string) []byte {
	dst = append(dst, marker...)
	sum := checksum(value)
	for shift := 28; shift >= 0; shift -= 4 {
		dst = append(dst, "0123456789abcdef"[sum>>uint(shift)&0xf])
	}
	return dst
}

// checksum is the CRC-32C of s, through a buffer on the stack rather than a copy of s.
func checksum(s string) uint32 {
	var buf [4096]byte
	var c uint32
	for len(s) > 0 {
		n := copy(buf[:], s)
		c, s = crc32.Update(c, castagnoli, buf[:n]), s[n:]
	}
	return c
}

// Encoder finds copies of a reference in a value. Its table is reused between calls; one
// Encoder is not for concurrent use.
type Encoder struct {
	table []int32
}

// Append appends to dst value's stored form: copies from ref and literals, or value itself when
// that is not shorter (and value does not start with NUL).
func (e *Encoder) Append(dst []byte, value string, ref []byte) []byte {
	if len(value) < minCopy || len(ref) < minCopy {
		if strings.HasPrefix(value, "\x00") {
			return appendLiteral(appendHeader(dst, value), value)
		}
		return append(dst, value...)
	}
	// Twice as many slots as positions, up to 1<<hashBits; a slot holds a position plus one,
	// so that a cleared table is empty.
	bits := uint(8)
	for bits < hashBits && 1<<bits < 2*len(ref) {
		bits++
	}
	if cap(e.table) < 1<<bits {
		e.table = make([]int32, 1<<hashBits)
	}
	table := e.table[:1<<bits]
	clear(table)
	// Every position of the reference, the first of each hash kept (so a copy runs from the
	// earliest repetition, the longest).
	for p := 0; p+8 <= len(ref); p++ {
		if h := hash(ref[p:], bits); table[h] == 0 {
			table[h] = int32(p + 1)
		}
	}

	base := len(dst)
	dst = appendHeader(dst, value)
	lit := 0    // value[lit:] is not written yet
	misses := 0 // since the last copy: the scan strides further through text the reference lacks
	for i := 0; i+8 <= len(value); {
		c := int(table[hash(value[i:], bits)]) - 1
		if c < 0 || string(ref[c:c+8]) != value[i:i+8] {
			misses++
			i += 1 + min(misses>>5, maxStride)
			continue
		}
		start, from, end := i, c, i+8
		for end+8 <= len(value) && from+(end-start)+8 <= len(ref) && value[end:end+8] == string(ref[from+end-start:from+end-start+8]) {
			end += 8
		}
		for end < len(value) && from+(end-start) < len(ref) && value[end] == ref[from+end-start] {
			end++
		}
		for start > lit && from > 0 && value[start-1] == ref[from-1] {
			start, from = start-1, from-1
		}
		// Cut at character boundaries (the bytes are the reference's too).
		for start < end && continuation(value[start]) {
			start, from = start+1, from+1
		}
		for end > start && end < len(value) && continuation(value[end]) {
			end--
		}
		if end-start < minCopy {
			i++
			continue
		}
		if start > lit {
			dst = appendLiteral(dst, value[lit:start])
		}
		dst = append(dst, 'C')
		dst = strconv.AppendInt(dst, int64(from), 10)
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, int64(end-start), 10)
		dst = append(dst, ';')
		i, lit, misses = end, end, 0
		if len(dst)-base >= len(value) {
			break
		}
	}
	if lit < len(value) {
		dst = appendLiteral(dst, value[lit:])
	}
	if len(dst)-base >= len(value) && !strings.HasPrefix(value, "\x00") {
		return append(dst[:base], value...)
	}
	return dst
}

func appendLiteral(dst []byte, s string) []byte {
	dst = append(dst, 'L')
	dst = strconv.AppendInt(dst, int64(len(s)), 10)
	dst = append(dst, ':')
	return append(dst, s...)
}

func continuation(c byte) bool { return c&0xC0 == 0x80 }

// hash spreads the 8 bytes at the start of s over bits bits.
func hash[T string | []byte](s T, bits uint) uint32 {
	_ = s[7]
	v := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	return uint32(v * 0x9E3779B185EBCA87 >> (64 - bits))
}

// ErrCorrupt is returned for an encoded value that does not decode against its reference.
var ErrCorrupt = errors.New("delta: corrupt value")

// Decode returns the value stored as s against ref: s itself when it is not encoded.
func Decode(s string, ref []byte) (string, error) {
	if !strings.HasPrefix(s, "\x00") {
		return s, nil
	}
	if !strings.HasPrefix(s, marker) {
		return "", fmt.Errorf("%w: unknown form %q", ErrCorrupt, s[:min(len(s), 2)])
	}
	if len(s) < len(marker)+8 {
		return "", fmt.Errorf("%w: short header", ErrCorrupt)
	}
	sum, err := strconv.ParseUint(s[len(marker):len(marker)+8], 16, 32)
	if err != nil {
		return "", fmt.Errorf("%w: bad checksum", ErrCorrupt)
	}
	s = s[len(marker)+8:]
	// Once to check the instructions and size the text, once to write it.
	n, err := decodeOps(s, ref, nil)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(n)
	decodeOps(s, ref, &b)
	if checksum(b.String()) != uint32(sum) {
		return "", fmt.Errorf("%w: checksum mismatch (decoded against another reference)", ErrCorrupt)
	}
	return b.String(), nil
}

// decodeOps follows the instructions of s, writing the text to b when b is not nil, and
// returns its length.
func decodeOps(s string, ref []byte, b *strings.Builder) (int, error) {
	size := 0
	for len(s) > 0 {
		op := s[0]
		s = s[1:]
		switch op {
		case 'L':
			n, rest, ok := number(s, ':')
			if !ok || n > len(rest) {
				return 0, fmt.Errorf("%w: bad literal", ErrCorrupt)
			}
			if b != nil {
				b.WriteString(rest[:n])
			}
			s, size = rest[n:], size+n
		case 'C':
			off, rest, ok := number(s, ',')
			if !ok {
				return 0, fmt.Errorf("%w: bad copy", ErrCorrupt)
			}
			n, rest, ok := number(rest, ';')
			if !ok || off > len(ref) || n > len(ref)-off {
				return 0, fmt.Errorf("%w: copy out of the reference", ErrCorrupt)
			}
			if b != nil {
				b.Write(ref[off : off+n])
			}
			s, size = rest, size+n
		default:
			return 0, fmt.Errorf("%w: unknown instruction %q", ErrCorrupt, op)
		}
	}
	return size, nil
}

// number reads a decimal up to sep and returns it with what follows sep.
func number(s string, sep byte) (int, string, bool) {
	i := strings.IndexByte(s, sep)
	if i <= 0 || i > 10 {
		return 0, "", false
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil || n < 0 {
		return 0, "", false
	}
	return n, s[i+1:], true
}
