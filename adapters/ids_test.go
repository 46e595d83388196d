package adapters

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pondhq/pond/session"
)

func TestRecordID(t *testing.T) {
	// The digest every archive's rec- ids were made with.
	if got, want := RecordID([]byte(`{"type":"mode"}`)), "rec-"+Digest([]byte(`{"type":"mode"}`)); got != want || len(got) != 20 {
		t.Errorf("got %q, want %q (20 characters)", got, want)
	}
}

func TestSeenIDsNext(t *testing.T) {
	var s SeenIDs
	var got []string
	for _, id := range []string{"a", "b", "a", "a", "b-2", "b", "a-3", "c-2", "c", "c"} {
		got = append(got, s.Next(id))
	}
	want := []string{"a", "b", "a-2", "a-3", "b-2", "b-3", "a-3-2", "c-2", "c", "c-3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// ids is a source's ids: repeats close by and far back (beyond SeenCap), records whose own id
// looks suffixed, and a run of one id.
func ids() []string {
	var out []string
	for i := range 3 * SeenCap {
		out = append(out, fmt.Sprintf("u%d", i%(SeenCap+SeenCap/2)))
		switch {
		case i%97 == 0:
			out = append(out, "mode")
		case i%101 == 0:
			out = append(out, fmt.Sprintf("u%d-2", i))
		case i == 2000:
			for range 40 {
				out = append(out, "burst")
			}
		}
	}
	return out
}

// TestSeenIDsResumed: a read resumed from a cursor's SeenIDs, after any record, gives the ids a
// read of the whole source gives, and the cursor stays within its bound.
func TestSeenIDsResumed(t *testing.T) {
	in := ids()
	var whole SeenIDs
	var want []string
	for _, id := range in {
		want = append(want, whole.Next(id))
	}
	for _, cut := range []int{0, 1, 17, SeenCap - 1, SeenCap, SeenCap + 1, 2000, 2010, len(in) / 2, len(in) - 1} {
		var s SeenIDs
		var got []string
		for i, id := range in {
			if i == cut {
				b, err := json.Marshal(struct {
					Seen SeenIDs `json:"seen,omitzero"`
				}{s})
				if err != nil {
					t.Fatal(err)
				}
				if len(b) > 8*1024+32 {
					t.Errorf("cut %d: cursor of %d bytes", cut, len(b))
				}
				var back struct {
					Seen SeenIDs `json:"seen"`
				}
				if err := json.Unmarshal(b, &back); err != nil {
					t.Fatalf("cut %d: %v", cut, err)
				}
				s = back.Seen
			}
			got = append(got, s.Next(id))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("cut %d: ids (-whole +resumed):\n%s", cut, diff)
		}
	}
	seen := map[string]int{}
	for i, id := range want {
		if j, dup := seen[id]; dup && i-j < SeenCap/2 {
			t.Errorf("id %s given at %d and again at %d", id, j, i)
		}
		seen[id] = i
	}
}

func TestSeenIDsBadState(t *testing.T) {
	var s SeenIDs
	s.Next("a")
	good, _ := s.MarshalBinary()
	for name, b := range map[string][]byte{
		"truncated":  good[:5],
		"zero_count": append(good[:5:5], 0),
		"repeated":   append(append([]byte{}, good...), good...),
	} {
		if err := new(SeenIDs).UnmarshalBinary(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := json.Unmarshal([]byte(`"AAA="`), new(SeenIDs)); err == nil {
		t.Error("2 bytes: no error")
	}
}

// TestSeenIDsFormat pins the packing cursors hold: the top 40 bits of the id's FNV-64a,
// big-endian, then the count.
func TestSeenIDsFormat(t *testing.T) {
	var s SeenIDs
	s.Next("a")
	s.Next("a")
	b, _ := s.MarshalBinary()
	// a (af63dc4c8601ec8c): met twice; a-2 (e61a63190463c093): given once.
	want := []byte{0xaf, 0x63, 0xdc, 0x4c, 0x86, 2, 0xe6, 0x1a, 0x63, 0x19, 0x04, 1}
	if string(b) != string(want) {
		t.Errorf("got % x\nwant % x", b, want)
	}
}

// TestSeenIDsBinary64: what a cursor of whole 64-bit digests remembered reads as the same
// ids: a read resumed from it goes on as one resumed from the current packing.
func TestSeenIDsBinary64(t *testing.T) {
	old := []byte{0xaf, 0x63, 0xdc, 0x4c, 0x86, 0x01, 0xec, 0x8c, 2} // "a", met twice
	var s SeenIDs
	if err := s.UnmarshalBinary64(old); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, id := range []string{"a", "b", "a"} {
		got = append(got, s.Next(id))
	}
	if diff := cmp.Diff([]string{"a-3", "b", "a-4"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := new(SeenIDs).UnmarshalBinary64(old[:8]); err == nil {
		t.Error("truncated: no error")
	}
}

// A record id can name a session (a source whose records carry no session id of their own).
func TestRecordIDIsASessionID(t *testing.T) {
	if err := session.CheckID(RecordID([]byte(`{"x":1}`))); err != nil {
		t.Error(err)
	}
}
