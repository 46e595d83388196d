// Package tokenizer runs Hugging Face tokenizers (`tokenizer.json`: SentencePiece-Unigram,
// WordPiece, BPE) through the `tokenizers` crate compiled into Pond's native library, so token
// ids match the Python `tokenizers` package exactly.
package tokenizer

/*
#cgo LDFLAGS: -l:libpond_native.a -lstdc++ -lm -ldl -lpthread -lrt -lgcc_s
#include <stdlib.h>
#include "pond_native.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// Version is the version of the Hugging Face tokenizers crate in the native library.
const Version = "0.22.2"

// Tokenizer encodes text into model inputs. It is safe for concurrent use.
type Tokenizer struct {
	mu sync.RWMutex // guards p against use after Close
	p  *C.PondTokenizer
}

// Load reads a tokenizer.json. maxTokens > 0 cuts every input at that many tokens, special
// tokens included.
func Load(path string, maxTokens int) (*Tokenizer, error) {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	t := &Tokenizer{}
	if err := nativeErr(C.pond_tokenizer_load(cp, C.size_t(maxTokens), &t.p)); err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	return t, nil
}

// Close releases the tokenizer.
func (t *Tokenizer) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.p != nil {
		C.pond_tokenizer_free(t.p)
		t.p = nil
	}
}

// Batch is a tokenized batch padded to its longest row: Rows × Width int64 matrices, row-major,
// as ONNX Runtime takes them.
type Batch struct {
	Rows, Width   int
	IDs           []int64
	AttentionMask []int64
	TypeIDs       []int64
	Truncated     []bool // the input was cut at the tokenizer's maximum
}

// Len is the number of real (unpadded) tokens of row i.
func (b Batch) Len(i int) int {
	n := 0
	for _, m := range b.AttentionMask[i*b.Width : (i+1)*b.Width] {
		n += int(m)
	}
	return n
}

// RowIDs are row i's token ids without padding.
func (b Batch) RowIDs(i int) []int64 { return b.IDs[i*b.Width : i*b.Width+b.Len(i)] }

// Encode tokenizes texts as one batch; addSpecial adds the model's special tokens ([CLS] …
// [SEP], <s> … </s>).
func (t *Tokenizer) Encode(texts []string, addSpecial bool) (Batch, error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.p == nil {
		return Batch{}, errors.New("tokenizer: closed")
	}
	var size int
	for _, s := range texts {
		size += len(s)
	}
	// One buffer and an offsets table: Go memory without pointers may be passed to C.
	data := make([]byte, 0, size+1)
	offsets := make([]C.size_t, 0, len(texts)+1)
	offsets = append(offsets, 0)
	for _, s := range texts {
		data = append(data, s...)
		offsets = append(offsets, C.size_t(len(data)))
	}
	data = append(data, 0) // never an empty slice, so &data[0] is valid
	var enc *C.PondEncoding
	err := nativeErr(C.pond_tokenizer_encode(t.p, (*C.uint8_t)(unsafe.Pointer(&data[0])), C.size_t(len(data)-1),
		&offsets[0], C.size_t(len(texts)), C.bool(addSpecial), &enc))
	if err != nil {
		return Batch{}, fmt.Errorf("tokenizer: %w", err)
	}
	defer C.pond_encoding_free(enc)
	rows, width := int(enc.rows), int(enc.width)
	b := Batch{Rows: rows, Width: width, Truncated: make([]bool, rows)}
	cells := rows * width
	if cells > 0 {
		b.IDs = append([]int64(nil), unsafe.Slice((*int64)(unsafe.Pointer(enc.ids)), cells)...)
		b.AttentionMask = append([]int64(nil), unsafe.Slice((*int64)(unsafe.Pointer(enc.attention_mask)), cells)...)
		b.TypeIDs = append([]int64(nil), unsafe.Slice((*int64)(unsafe.Pointer(enc.type_ids)), cells)...)
	}
	if rows > 0 {
		for i, v := range unsafe.Slice((*uint8)(unsafe.Pointer(enc.truncated)), rows) {
			b.Truncated[i] = v != 0
		}
	}
	return b, nil
}

func nativeErr(msg *C.char) error {
	if msg == nil {
		return nil
	}
	defer C.pond_string_free(msg)
	return errors.New(C.GoString(msg))
}
