package gemini

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

const (
	// stateVersion 2 keeps the repeats of id-less records in an adapters.SeenIDs.
	stateVersion = 2
	// maxRecent is how many messages the cursor remembers in detail. The CLI only ever rewrites
	// the message it is working on, so a handful would do.
	maxRecent = 32
	// idDigestLen is the length of the id digests kept for older messages.
	idDigestLen = 8
)

// state is what a resumed read needs: kept in Cursor.State.
type state struct {
	V       int              `json:"v"`
	Session *session.Session `json:"session,omitempty"` // as first emitted, for re-emission
	Meta    string           `json:"meta,omitempty"`    // legacy: digest of the archived metadata
	Last    string           `json:"last,omitempty"`    // timestamp of the last record read
	Recent  []*track         `json:"recent,omitempty"`  // least recently touched first
	Older   string           `json:"older,omitempty"`   // id digests of messages dropped from Recent
	Recs    adapters.SeenIDs `json:"recs,omitzero"`     // the ids given to id-less records
}

// track is what the archive holds of one message.
type track struct {
	ID    string `json:"id"`
	Sum   string `json:"sum"`   // digest of its current record
	Slots []int  `json:"slots"` // slots whose parts were emitted
}

// decodeState reads a cursor's state; nil when there is none or it is not this version's.
func decodeState(raw json.RawMessage) *state {
	if len(raw) == 0 {
		return nil
	}
	var st state
	if json.Unmarshal(raw, &st) != nil || st.V != stateVersion {
		return nil
	}
	return &st
}

// memory is a state opened for reading: the recent tracks by id and the older id digests.
type memory struct {
	st     *state
	tracks map[string]*track
	older  map[string]bool
}

func openMemory(st *state) *memory {
	m := &memory{st: st, tracks: map[string]*track{}, older: map[string]bool{}}
	for _, t := range st.Recent {
		m.tracks[t.ID] = t
	}
	for i := 0; i+idDigestLen <= len(st.Older); i += idDigestLen {
		m.older[st.Older[i:i+idDigestLen]] = true
	}
	return m
}

// touch makes t the most recently touched track, dropping the least recent beyond maxRecent.
func (m *memory) touch(t *track) {
	m.st.Recent = slices.DeleteFunc(m.st.Recent, func(x *track) bool { return x == t })
	m.st.Recent = append(m.st.Recent, t)
	m.tracks[t.ID] = t
	for len(m.st.Recent) > maxRecent {
		old := m.st.Recent[0]
		m.st.Recent = m.st.Recent[1:]
		delete(m.tracks, old.ID)
		m.older[idDigest(old.ID)] = true
	}
}

func (m *memory) isOlder(id string) bool { return m.older[idDigest(id)] }

// recID names an id-less record: rec-<digest>, with -2, -3 … for repeats.
func (m *memory) recID(raw []byte) string { return m.st.Recs.Next(adapters.RecordID(raw)) }

// encode writes the state for the cursor.
func (m *memory) encode() (json.RawMessage, error) {
	keys := make([]string, 0, len(m.older))
	for k := range m.older {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	m.st.Older = strings.Join(keys, "")
	return json.Marshal(m.st)
}

func idDigest(id string) string { return adapters.Digest([]byte(id))[:idDigestLen] }

// addSlots returns slots with add merged in, sorted and without repeats.
func addSlots(slots []int, add ...int) []int {
	out := append(append([]int{}, slots...), add...)
	sort.Ints(out)
	return slices.Compact(out)
}
