package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// referenceCase is one text of ../testdata/tokens.json: the ids the Python tokenizers package
// (PyPI, same version as the crate) gives, written by ../testdata/make_reference.py.
type referenceCase struct {
	Text      string  `json:"text"`
	IDs       []int64 `json:"ids"`
	Truncated bool    `json:"truncated"`
}

func loadReference(t *testing.T) map[string][]referenceCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string]json.RawMessage
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	out := map[string][]referenceCase{}
	for _, name := range []string{"wordpiece", "unigram"} {
		var cases []referenceCase
		if err := json.Unmarshal(ref[name], &cases); err != nil {
			t.Fatal(err)
		}
		if len(cases) < 50 {
			t.Fatalf("%s: %d reference cases, want at least 50", name, len(cases))
		}
		out[name] = cases
	}
	return out
}

// TestParityWithPythonTokenizers compares token ids exactly with the Python package's, for a
// WordPiece tokenizer (the test model's) and a SentencePiece-Unigram one with XLM-RoBERTa's
// pipeline, on English, German, Russian, Chinese, Japanese, Korean, Arabic, code, emoji and
// inputs long enough to be cut at 512 tokens. Texts are encoded in one padded batch, as the
// embedder does, and each row must still equal its lone encoding.
func TestParityWithPythonTokenizers(t *testing.T) {
	ref := loadReference(t)
	files := map[string]string{
		"wordpiece": filepath.Join(os.Getenv("POND_TEST_MODEL_DIR"), "tokenizer.json"),
		"unigram":   filepath.Join("..", "testdata", "unigram-tokenizer.json"),
	}
	if os.Getenv("POND_TEST_MODEL_DIR") == "" {
		t.Fatal("POND_TEST_MODEL_DIR must be set: run the tests with make test")
	}
	for name, cases := range ref {
		t.Run(name, func(t *testing.T) {
			tok, err := Load(files[name], 512)
			if err != nil {
				t.Fatal(err)
			}
			defer tok.Close()
			texts := make([]string, len(cases))
			for i, c := range cases {
				texts[i] = c.Text
			}
			b, err := tok.Encode(texts, true)
			if err != nil {
				t.Fatal(err)
			}
			if b.Rows != len(cases) {
				t.Fatalf("got %d rows, want %d", b.Rows, len(cases))
			}
			truncated := 0
			for i, c := range cases {
				if got := b.RowIDs(i); !equalIDs(got, c.IDs) {
					t.Errorf("text %d %.40q:\n got  %v\n want %v", i, c.Text, head(got), head(c.IDs))
				}
				if b.Truncated[i] != c.Truncated {
					t.Errorf("text %d %.40q: truncated %v, want %v", i, c.Text, b.Truncated[i], c.Truncated)
				}
				if c.Truncated {
					truncated++
				}
			}
			if truncated == 0 {
				t.Error("no reference case was cut at 512 tokens; the long inputs are missing")
			}
		})
	}
}

func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func head(ids []int64) []int64 {
	if len(ids) > 24 {
		return ids[:24]
	}
	return ids
}
