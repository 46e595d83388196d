package qwen

import (
	"encoding/json"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// stateVersion changes whenever cursorState does; a cursor of another version is read again
// from the start.
const stateVersion = 1

// cursorState is what a resumed read needs of the records before the cursor.
type cursorState struct {
	V       int              `json:"v"`
	Session *session.Session `json:"session"` // as emitted; re-emitted first
	Last    time.Time        `json:"last"`    // the previous record's time
	// Seen makes record ids unique: Qwen writes fragments of one record under one uuid.
	Seen adapters.SeenIDs `json:"ids,omitzero"`
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
