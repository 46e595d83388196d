package onnx

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/pondhq/pond/embed"
)

// testEmbedder loads the registry-packaged test model that `make setup` installs; `make test`
// exports its location and the ONNX Runtime library's.
func testEmbedder(t testing.TB) *Embedder {
	t.Helper()
	lib, dir := os.Getenv("POND_ONNXRUNTIME_LIB"), os.Getenv("POND_TEST_MODEL_DIR")
	if lib == "" || dir == "" {
		t.Fatal("POND_ONNXRUNTIME_LIB and POND_TEST_MODEL_DIR must be set: run the tests with make test")
	}
	v, err := Init(lib)
	if err != nil {
		t.Fatal(err)
	}
	if v == "" {
		t.Fatal("ONNX Runtime reports no version")
	}
	e, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

func cosine(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot
}

func TestParaphraseScoresAboveUnrelated(t *testing.T) {
	e := testEmbedder(t)
	texts := []string{
		"How do I fix the failing database migration?",
		"The schema migration of the database keeps failing; how can I repair it?",
		"My cat likes to sleep in the sun all afternoon.",
	}
	vecs, err := e.Embed(context.Background(), texts, embed.Passage)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if len(v) != e.Dimensions() {
			t.Fatalf("vector %d has %d dims, want %d", i, len(v), e.Dimensions())
		}
		var ss float64
		for _, x := range v {
			ss += float64(x) * float64(x)
		}
		if math.Abs(ss-1) > 1e-4 {
			t.Errorf("vector %d has norm² %v, want 1", i, ss)
		}
	}
	para, unrelated := cosine(vecs[0], vecs[1]), cosine(vecs[0], vecs[2])
	if para <= unrelated {
		t.Fatalf("paraphrase cosine %.3f <= unrelated cosine %.3f", para, unrelated)
	}
}

func TestEmbedKeepsInputOrderAcrossBatches(t *testing.T) {
	e := testEmbedder(t)
	// More than one batch, lengths deliberately unsorted.
	var texts []string
	for i := range 70 {
		s := "note"
		for range i % 9 {
			s += " about the build"
		}
		texts = append(texts, s)
	}
	all, err := e.Embed(context.Background(), texts, embed.Query)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 33, 69} {
		one, err := e.Embed(context.Background(), texts[i:i+1], embed.Query)
		if err != nil {
			t.Fatal(err)
		}
		// The int8 model quantises activations per batch, padding included, so a padded batch
		// and a lone text differ slightly; a mix-up of rows would score far lower.
		if c := cosine(all[i], one[0]); c < 0.99 {
			t.Errorf("text %d: batched and single vectors differ (cosine %.6f)", i, c)
		}
	}
}
