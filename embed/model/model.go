// Package model installs and verifies embedding models in Pond's data directory: from the
// Hugging Face resolve URL at a pinned revision (resumable, with progress), or from a local
// directory. Each installed model lives in models/<name>@<revision>/ with its files, its
// pond-model.json and an install record of every file's sha256.
package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pondhq/pond/embed"
)

// File is one file of a model as published: its path in the repository, the name it gets on
// disk, and its sha256 when known. An empty SHA256 means "unverified here": no authoritative hash
// could be read when Pond was written, so the first download's hash is recorded and checked
// from then on (trust on first download).
type File struct {
	Path   string `json:"path"`
	Name   string `json:"name"`
	SHA256 string `json:"sha256,omitempty"`
	Size   int64  `json:"size,omitempty"`
}

// Spec is a model Pond knows how to fetch.
type Spec struct {
	Name     string            `json:"name"`     // Hugging Face repository, e.g. intfloat/multilingual-e5-small
	Revision string            `json:"revision"` // a commit, never a branch
	Files    []File            `json:"files"`
	Config   embed.ModelConfig `json:"config"` // written as pond-model.json
}

// ID is name@revision, what the config's embeddings.model names.
func (s Spec) ID() string { return s.Name + "@" + s.Revision }

// e5Revision is intfloat/multilingual-e5-small's commit ccc66d3 ("Add exported onnx model
// 'model_O4.onnx' (#13)"), whose onnx/ folder holds the int8 export (#12) and the fp32 model.
const e5Revision = "ccc66d3bcd826f577e26b9a4072cc5fe3a7ad6a3"

func e5Config(variant string) embed.ModelConfig {
	return embed.ModelConfig{
		Name: "intfloat/multilingual-e5-small", Variant: variant, Dimensions: 384, MaxTokens: 512,
		Pooling: "mean", Normalize: true, QueryPrefix: "query: ", PassagePrefix: "passage: ",
	}
}

// The tokenizer's hash is the one Hugging Face publishes in the file's Git LFS pointer
// (onnx/tokenizer.json, unchanged since commit 919cfbe, "Adding ONNX file of this model"); so is
// the fp32 model's. The int8 export's and the small config's could not be read here: they are
// trusted on first download.
var (
	e5Tokenizer = File{Path: "onnx/tokenizer.json", Name: "tokenizer.json", SHA256: "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39"}
	e5HFConfig  = File{Path: "onnx/config.json", Name: "config.json"}
)

// Known are the models `pond model install` can fetch by name; the first is the default. The
// int8 file is the export sentence-transformers made for AVX512-VNNI; ONNX Runtime runs its
// MatMulInteger kernels on any x86-64 or arm64 CPU, fastest where VNNI exists.
var Known = []Spec{
	{
		Name: "intfloat/multilingual-e5-small", Revision: e5Revision, Config: e5Config("int8"),
		Files: []File{{Path: "onnx/model_qint8_avx512_vnni.onnx", Name: "model.onnx"}, e5Tokenizer, e5HFConfig},
	},
	{
		Name: "intfloat/multilingual-e5-small", Revision: e5Revision, Config: e5Config("fp32"),
		Files: []File{{Path: "onnx/model.onnx", Name: "model.onnx", SHA256: "ca456c06b3a9505ddfd9131408916dd79290368331e7d76bb621f1cba6bc8665", Size: 470268510}, e5Tokenizer, e5HFConfig},
	},
}

// Default is the model installed when the user names none.
var Default = Known[0]

// Find returns the known spec for a name and variant ("" is the first variant listed).
func Find(name, variant string) (Spec, bool) {
	for _, s := range Known {
		if s.Name == name && (variant == "" || s.Config.Variant == variant) {
			return s, true
		}
	}
	return Spec{}, false
}

// InstallFile is where an installed model records what it is made of.
const InstallFile = "pond-install.json"

// Trust says how a file's hash came to be known.
type Trust string

// Trust levels.
const (
	Pinned        Trust = "pinned"                   // matched a hash Pond ships
	FirstDownload Trust = "trust-on-first-download"  // no hash was known; this is the first download's
	LocalCopy     Trust = "copied-from-local-folder" // installed with --from; hashed on copy
)

// Installed describes a model in the data directory.
type Installed struct {
	ID          string            `json:"id"` // name@revision
	Source      string            `json:"source"`
	InstalledAt time.Time         `json:"installed_at"`
	Files       []InstalledFile   `json:"files"`
	Config      embed.ModelConfig `json:"config"`
	Dir         string            `json:"dir"`
}

// InstalledFile is one installed file with the hash it was verified against.
type InstalledFile struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
	Trust  Trust  `json:"trust"`
}

// Dir is where model id (name@revision) is installed under modelsDir.
func Dir(modelsDir, id string) string { return filepath.Join(modelsDir, filepath.FromSlash(id)) }

// checkID refuses ids that would leave the models directory.
func checkID(id string) error {
	name, rev, ok := strings.Cut(id, "@")
	if !ok || name == "" || rev == "" {
		return fmt.Errorf("model: %q is not name@revision", id)
	}
	for _, part := range strings.Split(id, "/") {
		if part == "" || part == "." || part == ".." || strings.ContainsAny(part, `\`) {
			return fmt.Errorf("model: %q is not a valid model id", id)
		}
	}
	return nil
}

// Load reads the install record of model id.
func Load(modelsDir, id string) (*Installed, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	dir := Dir(modelsDir, id)
	b, err := os.ReadFile(filepath.Join(dir, InstallFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("model: %s is not installed (no %s in %s): run `pond model install`", id, InstallFile, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	var in Installed
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("model: %s: %w", filepath.Join(dir, InstallFile), err)
	}
	in.Dir = dir
	return &in, nil
}

// List returns every installed model under modelsDir.
func List(modelsDir string) ([]*Installed, error) {
	var out []*Installed
	err := filepath.WalkDir(modelsDir, func(path string, d os.DirEntry, err error) error {
		if errors.Is(err, os.ErrNotExist) {
			return filepath.SkipDir
		}
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasSuffix(d.Name(), partialSuffix) {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != InstallFile {
			return nil
		}
		rel, err := filepath.Rel(modelsDir, filepath.Dir(path))
		if err != nil {
			return err
		}
		in, err := Load(modelsDir, filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		out = append(out, in)
		return filepath.SkipDir
	})
	return out, err
}

// Problem is one file that failed verification.
type Problem struct {
	File   string `json:"file"`
	Detail string `json:"detail"`
}

// Verify re-hashes every installed file against its install record.
func (in *Installed) Verify() []Problem {
	var out []Problem
	for _, f := range in.Files {
		sum, size, err := hashFile(filepath.Join(in.Dir, f.Name))
		switch {
		case err != nil:
			out = append(out, Problem{f.Name, err.Error()})
		case size != f.Size:
			out = append(out, Problem{f.Name, fmt.Sprintf("size %d, recorded %d", size, f.Size)})
		case sum != f.SHA256:
			out = append(out, Problem{f.Name, fmt.Sprintf("sha256 %s, recorded %s", sum, f.SHA256)})
		}
	}
	if _, err := embed.LoadModelConfig(in.Dir); err != nil {
		out = append(out, Problem{embed.ConfigFile, err.Error()})
	}
	return out
}

// writeRecord writes pond-model.json and the install record into dir.
func writeRecord(dir string, in *Installed) error {
	cfg, err := json.MarshalIndent(in.Config, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, embed.ConfigFile), append(cfg, '\n'), 0o644); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	rec, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, InstallFile), append(rec, '\n'), 0o644); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return nil
}
