package onnx

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pondhq/pond/embed"
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

// BenchmarkEmbed measures throughput per input length and batch size on the test model:
// messages/s and tokens/s are reported as custom metrics.
func BenchmarkEmbed(b *testing.B) {
	e := testEmbedder(b)
	for _, tokens := range []int{32, 128, 512} {
		texts := make([]string, 64)
		for i := range texts {
			texts[i] = textOfTokens(b, e, tokens, i)
		}
		for _, batch := range []int{1, 8, 32} {
			b.Run(fmt.Sprintf("tokens=%d/batch=%d", tokens, batch), func(b *testing.B) {
				e.batch = batch
				b.ResetTimer()
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
