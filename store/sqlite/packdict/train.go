//go:build ignore

// Train writes a zstd dictionary for the mirror's raw records (messages.options) from the
// records of one or more mirrors:
//
//	go run ./store/sqlite/packdict/train.go -n 2 MIRROR.db...
//
// writes store/sqlite/packdict/records-2.zdict, with id dictID(2). Train it on archives of the
// repository's fixtures (files the agents' own code wrote; docs/benchmarks.md has the recipe),
// never on a real user's archive: the dictionary is compiled into every binary, and whatever
// text it learns goes with it. It never overwrites a dictionary: frames written with one name
// its id, so a shipped dictionary must stay as it is for as long as they may exist.
package main

import (
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/dict"
	"github.com/klauspost/compress/zstd"
	_ "github.com/mattn/go-sqlite3"
)

// decoder reads frames packed without a dictionary or with any in dir.
func decoder(dir string) *zstd.Decoder {
	names, err := filepath.Glob(filepath.Join(dir, "*.zdict"))
	if err != nil {
		log.Fatal(err)
	}
	var dicts [][]byte
	for _, n := range names {
		d, err := os.ReadFile(n)
		if err != nil {
			log.Fatal(err)
		}
		dicts = append(dicts, d)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderDicts(dicts...))
	if err != nil {
		log.Fatal(err)
	}
	return dec
}

// dictID is generation n's id: "PON" and n, inside the range the zstd format leaves to
// applications (32768 to 2^31-1).
func dictID(n int) uint32 { return 0x504f4e00 + uint32(n) }

func main() {
	n := flag.Int("n", 0, "the dictionary's generation (its file is records-N.zdict)")
	size := flag.Int("size", 32<<10, "the dictionary's size in bytes")
	out := flag.String("dir", "store/sqlite/packdict", "where dictionaries live")
	flag.Parse()
	if *n < 1 || *n > 255 || flag.NArg() == 0 {
		log.Fatal("usage: train.go -n GENERATION MIRROR.db...")
	}
	path := filepath.Join(*out, fmt.Sprintf("records-%d.zdict", *n))
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		log.Fatalf("%s exists: a shipped dictionary never changes; train generation %d instead", path, *n+1)
	}
	dec := decoder(*out)
	var samples [][]byte
	var total int
	for _, m := range flag.Args() {
		// The table, not the view: the view's pond_unpack lives in store/sqlite, which embeds
		// the dictionaries this program writes, so it cannot be built before the first.
		db, err := sql.Open("sqlite3", "file:"+m+"?mode=ro")
		if err != nil {
			log.Fatal(err)
		}
		rows, err := db.Query(`SELECT options_packed FROM message_rows ORDER BY session_id, timestamp`)
		if err != nil {
			log.Fatal(err)
		}
		for rows.Next() {
			var v any
			if err := rows.Scan(&v); err != nil {
				log.Fatal(err)
			}
			var rec []byte
			switch v := v.(type) {
			case []byte: // a zstd frame
				if rec, err = dec.DecodeAll(v, nil); err != nil {
					log.Fatalf("%s: %v", m, err)
				}
			case string:
				rec = []byte(v)
			}
			if len(rec) >= 256 {
				samples = append(samples, rec)
				total += len(rec)
			}
		}
		if err := rows.Err(); err != nil {
			log.Fatal(err)
		}
		db.Close()
	}
	if len(samples) < 100 {
		log.Fatalf("%d records of 256 bytes or more: too few to learn from", len(samples))
	}
	d, err := dict.BuildZstdDict(samples, dict.Options{MaxDictSize: *size, HashBytes: 6, ZstdDictID: dictID(*n), ZstdLevel: zstd.SpeedFastest})
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, d, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d bytes, id %#x, from %d records (%d bytes)\n", path, len(d), dictID(*n), len(samples), total)
}
