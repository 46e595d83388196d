// Package embed turns message text into vectors for semantic search. It defines the Embedder
// interface and the description of a model on disk; embed/onnx runs models on ONNX Runtime,
// embed/tokenizer reproduces their Hugging Face tokenizers.
package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Kind says what a text is for: e5-family models embed queries and passages with different
// prefixes.
type Kind int

// Kinds of text.
const (
	Passage Kind = iota
	Query
)

// Embedder embeds texts as unit vectors of Dimensions() floats.
type Embedder interface {
	Embed(ctx context.Context, texts []string, kind Kind) ([][]float32, error)
	Dimensions() int
	// Model names the model, recorded with each vector so a model change can be detected.
	Model() string
}

// ConfigFile is the file in a model directory that tells Pond how to run the model.
const ConfigFile = "pond-model.json"

// ModelConfig is what Pond needs to know about a model beyond its ONNX graph and tokenizer.
type ModelConfig struct {
	Name          string `json:"name"`
	Variant       string `json:"variant,omitempty"` // e.g. int8, fp32
	Source        string `json:"source,omitempty"`
	Dimensions    int    `json:"dimensions"`
	MaxTokens     int    `json:"max_tokens"`
	Pooling       string `json:"pooling"` // mean
	Normalize     bool   `json:"normalize"`
	QueryPrefix   string `json:"query_prefix"`
	PassagePrefix string `json:"passage_prefix"`
	// BatchSize is how many texts run at once (0: the runtime's default). Models whose
	// activations are quantised per run (dynamic int8) want 1: in a batch, a text's vector
	// would depend on its neighbours.
	BatchSize int `json:"batch_size,omitempty"`
}

// ID names the model and its variant, e.g. "intfloat/multilingual-e5-small@int8": what rows
// record as their embedding_model.
func (c ModelConfig) ID() string {
	if c.Variant == "" {
		return c.Name
	}
	return c.Name + "@" + c.Variant
}

// Prefix is the text prepended to inputs of kind k.
func (c ModelConfig) Prefix(k Kind) string {
	if k == Query {
		return c.QueryPrefix
	}
	return c.PassagePrefix
}

// LoadModelConfig reads dir's pond-model.json and checks it.
func LoadModelConfig(dir string) (ModelConfig, error) {
	var c ModelConfig
	b, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil {
		return c, fmt.Errorf("embed: model config: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("embed: model config %s: %w", filepath.Join(dir, ConfigFile), err)
	}
	switch {
	case c.Name == "":
		return c, errors.New("embed: model config has no name")
	case c.Dimensions <= 0:
		return c, fmt.Errorf("embed: model %s: dimensions must be positive", c.Name)
	case c.MaxTokens <= 0:
		return c, fmt.Errorf("embed: model %s: max_tokens must be positive", c.Name)
	case c.Pooling != "mean":
		return c, fmt.Errorf("embed: model %s: pooling %q is not supported (want mean)", c.Name, c.Pooling)
	}
	return c, nil
}
