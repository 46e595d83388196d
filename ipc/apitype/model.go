package apitype

// ModelRequest changes the embedding setting (POST /v1/model). Action "enable" turns semantic
// search on with the installed Model (default: the configured one) and the daemon's vector
// search switches to it; "disable" turns it off, and Remove also deletes the configured model's
// files. Installing the files is the caller's (`pond model install` downloads or copies them
// into the models folder, then enables).
type ModelRequest struct {
	Versioned
	Action string `json:"action"`
	Model  string `json:"model,omitempty"`
	Remove bool   `json:"remove,omitempty"`
}

// ModelVerifyRequest is POST /v1/model/verify: re-hash an installed model's files and check
// that it loads; Model defaults to the configured one.
type ModelVerifyRequest struct {
	Versioned
	Model string `json:"model,omitempty"`
}

// EventModel is the watch event of a change of the embedding setting.
const EventModel = "model_changed"
