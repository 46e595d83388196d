package apitype

import "time"

// ModelStatus answers GET and POST /v1/model: whether semantic search is on, the installed
// embedding models and how far the archive is embedded.
type ModelStatus struct {
	Enabled   bool              `json:"enabled"`
	Model     string            `json:"model,omitempty"` // the configured model, name@revision
	Installed []InstalledModel  `json:"installed"`
	Embedded  *EmbeddedMessages `json:"embedded,omitempty"`
	// ConfigFile is where a POST changed the setting; Removed the model folder it deleted.
	ConfigFile string `json:"config_file,omitempty"`
	Removed    string `json:"removed,omitempty"`
}

// EmbeddedMessages say how far the archive's embedding has come for the active model.
type EmbeddedMessages struct {
	Model      string `json:"model"` // as rows record it
	Searchable int64  `json:"searchable"`
	ThisModel  int64  `json:"this_model"`
	Other      int64  `json:"other_models"`
}

// InstalledModel is one model under <data dir>/models. Its fields and their JSON follow the
// model manager's install record.
type InstalledModel struct {
	ID          string               `json:"id"` // name@revision
	Source      string               `json:"source"`
	InstalledAt time.Time            `json:"installed_at"`
	Files       []InstalledModelFile `json:"files"`
	Config      ModelConfig          `json:"config"`
	Dir         string               `json:"dir"`
}

// InstalledModelFile is one file of an installed model and why it is trusted.
type InstalledModelFile struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Trust  string `json:"trust"` // pinned, trust-on-first-download or copied-from-local-folder
}

// ModelConfig describes how a model embeds (pond-model.json).
type ModelConfig struct {
	Name          string `json:"name"`
	Variant       string `json:"variant,omitempty"`
	Source        string `json:"source,omitempty"`
	Dimensions    int    `json:"dimensions"`
	MaxTokens     int    `json:"max_tokens"`
	Pooling       string `json:"pooling"`
	Normalize     bool   `json:"normalize"`
	QueryPrefix   string `json:"query_prefix"`
	PassagePrefix string `json:"passage_prefix"`
	BatchSize     int    `json:"batch_size,omitempty"`
}

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

// ModelVerify is what a verification found.
type ModelVerify struct {
	Model    string         `json:"model"`
	Dir      string         `json:"dir"`
	OK       bool           `json:"ok"`
	Problems []ModelProblem `json:"problems,omitempty"`
}

// ModelProblem is one file that failed verification.
type ModelProblem struct {
	File   string `json:"file"`
	Detail string `json:"detail"`
}

// EventModel is the watch event of a change of the embedding setting.
const EventModel = "model_changed"
