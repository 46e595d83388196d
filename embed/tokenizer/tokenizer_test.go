package tokenizer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testTokenizer(t *testing.T, maxTokens int) *Tokenizer {
	t.Helper()
	dir := os.Getenv("POND_TEST_MODEL_DIR")
	if dir == "" {
		t.Fatal("POND_TEST_MODEL_DIR must be set: run the tests with make test")
	}
	tok, err := Load(filepath.Join(dir, "tokenizer.json"), maxTokens)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tok.Close)
	return tok
}

// The test model's WordPiece vocabulary (bert-base-uncased): [CLS]=101, [SEP]=102, "hello"=7592,
// "world"=2088, "!"=999.
func TestEncodeWordPiece(t *testing.T) {
	tok := testTokenizer(t, 0)
	b, err := tok.Encode([]string{"Hello world!", "hello"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if b.Rows != 2 || b.Width != 5 {
		t.Fatalf("batch %dx%d, want 2x5", b.Rows, b.Width)
	}
	want := [][]int64{{101, 7592, 2088, 999, 102}, {101, 7592, 102}}
	for i, w := range want {
		got := b.RowIDs(i)
		if len(got) != len(w) {
			t.Fatalf("row %d ids %v, want %v", i, got, w)
		}
		for j := range w {
			if got[j] != w[j] {
				t.Fatalf("row %d ids %v, want %v", i, got, w)
			}
		}
	}
	if b.AttentionMask[5+3] != 0 || b.IDs[5+3] != 0 {
		t.Errorf("row 1 position 3: mask %d id %d, want padding (0, 0)", b.AttentionMask[8], b.IDs[8])
	}
}

func TestTruncationIsRecorded(t *testing.T) {
	tok := testTokenizer(t, 16)
	b, err := tok.Encode([]string{strings.Repeat("word ", 100), "short"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if b.Width != 16 || !b.Truncated[0] || b.Truncated[1] {
		t.Fatalf("width %d truncated %v, want 16 and [true false]", b.Width, b.Truncated)
	}
}

func TestEncodeEmptyBatchAndText(t *testing.T) {
	tok := testTokenizer(t, 0)
	if b, err := tok.Encode(nil, true); err != nil || b.Rows != 0 {
		t.Fatalf("empty batch: %+v, %v", b, err)
	}
	if b, err := tok.Encode([]string{""}, true); err != nil || b.Len(0) != 2 {
		t.Fatalf("empty text: %+v, %v; want [CLS] [SEP]", b, err)
	}
}

func TestLoadMissingFile(t *testing.T) {
	if _, err := Load(filepath.Join(t.TempDir(), "nope.json"), 0); err == nil {
		t.Fatal("Load of a missing file: got nil error")
	}
}
