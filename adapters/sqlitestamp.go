package adapters

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// SQLiteStamp is a cheap stamp of an agent's SQLite database that changes whenever a
// transaction commits to it, for an adapter's Source.Stamp or RootStamp. It reads two headers
// and hashes no content:
//
//   - the database header's file change counter and page count, which every commit in
//     rollback-journal mode moves;
//   - when the database keeps a write-ahead log, the log's header (checkpoint sequence and
//     salts, which change each time the log restarts from its beginning) and its length (every
//     commit appends frames). In WAL mode the change counter need not move, so the log is what
//     tells a commit.
//
// An empty or absent log contributes nothing: it comes and goes as readers open the database.
// The stamp takes no lock and never blocks the agent; a commit racing the read shows at the
// next stamp, since both headers only move forward.
func SQLiteStamp(db string) (string, error) {
	var head [100]byte
	if err := readAt(db, head[:]); err != nil {
		return "", fmt.Errorf("stamp %s: %w", db, err)
	}
	if string(head[:16]) != "SQLite format 3\x00" {
		return "", fmt.Errorf("stamp %s: not a SQLite database", db)
	}
	// Offsets from SQLite's file format: 24 change counter, 28 size in pages.
	s := fmt.Sprintf("db:%d/%d", binary.BigEndian.Uint32(head[24:28]), binary.BigEndian.Uint32(head[28:32]))

	wal := db + "-wal"
	if target, err := filepath.EvalSymlinks(db); err == nil {
		wal = target + "-wal" // SQLite keeps the log beside the file a link points to
	}
	fi, err := os.Stat(wal)
	switch {
	case errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Size() == 0):
		return s, nil
	case err != nil:
		return "", fmt.Errorf("stamp %s: %w", wal, err)
	}
	var wh [32]byte
	if err := readAt(wal, wh[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return s + "/wal:partial", nil // a log being created; its next stamp will differ
		}
		return "", fmt.Errorf("stamp %s: %w", wal, err)
	}
	// WAL header: 12 checkpoint sequence, 16 and 20 the two salts.
	return s + "/wal:" + hex.EncodeToString(wh[12:24]) + fmt.Sprintf("/%d", fi.Size()), nil
}

// readAt fills b from the start of the file at path.
func readAt(path string, b []byte) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.ReadFull(f, b)
	return err
}
