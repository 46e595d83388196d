package onnx

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/pondhq/pond/embed"
	"github.com/pondhq/pond/internal/procstat"
)

// textOfTokens builds a passage that the model's tokenizer turns into exactly n tokens, prefix
// and special tokens included.
func textOfTokens(b *testing.B, e *Embedder, n int, seed int) string {
	b.Helper()
	words := strings.Fields("the build failed because the cache was stale so we cleared it and ran the tests again with more logging enabled")
	var parts []string
	for i := 0; ; i++ {
		parts = append(parts, words[(i+seed)%len(words)])
		enc, err := e.tok.Encode([]string{e.cfg.PassagePrefix + strings.Join(parts, " ")}, true)
		if err != nil {
			b.Fatal(err)
		}
		if enc.Len(0) >= n {
			return strings.Join(parts, " ")
		}
	}
}

// BenchmarkEmbed measures throughput per input length on the test model, as messages/s and
// tokens/s, with the model's own batching (one text per run for int8) and with batches of 32
// sorted by length (faster, but a text's int8 vector then depends on its neighbours).
func BenchmarkEmbed(b *testing.B) {
	e := testEmbedder(b)
	own := e.batch
	for _, tokens := range []int{32, 128, 512} {
		texts := make([]string, 32)
		for i := range texts {
			texts[i] = textOfTokens(b, e, tokens, i)
		}
		for _, batch := range []int{own, BatchSize} {
			name := fmt.Sprintf("tokens=%d/batch=%d", tokens, batch)
			if batch == own {
				name += "(default)"
			} else if own == BatchSize {
				continue
			}
			b.Run(name, func(b *testing.B) {
				e.batch = batch
				defer func() { e.batch = own }()
				for range b.N {
					if _, err := e.Embed(context.Background(), texts, embed.Passage); err != nil {
						b.Fatal(err)
					}
				}
				msgs := float64(b.N*len(texts)) / b.Elapsed().Seconds()
				b.ReportMetric(msgs, "msgs/s")
				b.ReportMetric(msgs*float64(tokens), "tokens/s")
			})
		}
	}
}

// BenchmarkPeakRSS loads the model and embeds 512-token inputs, the worst case for memory, and
// reports the process's peak resident set. Run it alone (-bench PeakRSS) so nothing else
// inflates the peak.
func BenchmarkPeakRSS(b *testing.B) {
	e := testEmbedder(b)
	texts := make([]string, BatchSize)
	for i := range texts {
		texts[i] = textOfTokens(b, e, 512, i)
	}
	for range b.N {
		if _, err := e.Embed(context.Background(), texts, embed.Passage); err != nil {
			b.Fatal(err)
		}
	}
	rss := procstat.PeakRSSMiB()
	if rss == 0 {
		b.Skip("this system does not report the peak resident set")
	}
	b.ReportMetric(rss, "peak-RSS-MiB")
}

// BenchmarkMatMulPeak measures the matrix-multiply rate ONNX Runtime reaches on this machine
// with all cores, for the shape of the model's feed-forward layer over a 512-token input
// ([512 x 384] x [384 x 1536]), in fp32 and int8 (MatMulInteger, as dynamic quantisation runs
// it): the ceiling to compare the embedder's FLOPs/s with.
func BenchmarkMatMulPeak(b *testing.B) {
	testEmbedder(b) // initialises ONNX Runtime
	const m, k, n = 512, 384, 1536
	opts, err := ort.NewSessionOptions()
	if err != nil {
		b.Fatal(err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(runtime.NumCPU()); err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, file string, a, w ort.Value) {
		s, err := ort.NewDynamicAdvancedSession(filepath.Join("testdata", file), []string{"A", "B"}, []string{"Y"}, opts)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Destroy()
		b.ResetTimer()
		for range b.N {
			out := []ort.Value{nil}
			if err := s.Run([]ort.Value{a, w}, out); err != nil {
				b.Fatal(err)
			}
			out[0].Destroy()
		}
		b.ReportMetric(2*m*k*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
	b.Run("fp32", func(b *testing.B) {
		a, _ := ort.NewTensor(ort.NewShape(m, k), make([]float32, m*k))
		w, _ := ort.NewTensor(ort.NewShape(k, n), make([]float32, k*n))
		defer a.Destroy()
		defer w.Destroy()
		fill(a.GetData(), w.GetData())
		run(b, "matmul_fp32.onnx", a, w)
	})
	b.Run("int8", func(b *testing.B) {
		a, _ := ort.NewTensor(ort.NewShape(m, k), make([]uint8, m*k))
		w, _ := ort.NewTensor(ort.NewShape(k, n), make([]int8, k*n))
		defer a.Destroy()
		defer w.Destroy()
		for i := range a.GetData() {
			a.GetData()[i] = uint8(i * 7)
		}
		for i := range w.GetData() {
			w.GetData()[i] = int8(i*13) / 2
		}
		run(b, "matmul_int8.onnx", a, w)
	})
}

func fill(xs ...[]float32) {
	for _, x := range xs {
		for i := range x {
			x[i] = float32(i%17) / 17
		}
	}
}
