// Package onnx runs embedding models on ONNX Runtime through github.com/yalue/onnxruntime_go:
// tokenize, run the transformer, mean-pool over the attention mask, L2-normalise.
package onnx

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/pondhq/pond/embed"
	"github.com/pondhq/pond/embed/tokenizer"
)

var (
	initOnce sync.Once
	initErr  error
	initLib  string
)

// Init loads the ONNX Runtime shared library at libPath and starts its environment. ONNX
// Runtime allows one environment per process, so only the first call's path counts; later calls
// with another path fail.
func Init(libPath string) (version string, err error) {
	initOnce.Do(func() {
		initLib = libPath
		ort.SetSharedLibraryPath(libPath)
		if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
			initErr = fmt.Errorf("onnx: load ONNX Runtime from %s: %w", libPath, err)
		}
	})
	if initErr != nil {
		return "", initErr
	}
	if libPath != initLib {
		return "", fmt.Errorf("onnx: ONNX Runtime already loaded from %s", initLib)
	}
	return ort.GetVersion(), nil
}

// BatchSize is how many texts run through the model at once unless the model's config says
// otherwise (embed.ModelConfig.BatchSize).
const BatchSize = 32

// Embedder runs one model. It is safe for concurrent use; runs are serialised because ONNX
// Runtime already spreads one run over every core.
type Embedder struct {
	cfg     embed.ModelConfig
	tok     *tokenizer.Tokenizer
	inputs  []string // model input names, in order
	batch   int      // rows per run
	output  string
	runMu   sync.Mutex
	session *ort.DynamicAdvancedSession
}

