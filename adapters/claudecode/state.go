package claudecode

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// stateVersion changes whenever cursorState does; a cursor of another version is read again
// from the start, except for version 1, whose seen ids held whole 64-bit digests.
const stateVersion = 2

// cursorState is what a resumed read needs of the lines before the cursor.
type cursorState struct {
	V       int              `json:"v"`
	Session *session.Session `json:"session"`        // as emitted; re-emitted first
	Last    time.Time        `json:"last"`           // the previous record's time
	Open    *openMessage     `json:"open,omitempty"` // the assistant message later lines may add to
	Tools   toolNames        `json:"tools,omitempty"`
	// Seen makes record ids unique. Claude Code does repeat them: a VS Code reopen or a resume
	// re-appends records with their uuid, and metadata lines without a uuid (mode,
	// permission-mode) recur verbatim.
	Seen   adapters.SeenIDs `json:"ids,omitzero"`
	Seen64 []byte           `json:"seen,omitempty"` // version 1's (adapters.SeenIDs.UnmarshalBinary64)
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
	if json.Unmarshal(raw, &st) != nil || st.Session == nil || st.Session.ID == "" {
		return nil, false
	}
	switch st.V {
	case 1:
		if st.Seen.UnmarshalBinary64(st.Seen64) != nil {
			return nil, false
		}
		st.V, st.Seen64 = stateVersion, nil
	case stateVersion:
	default:
		return nil, false
	}
	return &st, true
}

// recordID is a record's id before de-duplication: its uuid, else rec-<digest of the line>.
func recordID(uuid string, raw []byte) string {
	if uuid != "" {
		return uuid
	}
	return adapters.RecordID(raw)
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
