package sqlite

import (
	"database/sql"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
	"github.com/mattn/go-sqlite3"
)

// The mirror's large JSON columns (messages.options, parts.variant_data, parts.options: an
// agent's raw record and the tool bodies, about two thirds of the mirror's bytes) are stored
// packed: a value of packMin bytes or more as a zstd frame in a BLOB, a shorter one as the text
// it is. The tables holding them are message_rows and part_rows; the views messages and parts
// give them back under the SQL surface's names, unpacked by pond_unpack, so every query that
// worked on the plain columns still does. Per-value zstd halves these values; SQLite has no
// page compression of its own.

// packMin is the shortest value worth a zstd frame (its header and the BLOB's cell overhead
// eat most of what a shorter one would save).
const packMin = 256

var (
	packer   *zstd.Encoder
	unpacker *zstd.Decoder
	packInit sync.Once
)

func codecs() (*zstd.Encoder, *zstd.Decoder) {
	packInit.Do(func() {
		var err error
		// Level "fastest": the default level gains 5–10 % more on these values for twice the
		// CPU, and packing runs in the writer's transaction.
		if packer, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0))); err != nil {
			panic(err) // only invalid options fail
		}
		if unpacker, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(uint64(maxValueBytes))); err != nil {
			panic(err)
		}
	})
	return packer, unpacker
}

// pack is the stored form of s: nil for "", s itself when short, else its zstd frame.
func pack(s string) any {
	if s == "" {
		return nil
	}
	if len(s) < packMin {
		return s
	}
	enc, _ := codecs()
	return enc.EncodeAll([]byte(s), make([]byte, 0, len(s)/2))
}

// packedRows are the packed forms of a batch's large values, by row.
type packedRows struct{ messageOptions, partData, partOptions []any }

// packRows packs r's large values on every processor, before the writer's transaction: packing
// is most of the CPU of taking rows in (a catch-up of another machine's rows, a rebuild), and
// the transaction itself runs on one.
func packRows(r *Rows) packedRows {
	p := packedRows{make([]any, len(r.Messages)), make([]any, len(r.Parts)), make([]any, len(r.Parts))}
	n := len(r.Messages) + len(r.Parts)
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
				for i := lo; i < min(lo+step, n); i++ {
					if i < len(r.Messages) {
						p.messageOptions[i] = pack(r.Messages[i].Options)
					} else {
						j := i - len(r.Messages)
						p.partData[j], p.partOptions[j] = pack(r.Parts[j].VariantData), pack(r.Parts[j].Options)
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

// unpacked is the SQL giving column's value as text.
func unpacked(column string) string {
	return `CASE WHEN typeof(` + column + `) = 'blob' THEN pond_unpack(` + column + `) ELSE ` + column + ` END`
}

// mirrorDriver is go-sqlite3 with Pond's functions, pond_unpack among them, for the writer's
// own connections: its reads go through the views too.
const mirrorDriver = "sqlite3_pond_mirror"

var registerMirror sync.Once

func registerMirrorDriver() {
	registerMirror.Do(func() {
		sql.Register(mirrorDriver, &sqlite3.SQLiteDriver{ConnectHook: registerFunctions})
	})
}
