package sqlite

import (
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
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
//
// The raw records are packed with a dictionary. Each record repeats its agent's envelope (keys,
// ids, version, working directory, usage counters) that a frame of its own cannot share with
// the record before it; a dictionary holds those once. It is trained on the repository's
// fixtures, files the agents' own code wrote (packdict/train.go), never on a user's archive,
// so it holds no one's text and an erase never has to look inside it. A frame names its
// dictionary's id in its header; every dictionary ever shipped stays in packdict/ so the frames
// written with it keep reading, and a frame without one (layout 2) reads as before.

// packMin is the shortest value worth a zstd frame (its header and the BLOB's cell overhead
// eat most of what a shorter one would save).
const packMin = 256

// recordDict is the dictionary new raw records (messages.options) are packed with. A retrained
// dictionary gets a new file and id beside the old ones, and this name changes.
const recordDict = "packdict/records-1.zdict"

//go:embed packdict/*.zdict
var dictFiles embed.FS

var (
	packer       *zstd.Encoder // tool bodies, parts' options
	recordPacker *zstd.Encoder // raw records, with recordDict
	unpacker     *zstd.Decoder // any frame, with every dictionary in packdict/
	packInit     sync.Once
)

func codecs() (records, other *zstd.Encoder, dec *zstd.Decoder) {
	packInit.Do(func() {
		names, err := fs.Glob(dictFiles, "packdict/*.zdict")
		if err != nil {
			panic(err)
		}
		var dicts [][]byte
		var record []byte
		for _, n := range names {
			d, err := dictFiles.ReadFile(n)
			if err != nil {
				panic(err)
			}
			dicts = append(dicts, d)
			if n == recordDict {
				record = d
			}
		}
		if record == nil {
			panic("pond: " + recordDict + " is not embedded") // TestShippedDictionariesNeverChange catches it
		}
		// Level "fastest": the default level gains 5–10 % more on these values for twice the
		// CPU, and packing runs in the writer's transaction.
		opts := []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0))}
		if packer, err = zstd.NewWriter(nil, opts...); err != nil {
			panic(err) // only invalid options fail
		}
		// A dictionary sends EncodeAll through the encoder's windowed path, whose history
		// buffers are sized by the window (8 MiB by default): 19 MB held for two encoders. Raw
		// records are kilobytes to tens of kilobytes; a 256 KiB window compresses them to the
		// same ratio (measured on 20,000 of benchgen's largest) and holds 4 MB.
		recordOpts := append(opts, zstd.WithEncoderDict(record), zstd.WithWindowSize(256<<10))
		if recordPacker, err = zstd.NewWriter(nil, recordOpts...); err != nil {
			panic(err) // or a dictionary that is not one, which the tests catch
		}
		if unpacker, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(uint64(maxValueBytes)), zstd.WithDecoderDicts(dicts...)); err != nil {
			panic(err)
		}
	})
	return recordPacker, packer, unpacker
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
	messageOptions, partData, partOptions []any
	texts                                 map[[2]string]string
}

// packRows packs r's large values on every processor, before the writer's transaction: packing
// is most of the CPU of taking rows in (a catch-up of another machine's rows, a rebuild), and
// the transaction itself runs on one. A part that is its message's text, that message being in
// r, is not packed but marked derivedText (textpart.go); the writer packs it after all when
// the message turns out to be stored already.
func packRows(r *Rows) packedRows {
	p := packedRows{make([]any, len(r.Messages)), make([]any, len(r.Parts)), make([]any, len(r.Parts)), make(map[[2]string]string, len(r.Messages))}
	for _, m := range r.Messages {
		p.texts[[2]string{m.SessionID, m.MessageID}] = m.SearchText
	}
	n := len(r.Messages) + len(r.Parts)
	records, other, _ := codecs()
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
						p.messageOptions[i] = pack(records, r.Messages[i].Options)
					} else {
						j := i - len(r.Messages)
						part := &r.Parts[j]
						if text := p.texts[[2]string{part.SessionID, part.MessageID}]; text != "" && isTextPart(part.VariantData, text) {
							p.partData[j] = derivedText
						} else {
							p.partData[j] = pack(other, part.VariantData)
						}
						p.partOptions[j] = pack(other, part.Options)
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
	_, _, dec := codecs()
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
