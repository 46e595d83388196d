package view

import "time"

// ModelStatus is whether semantic search is on, the installed embedding models and how far the
// archive is embedded.
type ModelStatus struct {
	Enabled   bool              `json:"enabled"`
	Model     string            `json:"model,omitempty"` // the configured model, name@revision
	Installed []InstalledModel  `json:"installed"`
	Embedded  *EmbeddedMessages `json:"embedded,omitempty"`
	// ConfigFile is where a change of the setting was saved; Removed the model folder it deleted.
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

// InstalledModel is one model under <data dir>/models. Its fields and their JSON are the model
// manager's install record (embed/model, which imports nothing of Pond's, keeps its own).
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

// MsgEmbeddingsOff is what the archive answers when asked for semantic search or embedding
// while no embedding model is turned on; a face adds how to turn one on.
const MsgEmbeddingsOff = "semantic search is off"

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
