package sqlite

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
)

// The mirror's large values that it keeps (messages' search text, parts.variant_data of text,
// reasoning and the rarer part types) are stored packed: a value of packMin bytes or more as a
// zstd frame in a BLOB, a shorter one as the text it is, in message_rows and part_rows. The
// views messages and parts give them back under the SQL surface's names, unpacked by
// pond_unpack, so every query that worked on the plain columns still does; the full-text
// indexes read the search text unpacked too (fts.go). Per-value zstd takes a third to a half
// off these values; SQLite has no page compression of its own. (Raw records and long tool
// bodies, the largest values, are not kept here at all: records.go.)

// packMin is the shortest value worth a zstd frame (its header and the BLOB's cell overhead
// eat most of what a shorter one would save).
const packMin = 256

var (
	packer   *zstd.Encoder
	unpacker *zstd.Decoder
	packInit sync.Once
)

func codecs() (enc *zstd.Encoder, dec *zstd.Decoder) {
	packInit.Do(func() {
		// Level "fastest": the default level gains 5–10 % more on these values for twice the
		// CPU, and packing runs in the writer's transaction.
		var err error
		if packer, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0))); err != nil {
			panic(err) // only invalid options fail
		}
		if unpacker, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(uint64(maxValueBytes))); err != nil {
			panic(err)
		}
	})
	return packer, unpacker
}

// pack is the stored form of s: nil for "", s itself when short, else its zstd frame from enc.
func pack(enc *zstd.Encoder, s string) any {
	if s == "" {
		return nil
	}
	if len(s) < packMin {
		return s
	}
	return enc.EncodeAll([]byte(s), make([]byte, 0, len(s)/2))
}

// packedRows are the packed forms of a batch's large values, by row, and the search text of
// each of its messages by key (what its parts were compared with; the writer's deriver asks it
// which messages the batch holds).
type packedRows struct {
	partData, partOptions []any
	searchText            []any // each message's search text, packed
	texts                 map[[2]string]string
}

// packRows packs r's large values on every processor, before the writer's transaction: packing
// is most of the CPU of taking rows in (a catch-up of another machine's rows, a rebuild), and
// the transaction itself runs on one. A part that is its message's text, that message being in
// r, is not packed but marked derivedText (textpart.go); the writer packs it after all when
// the message turns out to be stored already.
func packRows(r *Rows) packedRows {
	p := packedRows{make([]any, len(r.Parts)), make([]any, len(r.Parts)), make([]any, len(r.Messages)), make(map[[2]string]string, len(r.Messages))}
	for _, m := range r.Messages {
		p.texts[[2]string{m.SessionID, m.MessageID}] = m.SearchText
	}
	// Messages' search texts are numbered after the parts: one queue packs both.
	n := len(r.Parts) + len(r.Messages)
	enc, _ := codecs()
	const step = 64
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), (n+step-1)/step) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(step)) - step
				if lo >= n {
					return
				}
				for j := lo; j < min(lo+step, n); j++ {
					if j >= len(r.Parts) {
						p.searchText[j-len(r.Parts)] = pack(enc, r.Messages[j-len(r.Parts)].SearchText)
						continue
					}
					part := &r.Parts[j]
					switch text := p.texts[[2]string{part.SessionID, part.MessageID}]; {
					case text != "" && isTextPart(part.VariantData, text):
						p.partData[j] = derivedText
					case LeftToLance(part.Type, "variant_data", part.VariantData):
						p.partData[j] = inLance
					default:
						p.partData[j] = pack(enc, part.VariantData)
					}
					if LeftToLance(part.Type, "options", part.Options) {
						p.partOptions[j] = inLance
					} else {
						p.partOptions[j] = pack(enc, part.Options)
					}
				}
			}
		}()
	}
	wg.Wait()
	return p
}

// unpack is pond_unpack: a packed BLOB's text, any other value as it is.
func unpack(v any) (any, error) {
	b, ok := v.([]byte)
	if !ok {
		return v, nil
	}
	_, dec := codecs()
	out, err := dec.DecodeAll(b, nil)
	if err != nil {
		return nil, fmt.Errorf("pond_unpack: %w", err)
	}
	return string(out), nil
}

// unpackedSQL is the SQL giving a packed column's value as text: a short value is stored as
// text and read as it is, without a call into Go.
func unpackedSQL(column string) string {
	return `CASE WHEN typeof(` + column + `) = 'blob' THEN pond_unpack(` + column + `) ELSE ` + column + ` END`
}

// SearchTextSQL is the SQL giving the search text of message_rows under alias as text, for a
// query that reads message_rows itself rather than the messages view.
func SearchTextSQL(alias string) string { return unpackedSQL(alias + ".search_text") }
