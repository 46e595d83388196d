package claudecode

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"slices"
	"strconv"
	"time"

	"github.com/pondhq/pond/session"
)

// stateVersion changes whenever cursorState does; a cursor of another version is read again
// from the start.
const stateVersion = 1

// cursorState is what a resumed read needs of the lines before the cursor.
type cursorState struct {
	V       int              `json:"v"`
	Session *session.Session `json:"session"`        // as emitted; re-emitted first
	Last    time.Time        `json:"last"`           // the previous record's time
	Open    *openMessage     `json:"open,omitempty"` // the assistant message later lines may add to
	Tools   toolNames        `json:"tools,omitempty"`
	Seen    []byte           `json:"seen,omitempty"` // seenIDs.encode

	seen seenIDs
}

// openMessage is the assistant message whose API response may go on in later lines.
type openMessage struct {
	ID    string    `json:"id"`            // canonical id: the uuid of its first line
	MsgID string    `json:"msg"`           // the API's message.id
	Req   string    `json:"req,omitempty"` // the API request id
	At    time.Time `json:"at"`
	Next  int       `json:"next"` // next part ordinal
}

// continues reports whether an assistant line with these ids goes on with the message.
func (o *openMessage) continues(msgID, req string) bool {
	return o != nil && msgID != "" && msgID == o.MsgID && (req == "" || o.Req == "" || req == o.Req)
}

func decodeState(raw json.RawMessage) (*cursorState, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	var st cursorState
	if json.Unmarshal(raw, &st) != nil || st.V != stateVersion || st.Session == nil || st.Session.ID == "" {
		return nil, false
	}
	var ok bool
	if st.seen, ok = decodeSeen(st.Seen); !ok {
		return nil, false
	}
	return &st, true
}

// recordID is a record's id before de-duplication: its uuid, else rec-<digest of the line>.
func recordID(uuid string, raw []byte) string {
	if uuid != "" {
		return uuid
	}
	sum := sha256.Sum256(raw)
	return "rec-" + hex.EncodeToString(sum[:8])
}

// seenCap bounds the ids remembered for de-duplication, so the cursor stays small. A repeat
// further back than seenCap distinct ids is not recognised; full and resumed reads share the rule
// (the window is a function of the lines before it), so both give the same keys.
const seenCap = 1024

// seenIDs makes record ids unique within a source. Claude Code does repeat them: a VS Code
// reopen or a resume re-appends records with their uuid, and metadata lines without a uuid
// (mode, permission-mode) recur verbatim. The second occurrence becomes <id>-2, the third <id>-3.
type seenIDs struct {
	order []uint64 // least recently seen first
	count map[uint64]int
}

func (s *seenIDs) next(id string) string {
	if s.count == nil {
		s.count = map[uint64]int{}
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	key := h.Sum64()
	n := s.count[key] + 1
	s.count[key] = n
	if n > 1 {
		s.order = slices.DeleteFunc(s.order, func(k uint64) bool { return k == key })
	}
	s.order = append(s.order, key)
	if len(s.order) > seenCap {
		delete(s.count, s.order[0])
		s.order = s.order[1:]
	}
	if n == 1 {
		return id
	}
	return id + "-" + strconv.Itoa(n)
}

// encode packs the window: per id, 8 bytes of hash then the count as a uvarint.
func (s *seenIDs) encode() []byte {
	b := make([]byte, 0, len(s.order)*9)
	for _, k := range s.order {
		b = binary.BigEndian.AppendUint64(b, k)
		b = binary.AppendUvarint(b, uint64(s.count[k]))
	}
	return b
}

func decodeSeen(b []byte) (seenIDs, bool) {
	s := seenIDs{count: map[uint64]int{}}
	for len(b) > 0 {
		if len(b) < 9 {
			return seenIDs{}, false
		}
		k := binary.BigEndian.Uint64(b)
		n, w := binary.Uvarint(b[8:])
		if w <= 0 || n == 0 || n > 1<<31 {
			return seenIDs{}, false
		}
		if _, dup := s.count[k]; dup {
			return seenIDs{}, false
		}
		s.order = append(s.order, k)
		s.count[k] = int(n)
		b = b[8+w:]
	}
	return s, len(s.order) <= seenCap
}

// toolsCap bounds the calls waiting for their result. Results follow their call closely (a
// sub-agent's own lines are in its own file), so only a result far behind loses its name.
const toolsCap = 64

// toolNames maps the ids of tool calls still waiting for a result to the tools' names, oldest
// first: Claude Code's tool_result blocks carry only the call id.
type toolNames [][2]string

func (t *toolNames) add(id, name string) {
	if id == "" {
		return
	}
	*t = slices.DeleteFunc(*t, func(e [2]string) bool { return e[0] == id })
	*t = append(*t, [2]string{id, name})
	if len(*t) > toolsCap {
		*t = (*t)[1:]
	}
}

// take returns the name of the call and forgets it.
func (t *toolNames) take(id string) string {
	for i := len(*t) - 1; i >= 0; i-- {
		if (*t)[i][0] == id {
			name := (*t)[i][1]
			*t = slices.Delete(*t, i, i+1)
			return name
		}
	}
	return ""
}
