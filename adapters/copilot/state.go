package copilot

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// stateVersion changes whenever cursorState does; a cursor of another version is read again
// from the start.
const stateVersion = 1

// cursorState is what a resumed read needs of the events before the cursor.
type cursorState struct {
	V       int              `json:"v"`
	Session *session.Session `json:"session"` // the file's session as emitted; re-emitted first
	// Agents are the sub-agent sessions met so far, most recently met last, so that a resumed
	// read re-emits one as it was before adding to it.
	Agents []*session.Session `json:"agents,omitempty"`
	Last   time.Time          `json:"last"` // the previous event's time
	// Open are the chunked assistant messages later chunks may add to, one per agent at most.
	Open  []*openMessage `json:"open,omitempty"`
	Tools toolNames      `json:"tools,omitempty"`
	// Seen makes event ids unique (an id met again becomes <id>-2 …).
	Seen adapters.SeenIDs `json:"ids,omitzero"`
}

// Caps on what the cursor remembers. Sub-agents beyond agentsCap met again after a resume are
// emitted anew from the event that meets them (their start time may then differ); a chunk
// whose first chunk is further back than openCap open messages stands alone; a result whose
// call is further back than toolsCap calls has no tool name.
const (
	agentsCap = 64
	openCap   = 16
	toolsCap  = 64
)

// openMessage is an assistant message whose model call's later chunks may add to it.
type openMessage struct {
	Session string    `json:"s"`    // the session it belongs to
	ID      string    `json:"id"`   // canonical id: its first chunk's event id
	API     string    `json:"api"`  // the apiCallId its chunks share
	Chunk   int64     `json:"k"`    // the last chunk's index
	At      time.Time `json:"at"`   // its time
	Next    int       `json:"next"` // next part ordinal
	// emitted: the message was emitted in this read (not one a resumed read took over).
	emitted bool
}

func decodeState(raw json.RawMessage) (*cursorState, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	var st cursorState
	if json.Unmarshal(raw, &st) != nil || st.V != stateVersion || st.Session == nil || st.Session.ID == "" {
		return nil, false
	}
	return &st, true
}

// toolNames maps the ids of tool calls still waiting for a result to the tools' names, oldest
// first: tool.execution_complete carries only the call id.
type toolNames [][2]string

func (t *toolNames) add(id, name string) {
	if id == "" || name == "" {
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