// Open loads the model in dir (model.onnx, tokenizer.json, pond-model.json). Init must have
// succeeded first.
func Open(dir string) (*Embedder, error) {
	if !ort.IsInitialized() {
		return nil, errors.New("onnx: ONNX Runtime is not loaded (call Init)")
	}
	cfg, err := embed.LoadModelConfig(dir)
	if err != nil {
		return nil, err
	}
	modelPath := filepath.Join(dir, "model.onnx")
	ins, outs, err := ort.GetInputOutputInfo(modelPath)
	if err != nil {
		return nil, fmt.Errorf("onnx: inspect %s: %w", modelPath, err)
	}
	e := &Embedder{cfg: cfg, batch: cfg.BatchSize}
	switch {
	case e.batch > 0:
	case cfg.Variant == "int8":
		// Dynamically quantised models scale activations over the whole run, padding and
		// neighbours included: batched, a text's vector drifts (cosine ~0.996 with its lone
		// vector). One text per run keeps vectors reproducible.
		e.batch = 1
	default:
		e.batch = BatchSize
	}
	for _, in := range ins {
		switch in.Name {
		case "input_ids", "attention_mask", "token_type_ids":
			e.inputs = append(e.inputs, in.Name)
		default:
			return nil, fmt.Errorf("onnx: model %s has an unexpected input %q", cfg.Name, in.Name)
		}
	}
	if !slices.Contains(e.inputs, "input_ids") || !slices.Contains(e.inputs, "attention_mask") {
		return nil, fmt.Errorf("onnx: model %s lacks input_ids or attention_mask", cfg.Name)
	}
	for _, o := range outs {
		if o.Name == "last_hidden_state" || e.output == "" {
			e.output = o.Name
		}
	}
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("onnx: session options: %w", err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(runtime.NumCPU()); err != nil {
		return nil, fmt.Errorf("onnx: threads: %w", err)
	}
	e.session, err = ort.NewDynamicAdvancedSession(modelPath, e.inputs, []string{e.output}, opts)
	if err != nil {
		return nil, fmt.Errorf("onnx: load %s: %w", modelPath, err)
	}
	e.tok, err = tokenizer.Load(filepath.Join(dir, "tokenizer.json"), cfg.MaxTokens)
	if err != nil {
		e.session.Destroy()
		return nil, err
	}
	return e, nil
}

// Close releases the model.
func (e *Embedder) Close() {
	e.runMu.Lock()
	defer e.runMu.Unlock()
	if e.session != nil {
		e.session.Destroy()
		e.session = nil
	}
	e.tok.Close()
}

// Dimensions is the length of each vector.
func (e *Embedder) Dimensions() int { return e.cfg.Dimensions }

// Model names the model and its variant, e.g. "intfloat/e5-small-v2@int8".
func (e *Embedder) Model() string { return e.cfg.ID() }

// Config is the model's configuration.
func (e *Embedder) Config() embed.ModelConfig { return e.cfg }

// Embed returns one unit vector per text, in order. All texts are tokenized at once (inputs are
// cut at the model's max_tokens; EmbedTruncated reports which), then run in batches (BatchSize
// rows, or one for int8 models) sorted by token length, so that a batch pads little.
func (e *Embedder) Embed(ctx context.Context, texts []string, kind embed.Kind) ([][]float32, error) {
	vecs, _, err := e.EmbedTruncated(ctx, texts, kind)
	return vecs, err
}

// EmbedTruncated is Embed that also reports which texts were cut at max_tokens.
func (e *Embedder) EmbedTruncated(ctx context.Context, texts []string, kind embed.Kind) ([][]float32, []bool, error) {
	if len(texts) == 0 {
		return nil, nil, nil
	}
	prefix := e.cfg.Prefix(kind)
	in := make([]string, len(texts))
	for i, t := range texts {
		in[i] = prefix + t
	}
	enc, err := e.tok.Encode(in, true)
	if err != nil {
		return nil, nil, err
	}
	lens := make([]int, enc.Rows)
	order := make([]int, enc.Rows)
	for i := range order {
		order[i], lens[i] = i, enc.Len(i)
	}
	slices.SortStableFunc(order, func(a, b int) int { return lens[a] - lens[b] })
	out := make([][]float32, len(texts))
	for start := 0; start < len(order); start += e.batch {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		idx := order[start:min(start+e.batch, len(order))]
		vecs, err := e.runBatch(enc, idx, lens[idx[len(idx)-1]])
		if err != nil {
			return nil, nil, err
		}
		for j, i := range idx {
			out[i] = vecs[j]
		}
	}
	return out, enc.Truncated, nil
}

// runBatch runs rows idx of enc, cut to width columns (their longest length: sorted input).
func (e *Embedder) runBatch(enc tokenizer.Batch, idx []int, width int) ([][]float32, error) {
	rows := len(idx)
	cols := map[string][]int64{"input_ids": enc.IDs, "attention_mask": enc.AttentionMask, "token_type_ids": enc.TypeIDs}
	data := map[string][]int64{}
	for name, src := range cols {
		dst := make([]int64, rows*width)
		for j, i := range idx {
			copy(dst[j*width:(j+1)*width], src[i*enc.Width:i*enc.Width+width])
		}
		data[name] = dst
	}
	shape := ort.NewShape(int64(rows), int64(width))
	inputs := make([]ort.Value, len(e.inputs))
	defer func() {
		for _, v := range inputs {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	var err error
	for i, name := range e.inputs {
		if inputs[i], err = ort.NewTensor(shape, data[name]); err != nil {
			return nil, fmt.Errorf("onnx: input %s: %w", name, err)
		}
	}
	outputs := []ort.Value{nil}
	e.runMu.Lock()
	if e.session == nil {
		e.runMu.Unlock()
		return nil, errors.New("onnx: embedder is closed")
	}
	err = e.session.Run(inputs, outputs)
	e.runMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("onnx: run %s: %w", e.cfg.Name, err)
	}
	defer outputs[0].Destroy()
	hidden, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, fmt.Errorf("onnx: output %s is %T, want a float32 tensor", e.output, outputs[0])
	}
	s := hidden.GetShape()
	if len(s) != 3 || s[0] != int64(rows) || s[1] != int64(width) {
		return nil, fmt.Errorf("onnx: output shape %v, want [%d %d dim]", s, rows, width)
	}
	dim := int(s[2])
	if dim != e.cfg.Dimensions {
		return nil, fmt.Errorf("onnx: model gives %d dimensions, its config says %d", dim, e.cfg.Dimensions)
	}
	return meanPool(hidden.GetData(), data["attention_mask"], rows, width, dim, e.cfg.Normalize), nil
}

// meanPool averages each row's token vectors over its attention mask, then L2-normalises.
func meanPool(hidden []float32, mask []int64, rows, width, dim int, normalize bool) [][]float32 {
	out := make([][]float32, rows)
	for r := range rows {
		v := make([]float32, dim)
		var n float32
		for t := range width {
			if mask[r*width+t] == 0 {
				continue
			}
			n++
			tok := hidden[(r*width+t)*dim : (r*width+t+1)*dim]
			for k, x := range tok {
				v[k] += x
			}
		}
		if n > 0 {
			for k := range v {
				v[k] /= n
			}
		}
		if normalize {
			var ss float64
			for _, x := range v {
				ss += float64(x) * float64(x)
			}
			if ss > 0 {
				inv := float32(1 / math.Sqrt(ss))
				for k := range v {
					v[k] *= inv
				}
			}
		}
		out[r] = v
	}
	return out
}
