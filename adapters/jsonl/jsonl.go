// Package jsonl reads JSON Lines session files incrementally, the way every line-based adapter
// needs: resume after the last whole line when the file only grew (checked by a digest of the
// bytes before the resume point), start over when it changed, and leave a half-written last line
// for the next read.
package jsonl

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/pondhq/pond/adapters"
)

// anchorLen is how many bytes before the resume point the anchor digests: enough that a
// rewritten file is all but certain to differ there.
const anchorLen = 256

// File is an open JSONL file positioned where reading starts.
type File struct {
	f       *os.File
	path    string
	offset  int64
	line    int
	resumed bool
	maxLine int64
	// Where Lines offers cursors mid-file (Checkpoints).
	ckpt  adapters.Checkpointer
	state func() (json.RawMessage, bool)
	// openLine: the last line consumed had no line break yet (it was complete JSON); its break,
	// when it arrives, ends that line rather than starting a new one.
	openLine bool
}

// Open opens path and positions it after cur's last whole line when the file still holds the
// same bytes there; otherwise at the start. Lines are read within lim.
func Open(path string, cur adapters.Cursor, lim adapters.Limits) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	jf := &File{f: f, path: path, maxLine: lim.Line()}
	if cur.Offset > 0 && cur.Anchor != "" {
		if st, err := f.Stat(); err == nil && st.Size() >= cur.Offset {
			if a, err := anchorAt(f, cur.Offset); err == nil && a == cur.Anchor {
				jf.offset, jf.line, jf.resumed = cur.Offset, cur.Line, true
				var last [1]byte
				if _, err := f.ReadAt(last[:], cur.Offset-1); err == nil {
					jf.openLine = last[0] != '\n'
				}
			}
		}
	}
	if _, err := f.Seek(jf.offset, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return jf, nil
}

// Resumed reports whether reading goes on from the cursor (true) or starts over (false); an
// adapter starting over discards the parse state it kept in the cursor.
func (jf *File) Resumed() bool { return jf.resumed }

// Checkpoints makes Lines offer out, when it is an adapters.Checkpointer that asks for one, the
// cursor after a line, with the parse state state gives at that point; state says false while
// the adapter could not resume from there (records held back).
func (jf *File) Checkpoints(out adapters.Emitter, state func() (json.RawMessage, bool)) {
	jf.ckpt, _ = out.(adapters.Checkpointer)
	jf.state = state
}

// checkpoint offers a cursor at offset, line when one is wanted.
func (jf *File) checkpoint(offset int64, line int) error {
	if jf.ckpt == nil || !jf.ckpt.WantCheckpoint() {
		return nil
	}
	st, ok := jf.state()
	if !ok {
		return nil
	}
	anchor, err := anchorAt(jf.f, offset)
	if err != nil {
		return fmt.Errorf("read %s: %w", jf.path, err)
	}
	jf.ckpt.Checkpoint(adapters.Cursor{Offset: offset, Line: line, Anchor: anchor, State: st})
	return nil
}

// Close closes the file.
func (jf *File) Close() error { return jf.f.Close() }

// Lines calls fn with each whole line after the start position (without its line break, blank
// lines skipped) and its 1-based line number. A last line without a line break is passed only
// when it is complete JSON; otherwise it is left for the next read (the agent is still
// writing it). A line longer than the file's Limits is never held: it is reported to bad
// (wrapping adapters.ErrTooLarge) and passed over, so the cursor moves past it. Each line is in
// a buffer of its own, which fn may keep. It returns the cursor after the last line passed,
// without Stamp and State, which the adapter fills in.
func (jf *File) Lines(ctx context.Context, fn func(line []byte, no int) error, bad func(adapters.Location, error)) (adapters.Cursor, error) {
	r := bufio.NewReaderSize(jf.f, 256<<10)
	offset, line := jf.offset, jf.line
	first := true
	for {
		if err := ctx.Err(); err != nil {
			return adapters.Cursor{}, err
		}
		l, err := readLine(r, jf.maxLine)
		if l.n > 0 {
			if !l.complete && (l.over || !json.Valid(l.body)) {
				break // half-written: pick it up next time
			}
			offset += l.n
			if first && jf.openLine && !l.over && len(l.body) == 0 {
				first = false
				if errors.Is(err, io.EOF) {
					break
				}
				continue // the break of the line consumed last time
			}
			first = false
			line++
			switch {
			case l.over:
				report(bad, jf.path, line, l.n, jf.maxLine)
			case len(bytes.TrimSpace(l.body)) > 0:
				if ferr := fn(l.body, line); ferr != nil {
					return adapters.Cursor{}, ferr
				}
			}
			if cerr := jf.checkpoint(offset, line); cerr != nil {
				return adapters.Cursor{}, cerr
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return adapters.Cursor{}, fmt.Errorf("read %s: %w", jf.path, err)
		}
	}
	anchor, err := anchorAt(jf.f, offset)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("read %s: %w", jf.path, err)
	}
	return adapters.Cursor{Offset: offset, Line: line, Anchor: anchor}, nil
}

// report tells bad (when set) that a line was over the cap.
func report(bad func(adapters.Location, error), path string, no int, n, max int64) {
	if bad != nil {
		bad(adapters.Location{Path: path, Line: no}, fmt.Errorf("line of %d bytes not read: %w of %d bytes a line", n, adapters.ErrTooLarge, max))
	}
}

// rawLine is one line as readLine found it.
type rawLine struct {
	body     []byte // without its line break; nil when over
	n        int64  // bytes consumed, line break included
	complete bool   // it ended with a line break
	over     bool   // longer than the cap: its bytes were passed over, not kept
}

// readLine reads up to and including the next line break, keeping at most max bytes of the line
// (a longer line is read through and dropped, so memory stays bounded). The error is r's: io.EOF
// after a last line without a break.
func readLine(r *bufio.Reader, max int64) (rawLine, error) {
	var l rawLine
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		l.n += int64(len(chunk))
		if !l.over {
			body := l.n
			if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
				body-- // the break does not count, nor a \r before it
				if len(chunk) > 1 && chunk[len(chunk)-2] == '\r' {
					body--
				}
			}
			if body > max {
				l.over, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		l.complete = err == nil
		if !l.over {
			l.body = bytes.TrimRight(buf, "\r\n")
		}
		return l, err
	}
}

// anchorAt digests the anchorLen bytes before offset.
func anchorAt(f *os.File, offset int64) (string, error) {
	n := min(int64(anchorLen), offset)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, offset-n); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:16]), nil
}

// Each calls fn with every non-blank line of r (a whole stream, e.g. a decompressed file) and its
// line number. A last line without a line break counts like any other. A line longer than
// maxLine is reported to bad (when set; at path) and passed over. Each line is in a buffer of
// its own, which fn may keep.
func Each(ctx context.Context, r io.Reader, path string, maxLine int64, fn func(line []byte, no int) error, bad func(adapters.Location, error)) error {
	br := bufio.NewReaderSize(r, 256<<10)
	no := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		l, err := readLine(br, maxLine)
		if l.n > 0 && (err == nil || errors.Is(err, io.EOF)) {
			no++
			switch {
			case l.over:
				report(bad, path, no, l.n, maxLine)
			case len(bytes.TrimSpace(l.body)) > 0:
				if ferr := fn(l.body, no); ferr != nil {
					return ferr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
