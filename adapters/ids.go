package adapters

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/fnv"
	"slices"
	"strconv"
)

// Digest is the first 16 hex digits of the SHA-256 of b.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// RecordID is the id of a source record that has none of its own: rec-<Digest of the record
// as written>.
func RecordID(raw []byte) string { return "rec-" + Digest(raw) }

// SeenCap bounds the ids a SeenIDs remembers, so that a cursor holding one stays small (at
// most about 6 KB, 8 KB as JSON) however long its session grows.
const SeenCap = 1024

// SeenIDs makes the message ids of one source unique: Next gives an id met again <id>-2, then
// <id>-3 …, and never an id it gave already (a record's own id may look like a suffixed one).
//
// It remembers the SeenCap ids used most recently (given, or met again), with how often each
// was met; a repeat further back is not recognised. What it remembers is a function of the
// ids given before, and a cursor keeps all of it (MarshalJSON), so a read resumed from a cursor
// gives the ids a read of the whole source gives. Ids are remembered by a 40-bit digest; two
// ids with the same digest (one in 10⁹ new ids meets one of those remembered) only make the
// second one suffixed.
//
// The zero SeenIDs is empty and ready to use.
type SeenIDs struct {
	order []uint64         // least recently used first
	count map[uint64]int32 // times met, by digest
}

// Next is id made unique within the source.
func (s *SeenIDs) Next(id string) string {
	key := idKey(id)
	n := s.count[key]
	s.use(key, n+1)
	if n == 0 {
		return id
	}
	for {
		n++
		next := id + "-" + strconv.Itoa(int(n))
		if k := idKey(next); s.count[k] == 0 {
			s.use(key, n) // a later repeat goes on from here
			s.use(k, 1)
			return next
		}
	}
}

// use sets key's count and makes it the most recently used, forgetting the least recently
// used beyond SeenCap.
func (s *SeenIDs) use(key uint64, n int32) {
	if s.count == nil {
		s.count = map[uint64]int32{}
	}
	if _, known := s.count[key]; known {
		if i := slices.Index(s.order, key); i >= 0 {
			s.order = slices.Delete(s.order, i, i+1)
		}
	}
	s.count[key] = n
	s.order = append(s.order, key)
	if len(s.order) > SeenCap {
		delete(s.count, s.order[0])
		s.order = s.order[1:] // append moves the rest when it runs out of room
	}
}

// digestBits is how much of an id's FNV-64a digest is kept: its top 40 bits, the better mixed.
const digestBits = 40

func idKey(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64() >> (64 - digestBits)
}

// IsZero reports whether s remembers nothing (for omitzero).
func (s SeenIDs) IsZero() bool { return len(s.order) == 0 }

// MarshalBinary packs what s remembers, least recently used first: per id its digest (5 bytes,
// big-endian), then its count as a uvarint.
func (s SeenIDs) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, len(s.order)*6)
	for _, k := range s.order {
		b = append(b, byte(k>>32), byte(k>>24), byte(k>>16), byte(k>>8), byte(k))
		b = binary.AppendUvarint(b, uint64(s.count[k]))
	}
	return b, nil
}

// UnmarshalBinary reads what MarshalBinary wrote; anything else is an error.
func (s *SeenIDs) UnmarshalBinary(b []byte) error { return s.unpack(b, digestBits/8, 0) }

// UnmarshalBinary64 reads the packing cursors held before SeenIDs was shared (Claude Code's
// seen ids): whole 64-bit digests, 8 bytes each, then the count. They become the digests
// Next makes, so a cursor of either packing resumes with the same ids.
func (s *SeenIDs) UnmarshalBinary64(b []byte) error { return s.unpack(b, 8, 64-digestBits) }

// unpack reads entries of a size-byte big-endian digest, shifted right by shift, and a count.
func (s *SeenIDs) unpack(b []byte, size, shift int) error {
	t := SeenIDs{count: map[uint64]int32{}}
	for len(b) > 0 {
		if len(b) < size+1 {
			return errors.New("seen ids: truncated")
		}
		var k uint64
		for _, c := range b[:size] {
			k = k<<8 | uint64(c)
		}
		k >>= shift
		n, w := binary.Uvarint(b[size:])
		if w <= 0 || n == 0 || n > 1<<31-1 {
			return errors.New("seen ids: bad count")
		}
		if _, dup := t.count[k]; dup {
			return errors.New("seen ids: repeated id")
		}
		t.order = append(t.order, k)
		t.count[k] = int32(n)
		b = b[size+w:]
	}
	if len(t.order) > SeenCap {
		return errors.New("seen ids: too many")
	}
	*s = t
	return nil
}

// MarshalJSON writes MarshalBinary's bytes as a base64 string (as encoding/json writes a
// []byte).
func (s SeenIDs) MarshalJSON() ([]byte, error) {
	b, _ := s.MarshalBinary()
	return json.Marshal(b)
}

// UnmarshalJSON reads what MarshalJSON wrote; anything else is an error.
func (s *SeenIDs) UnmarshalJSON(data []byte) error {
	var b []byte
	if err := json.Unmarshal(data, &b); err != nil {
		return err
	}
	return s.UnmarshalBinary(b)
}
