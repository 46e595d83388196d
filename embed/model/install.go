package model

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pondhq/pond/embed"
)

// HuggingFace is the default download origin.
const HuggingFace = "https://huggingface.co"

// partialSuffix marks a model directory still being installed; files being downloaded carry
// ".part". Both survive an interruption, so the next install resumes instead of starting over.
const partialSuffix = ".partial"

// ErrChecksum is returned when a downloaded file's sha256 is not the pinned one.
var ErrChecksum = errors.New("checksum mismatch")

// Installer installs models into ModelsDir.
type Installer struct {
	ModelsDir string
	BaseURL   string       // Hugging Face or a mirror with its URL layout; empty: HuggingFace
	Client    *http.Client // nil: http.DefaultClient (which follows redirects)
	// Progress, when set, is told how far each file has come; total is -1 when unknown.
	Progress func(file string, done, total int64)
	// Check proves an installed directory loads (the CLI runs the real embedder on it); nil
	// skips the check.
	Check func(dir string) error
}

// Download fetches spec's files from the Hugging Face resolve URLs at its pinned revision,
// verifies each, checks that the model loads and installs it. An interrupted download resumes
// where it stopped; a file whose hash is wrong is deleted and the install fails.
func (i *Installer) Download(ctx context.Context, spec Spec) (*Installed, error) {
	id := spec.ID()
	if err := checkID(id); err != nil {
		return nil, err
	}
	if in, err := Load(i.ModelsDir, id); err == nil && len(in.Verify()) == 0 {
		return in, nil // already installed and intact
	}
	final := Dir(i.ModelsDir, id)
	staging := final + partialSuffix
	if err := os.MkdirAll(staging, 0o755); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	base := strings.TrimRight(i.BaseURL, "/")
	if base == "" {
		base = HuggingFace
	}
	in := &Installed{ID: id, Source: base + "/" + spec.Name, Config: spec.Config}
	in.Config.Source = "huggingface:" + id
	for _, f := range spec.Files {
		url := fmt.Sprintf("%s/%s/resolve/%s/%s", base, spec.Name, spec.Revision, f.Path)
		got, err := i.fetchVerified(ctx, url, staging, f)
		if err != nil {
			return nil, err
		}
		in.Files = append(in.Files, got)
	}
	return i.finish(staging, final, in)
}

// fetchVerified downloads one file into dir (resuming dir/NAME.part) and checks its hash.
func (i *Installer) fetchVerified(ctx context.Context, url, dir string, f File) (InstalledFile, error) {
	dest := filepath.Join(dir, f.Name)
	part := dest + ".part"
	if _, err := os.Stat(dest); err == nil {
		// Finished by an earlier, interrupted install: keep it if it still verifies.
		if got, err := verified(dest, f); err == nil {
			return got, nil
		}
		os.Remove(dest)
	}
	if err := i.fetch(ctx, url, part, f.Name); err != nil {
		return InstalledFile{}, err
	}
	got, err := verified(part, f)
	if err != nil {
		os.Remove(part) // never resume from a corrupt file
		return InstalledFile{}, fmt.Errorf("model: %s from %s: %w; the partial download was deleted, run the install again", f.Name, url, err)
	}
	if err := os.Rename(part, dest); err != nil {
		return InstalledFile{}, fmt.Errorf("model: %w", err)
	}
	return got, nil
}

// verified hashes path and compares it with f's pinned hash and size, if any.
func verified(path string, f File) (InstalledFile, error) {
	sum, size, err := hashFile(path)
	if err != nil {
		return InstalledFile{}, err
	}
	got := InstalledFile{Name: f.Name, SHA256: sum, Size: size, Trust: FirstDownload}
	if f.Size > 0 && size != f.Size {
		return got, fmt.Errorf("%w: %d bytes, want %d", ErrChecksum, size, f.Size)
	}
	if f.SHA256 != "" {
		if sum != f.SHA256 {
			return got, fmt.Errorf("%w: sha256 %s, want %s", ErrChecksum, sum, f.SHA256)
		}
		got.Trust = Pinned
	}
	return got, nil
}

// fetch GETs url into part, resuming with a Range request when part already holds a prefix.
func (i *Installer) fetch(ctx context.Context, url, part, name string) error {
	var have int64
	if st, err := os.Stat(part); err == nil {
		have = st.Size()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	client := i.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("model: download %s: %w", name, err)
	}
	defer resp.Body.Close()
	flags := os.O_CREATE | os.O_WRONLY
	switch {
	case resp.StatusCode == http.StatusOK:
		flags |= os.O_TRUNC // the server ignored the range: start over
		have = 0
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		var start int64
		if _, err := fmt.Sscanf(resp.Header.Get("Content-Range"), "bytes %d-", &start); err != nil || start != have {
			return fmt.Errorf("model: download %s: server resumed at %q, want byte %d", name, resp.Header.Get("Content-Range"), have)
		}
		flags |= os.O_APPEND
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		return nil // the partial file is already whole; its hash decides
	default:
		return fmt.Errorf("model: download %s: %s returned %s", name, url, resp.Status)
	}
	out, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	total := int64(-1)
	if resp.ContentLength >= 0 {
		total = have + resp.ContentLength
	}
	w := io.Writer(out)
	if i.Progress != nil {
		w = &progressWriter{w: out, name: name, done: have, total: total, report: i.Progress}
		i.Progress(name, have, total)
	}
	_, err = io.Copy(w, resp.Body)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("model: download %s (run the install again to resume): %w", name, err)
	}
	return nil
}

