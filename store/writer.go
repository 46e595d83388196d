package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/pondhq/pond/internal/atomicfile"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/sqlite"
)

// Several machines may write one archive (Lance on an object store): each numbers its rows
// (ingest_seq) in a range of its own, its writer number in the high bits (sqlite.WriterShift),
// so that a machine's mirror can tell, per writer, which rows it already holds. The number is
// this machine's, per archive: drawn at the first write, checked free in the archive, and kept
// in the state directory (writers.json, by the archive's location). The archive in the data
// directory (no storage path configured) is this machine's alone: its writer is 0, as every
// row written before writers were numbered.

// writersFile is the state file of this machine's writer numbers, by archive location.
const writersFile = "writers.json"

// maxWriter bounds the writer numbers drawn: ingest_seq is a positive int64.
const maxWriter = 1<<(63-sqlite.WriterShift) - 1

// writerNumber is this machine's writer number for the archive, drawn and recorded on first
// use. Callers hold the store lock.
func (s *Store) writerNumber(ctx context.Context) (int64, error) {
	if s.writer != 0 || !s.Shared() {
		return s.writer, nil
	}
	path := filepath.Join(s.opts.StateDir, writersFile)
	known, err := readWriters(path)
	if err != nil {
		return 0, err
	}
	where := s.db.Location().String()
	if w := known[where]; w > 0 && w <= maxWriter {
		s.writer = w
		return w, nil
	}
	// Drawn at random, so two machines starting at once rarely draw alike, and refused when
	// any row of the archive already carries it.
	for range 16 {
		w := 1 + rand.Int64N(maxWriter)
		taken, err := s.writerTaken(ctx, w)
		if err != nil {
			return 0, err
		}
		if taken {
			continue
		}
		known[where] = w
		out, _ := json.MarshalIndent(known, "", "  ")
		if err := atomicfile.Write(path, append(out, '\n'), paths.FileMode); err != nil {
			return 0, fmt.Errorf("store: %w", err)
		}
		s.writer = w
		return w, nil
	}
	return 0, errors.New("store: no free writer number found in 16 draws")
}

// readWriters reads the writers file at path (empty when there is none).
func readWriters(path string) (map[string]int64, error) {
	known := map[string]int64{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("store: %w", err)
	default:
		if err := json.Unmarshal(b, &known); err != nil {
			return nil, fmt.Errorf("store: %s: %w", path, err)
		}
	}
	return known, nil
}

// knownWriter is this machine's writer number for the archive as its state records it (0:
// none yet, or unreadable), without drawing one.
func (s *Store) knownWriter() int64 {
	if !s.Shared() {
		return 0
	}
	known, err := readWriters(filepath.Join(s.opts.StateDir, writersFile))
	if err != nil {
		return 0
	}
	return known[s.db.Location().String()]
}

// Shared says whether the archive may have other writers: one named by a storage path (an
// object store, a network folder), not the data directory's own.
func (s *Store) Shared() bool { return s.opts.namedStorage() }

// writerTaken says whether any row of the archive is numbered in writer w's range.
func (s *Store) writerTaken(ctx context.Context, w int64) (bool, error) {
	lo, hi := w<<sqlite.WriterShift, (w+1)<<sqlite.WriterShift-1
	for _, name := range tableNames {
		n, err := s.tables[name].Count(ctx, fmt.Sprintf("ingest_seq >= %d AND ingest_seq <= %d", lo, hi))
		if err != nil {
			return false, err
		}
		if n > 0 {
			return true, nil
		}
	}
	return false, nil
}

// lastSeq is the highest ingest_seq this machine gave a row of the archive (its writer's base,
// w << WriterShift, when none): the next batch's numbers follow it.
func (s *Store) lastSeq(ctx context.Context) (int64, error) {
	w, err := s.writerNumber(ctx)
	if err != nil {
		return 0, err
	}
	last := w << sqlite.WriterShift
	for _, name := range append(tableNames[:len(tableNames):len(tableNames)], TableErasures) {
		marks, err := s.mirror.Watermarks(ctx, name)
		if err != nil {
			return 0, err
		}
		last = max(last, marks[w])
	}
	return last, nil
}

// missingFilter selects the Lance rows a mirror with marks (per writer, the highest ingest_seq
// applied) lacks: every row above its writer's mark, and every row of a writer it has none of.
// Each writer commits its rows in the order of their numbers, so below its mark the mirror
// holds them all.
func missingFilter(marks map[int64]int64) string {
	if len(marks) == 0 {
		return "ingest_seq >= 0"
	}
	f := ""
	for w, seq := range marks {
		if f != "" {
			f += " OR "
		}
		f += fmt.Sprintf("(ingest_seq >= %d AND ingest_seq <= %d)", w<<sqlite.WriterShift, seq)
	}
	return "NOT (" + f + ")"
}

// Hosts are the machines whose rows the mirror holds, by writer number; the one whose writer
// number this machine holds for the archive is marked.
func (s *Store) Hosts(ctx context.Context) ([]view.Host, error) {
	ws, err := s.mirror.Writers(ctx)
	if err != nil {
		return nil, err
	}
	mine := s.writer // 0 for an archive only this machine writes
	if mine == 0 {
		mine = s.knownWriter()
	}
	out := make([]view.Host, 0, len(ws))
	for _, w := range ws {
		out = append(out, view.Host{Writer: w.Writer, Hostname: w.Hostname, Username: w.Username, LastCapture: w.LastCapture,
			Sessions: w.Sessions, Messages: w.Messages, This: w.Writer == mine})
	}
	return out, nil
}