type progressWriter struct {
	w           io.Writer
	name        string
	done, total int64
	last        time.Time
	report      func(string, int64, int64)
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.done += int64(n)
	if time.Since(p.last) > 100*time.Millisecond || p.done == p.total {
		p.last = time.Now()
		p.report(p.name, p.done, p.total)
	}
	return n, err
}

// finish writes the records, checks that the model loads and moves staging into place.
func (i *Installer) finish(staging, final string, in *Installed) (*Installed, error) {
	in.InstalledAt = time.Now().UTC()
	if err := writeRecord(staging, in); err != nil {
		return nil, err
	}
	if i.Check != nil {
		if err := i.Check(staging); err != nil {
			return nil, fmt.Errorf("model: %s does not load: %w", in.ID, err)
		}
	}
	if err := os.RemoveAll(final); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if err := os.Rename(staging, final); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	in.Dir = final
	return in, nil
}

// LocalRevision prefixes the revision of a model installed from a folder.
const LocalRevision = "local-"

// InstallFrom installs the model in src (model.onnx, tokenizer.json, and pond-model.json or the
// Hugging Face config files) as name@local-<hash>, copying and hashing each file, and checks that
// it loads. name may be empty when src has a pond-model.json.
func (i *Installer) InstallFrom(ctx context.Context, src, name string) (*Installed, error) {
	for _, f := range []string{"model.onnx", "tokenizer.json"} {
		if _, err := os.Stat(filepath.Join(src, f)); err != nil {
			return nil, fmt.Errorf("model: %s has no %s: a model folder holds model.onnx, tokenizer.json and pond-model.json or config.json", src, f)
		}
	}
	cfg, err := configFrom(src, name)
	if err != nil {
		return nil, err
	}
	sum, _, err := hashFile(filepath.Join(src, "model.onnx"))
	if err != nil {
		return nil, err
	}
	id := cfg.Name + "@" + LocalRevision + sum[:12]
	if err := checkID(id); err != nil {
		return nil, err
	}
	final := Dir(i.ModelsDir, id)
	staging := final + partialSuffix
	os.RemoveAll(staging)
	if err := os.MkdirAll(staging, 0o755); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	abs, _ := filepath.Abs(src)
	cfg.Source = "local:" + abs
	in := &Installed{ID: id, Source: abs, Config: cfg}
	for _, f := range []string{"model.onnx", "tokenizer.json", "config.json", "tokenizer_config.json", "special_tokens_map.json"} {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		from := filepath.Join(src, f)
		if _, err := os.Stat(from); errors.Is(err, os.ErrNotExist) {
			continue
		}
		sum, size, err := copyHashed(from, filepath.Join(staging, f))
		if err != nil {
			return nil, err
		}
		in.Files = append(in.Files, InstalledFile{Name: f, SHA256: sum, Size: size, Trust: LocalCopy})
	}
	return i.finish(staging, final, in)
}

// configFrom is src's pond-model.json, or one built from its Hugging Face config files.
func configFrom(src, name string) (embed.ModelConfig, error) {
	if _, err := os.Stat(filepath.Join(src, embed.ConfigFile)); err == nil {
		cfg, err := embed.LoadModelConfig(src)
		if err == nil && name != "" {
			cfg.Name = name
		}
		return cfg, err
	}
	var hf struct {
		NameOrPath  string `json:"_name_or_path"`
		HiddenSize  int    `json:"hidden_size"`
		MaxPosition int    `json:"max_position_embeddings"`
	}
	b, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		return embed.ModelConfig{}, fmt.Errorf("model: %s has neither %s nor config.json: %w", src, embed.ConfigFile, err)
	}
	if err := json.Unmarshal(b, &hf); err != nil {
		return embed.ModelConfig{}, fmt.Errorf("model: %s: %w", filepath.Join(src, "config.json"), err)
	}
	if name == "" {
		name = hf.NameOrPath
	}
	if name == "" {
		return embed.ModelConfig{}, errors.New("model: the folder does not name its model: pass --name")
	}
	cfg := embed.ModelConfig{Name: name, Dimensions: hf.HiddenSize, MaxTokens: min(hf.MaxPosition, 512), Pooling: "mean", Normalize: true}
	// sentence-transformers records the prompts a model was trained with; e5 models without
	// that file use "query: " and "passage: " (their model card's instructions).
	var st struct {
		Prompts map[string]string `json:"prompts"`
	}
	if b, err := os.ReadFile(filepath.Join(src, "config_sentence_transformers.json")); err == nil && json.Unmarshal(b, &st) == nil && len(st.Prompts) > 0 {
		cfg.QueryPrefix = st.Prompts["query"]
		cfg.PassagePrefix = st.Prompts["passage"]
		if cfg.PassagePrefix == "" {
			cfg.PassagePrefix = st.Prompts["document"]
		}
	} else if strings.Contains(strings.ToLower(name), "e5") {
		cfg.QueryPrefix, cfg.PassagePrefix = "query: ", "passage: "
	}
	if cfg.Dimensions <= 0 || cfg.MaxTokens <= 0 {
		return cfg, fmt.Errorf("model: %s lacks hidden_size or max_position_embeddings", filepath.Join(src, "config.json"))
	}
	return cfg, nil
}

func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, fmt.Errorf("model: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("model: hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

func copyHashed(from, to string) (string, int64, error) {
	in, err := os.Open(from)
	if err != nil {
		return "", 0, fmt.Errorf("model: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return "", 0, fmt.Errorf("model: %w", err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", 0, fmt.Errorf("model: copy %s: %w", from, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
