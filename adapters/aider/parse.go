package aider

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// Markers of Aider's history file (aider/io.py).
const (
	headerPrefix = "# aider chat started at "
	headerLayout = "2006-01-02 15:04:05"
	userPrefix   = "#### "
	toolPrefix   = "> "
	// pondPrefix starts the lines Pond writes after the header of a run it restored (the
	// restore mark, the session's project): Aider skips every line starting with "# " when it
	// restores a history (split_chat_history_markdown).
	pondPrefix    = "# pond_"
	markPrefix    = "# " + adapters.RestoreMarkKey + " "
	projectPrefix = "# pond_project "
	startedPrefix = "# pond_started "
	// partLine ends a reply where a restored conversation has two replies in a row: Aider has
	// no mark between replies, and skips the line as it skips every "# " line, so the model
	// sees them as one reply while a capture keeps them apart.
	partLine = "# pond_part"
)

// location is where header times are read: Aider writes the local time of the machine it runs
// on, with no zone. Tests set UTC.
var location = time.Local

// kind is what a block of the file is.
type kind int

const (
	kindHeader    kind = iota // # aider chat started at …
	kindPond                  // Pond's lines before a restored run that has no header
	kindUser                  // #### …
	kindTool                  // > …
	kindAssistant             // anything else
)

// block is one record of the file: its lines as written, the blank lines after it included.
type block struct {
	kind  kind
	raw   []byte
	line  int  // the file line it starts on
	blank bool // a blank line follows it (user, tool, header): the next text starts a block
	fence string
	open  bool // a tool block whose last line has not ended it yet
	ended bool // a reply ended by partLine: the next line that is not blank starts a block
}

// command is a command run through Aider, waiting for the block that reports on it.
type command struct {
	ID      string `json:"id"`   // the call id
	Name    string `json:"name"` // run or test
	Command string `json:"command"`
}

// stateVersion changes whenever cursorState does; a cursor of another version is read again
// from the start.
const stateVersion = 1

// cursorState is what a resumed read needs: the run read last and where in it.
type cursorState struct {
	V       int              `json:"v"`
	Session *session.Session `json:"session,omitempty"` // nil before the first header
	Run     int              `json:"run"`               // runs started so far
	RunLine int              `json:"run_line"`          // the file line of the run's header
	Block   int              `json:"block"`             // blocks of the run so far
	Cmd     *command         `json:"cmd,omitempty"`
	Fence   string           `json:"fence,omitempty"`  // a reply's code fence left open
	Emitted bool             `json:"emitted"`          // the session was emitted
	Undated time.Time        `json:"undated,omitzero"` // the time of a run without header
	// UndatedProject is the project Pond wrote before a restored run without header.
	UndatedProject string `json:"undated_project,omitempty"`
}

// Read implements adapters.Adapter. It resumes after the last whole block when the file only
// grew (checked by a digest of the bytes before that point), and starts over otherwise. A block
// ends where the next begins, or at the end of the file when its last line is whole; a
// half-written last line waits, with its block, for the next read.
func (Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	f, err := os.Open(src.Path)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("aider: read %s: %w", src.Key, err)
	}
	defer f.Close()
	p := &parser{src: src, out: out, key: src.Key}
	if st, ok := decodeState(cur.State); ok && cur.Offset > 0 {
		if info, err := f.Stat(); err == nil && info.Size() >= cur.Offset {
			if a, err := anchorAt(f, cur.Offset); err == nil && a == cur.Anchor {
				p.st, p.offset, p.line = *st, cur.Offset, cur.Line
			}
		}
	}
	if p.offset == 0 {
		p.st = cursorState{V: stateVersion}
	}
	if _, err := f.Seek(p.offset, io.SeekStart); err != nil {
		return adapters.Cursor{}, fmt.Errorf("aider: read %s: %w", src.Key, err)
	}
	p.st.Emitted = false // every read emits its session again before its messages
	if err := p.run(ctx, bufio.NewReaderSize(f, 256<<10), env.Limits.Line()); err != nil {
		return adapters.Cursor{}, fmt.Errorf("aider: read %s: %w", src.Key, err)
	}
	next := adapters.Cursor{Stamp: src.Stamp, Offset: p.offset, Line: p.line}
	if next.Anchor, err = anchorAt(f, p.offset); err != nil {
		return adapters.Cursor{}, fmt.Errorf("aider: read %s: %w", src.Key, err)
	}
	p.st.Emitted = false
	if next.State, err = json.Marshal(p.st); err != nil {
		return adapters.Cursor{}, fmt.Errorf("aider: read %s: %w", src.Key, err)
	}
	return next, nil
}

func decodeState(raw json.RawMessage) (*cursorState, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	var st cursorState
	if json.Unmarshal(raw, &st) != nil || st.V != stateVersion {
		return nil, false
	}
	return &st, true
}

// parser turns one file's blocks into events.
type parser struct {
	src adapters.Source
	out adapters.Emitter
	key string
	st  cursorState

	header *block // a header not yet emitted: a restore mark may follow it

	offset int64 // after the last block handed over
	line   int   // lines before offset
}

// run reads lines from r, grouping them into blocks. offset and line move past a block once it
// is handed over; the block under way when the input ends is handed over only when its last
// line is whole. Blank lines go with the block before them; those a read starts with (the
// blank line Aider writes before each input, appended after the last read) go with the block
// after them, so the blocks, and the keys, are those of a whole read.
func (p *parser) run(ctx context.Context, r *bufio.Reader, max int64) error {
	var cur *block
	var lead []byte
	leadLine := 0
	pos, lineNo := p.offset, p.line
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		raw, n, over, err := readLine(r, max)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if err != nil {
			break // nothing more, or a half-written line: its block waits for the next read
		}
		lineNo++
		if over {
			// Too long to hold: reported, passed over, and it ends the block before it.
			if cur != nil {
				if herr := p.handle(cur); herr != nil {
					return herr
				}
				cur = nil
			}
			lead = nil
			pos += n
			p.offset, p.line = pos, lineNo
			p.out.Malformed(adapters.Location{Path: p.src.Path, Line: lineNo}, fmt.Errorf("line of %d bytes not read: %w of %d bytes a line", n, adapters.ErrTooLarge, max))
			continue
		}
		text := strings.TrimRight(string(raw), "\r\n")
		header := strings.HasPrefix(text, headerPrefix)
		if cur == nil && p.st.Fence != "" && !header {
			// The rest of a reply whose code fence was open when the last read ended.
			cur = &block{kind: kindAssistant, line: lineNo, fence: p.st.Fence}
			p.st.Fence = ""
		} else if cur == nil && strings.TrimSpace(text) == "" {
			if lead == nil {
				leadLine = lineNo
			}
			lead = append(lead, raw...)
			pos += n
			continue
		} else if fresh, k := p.classify(cur, text); fresh {
			if cur != nil {
				if herr := p.handle(cur); herr != nil {
					return herr
				}
				p.offset, p.line = pos, lineNo-1
			}
			cur = &block{kind: k, line: lineNo}
			if lead != nil {
				cur.raw, cur.line, lead = lead, leadLine, nil
			}
		}
		cur.add(raw, text)
		pos += n
	}
	if cur != nil {
		// The input ended on a whole line: the block is complete as far as can be known.
		if cur.kind == kindAssistant && cur.fence != "" {
			p.st.Fence = cur.fence
		}
		if err := p.handle(cur); err != nil {
			return err
		}
		p.offset, p.line = pos, lineNo
	}
	return p.flushHeader()
}

// classify says whether the line text starts a new block after cur (nil at the start of a
// read), and of what kind.
func (p *parser) classify(cur *block, text string) (bool, kind) {
	switch {
	case strings.HasPrefix(text, headerPrefix):
		return true, kindHeader // a header always starts a run, whatever came before
	case cur == nil:
		if p.st.Session == nil && strings.HasPrefix(text, pondPrefix) {
			return true, kindPond
		}
	case cur.kind == kindPond && strings.HasPrefix(text, pondPrefix):
		return false, 0
	case cur.kind == kindTool && cur.open:
		return false, 0 // the rest of a multi-line "> " block
	case cur.kind == kindAssistant && cur.fence != "":
		return false, 0 // inside a snippet, "#### " and "> " are content
	case strings.TrimSpace(text) == "":
		return false, 0 // blank lines go with the block before them
	case cur.kind == kindHeader && !cur.blank && strings.HasPrefix(text, pondPrefix):
		return false, 0 // Pond's lines after the header of a run it restored
	}
	switch {
	case strings.HasPrefix(text, userPrefix) || text == "####":
		if cur != nil && cur.kind == kindUser && !cur.blank {
			return false, 0
		}
		return true, kindUser
	case strings.HasPrefix(text, toolPrefix) || text == ">":
		return true, kindTool
	case cur != nil && cur.kind == kindAssistant && !cur.ended:
		return false, 0
	}
	return true, kindAssistant
}

// add appends one line to the block.
func (b *block) add(raw []byte, text string) {
	b.raw = append(b.raw, raw...)
	if strings.TrimSpace(text) == "" && !(b.kind == kindTool && b.open) {
		if b.kind != kindAssistant || b.fence == "" {
			b.blank = true
		}
		return
	}
	switch b.kind {
	case kindTool:
		// "> " starts the block; its last line ends with two spaces (linebreak=True).
		b.open = !strings.HasSuffix(text, "  ")
	case kindAssistant:
		if b.fence == "" && text == partLine {
			b.ended = true
			return
		}
		b.fence = nextFence(b.fence, text)
	}
}

// nextFence is the open code fence after line text, given the one open before it ("" for
// none): a line of three or more backticks or tildes opens one, and a line of the same
// character, at least as long and with nothing after it, closes it.
func nextFence(open, text string) string {
	t := strings.TrimLeft(text, " ")
	if len(text)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return open
	}
	c := t[0]
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 {
		return open
	}
	if open == "" {
		return t[:n]
	}
	if open[0] == c && n >= len(open) && strings.TrimSpace(t[n:]) == "" {
		return ""
	}
	return open
}

// handle turns one block into events.
func (p *parser) handle(b *block) error {
	switch b.kind {
	case kindHeader:
		if err := p.flushHeader(); err != nil {
			return err
		}
		return p.startRun(b)
	case kindPond:
		// Where and when a run without a header was, written by Pond when it restored one.
		for _, l := range strings.Split(string(b.raw), "\n") {
			l = strings.TrimRight(l, "\r")
			if v, ok := strings.CutPrefix(l, projectPrefix); ok {
				_ = json.Unmarshal([]byte(v), &p.st.UndatedProject)
			}
			if v, ok := strings.CutPrefix(l, startedPrefix); ok {
				if at, err := time.Parse(time.RFC3339, strings.TrimSpace(v)); err == nil {
					p.st.Undated = at.UTC()
				}
			}
		}
		return nil
	}
	if err := p.flushHeader(); err != nil {
		return err
	}
	if p.st.Session == nil {
		p.startUndated(b)
	}
	p.st.Block++
	id := fmt.Sprintf("b%06d", p.st.Block)
	text := strings.TrimRight(string(b.raw), " \t\r\n")
	switch b.kind {
	case kindUser:
		lines := strings.Split(strings.TrimLeft(text, "\r\n"), "\n")
		for i, l := range lines {
			l = strings.TrimPrefix(strings.TrimRight(l, "\r"), "####")
			lines[i] = strings.TrimSuffix(strings.TrimPrefix(l, " "), "  ")
		}
		typed := strings.Join(lines, "\n")
		p.st.Cmd = commandOf(typed, id)
		return p.message(b, id, session.RoleUser, []session.Part{{Type: session.PartText, Provenance: session.Conversational, Text: typed}})
	case kindTool:
		said := toolText(text)
		if cmd, ok := strings.CutPrefix(said, "Running "); ok && !strings.Contains(cmd, "\n") {
			p.st.Cmd = &command{ID: id + ":call", Name: "run", Command: cmd}
			return p.message(b, id, session.RoleTool, []session.Part{{Type: session.PartText, Provenance: session.Injected, Text: said}})
		}
		if c := p.st.Cmd; c != nil {
			p.st.Cmd = nil
			params := adapters.Object(adapters.Field{Key: "command", Value: adapters.String(c.Command)})
			return p.message(b, id, session.RoleTool, []session.Part{
				{Type: session.PartToolCall, Provenance: session.Conversational, CallID: c.ID, Name: c.Name, Params: params},
				{Type: session.PartToolResult, Provenance: session.Conversational, CallID: c.ID, Name: c.Name, Result: adapters.String(said), IsFailure: failed(c, said)},
			})
		}
		return p.message(b, id, session.RoleTool, []session.Part{{Type: session.PartText, Provenance: session.Injected, Text: said}})
	default:
		p.st.Cmd = nil
		if b.ended {
			text = strings.TrimSuffix(text, partLine)
		}
		return p.message(b, id, session.RoleAssistant, []session.Part{{Type: session.PartText, Provenance: session.Conversational, Text: strings.TrimSpace(text)}})
	}
}

// toolText is what a "> " block says: its lines without the prefix, which Aider writes before
// the first line only and Pond's restores before every line (so that Aider, which takes a line
// without it for part of a reply, leaves the whole block out of the chat it restores).
func toolText(text string) string {
	lines := strings.Split(strings.TrimLeft(text, "\r\n"), "\n")
	for i, l := range lines {
		if l == ">" || l == ">\r" || strings.HasPrefix(l, toolPrefix) {
			lines[i] = strings.TrimPrefix(l[1:], " ")
		}
	}
	return strings.TrimSuffix(strings.Join(lines, "\n"), "  ")
}

// flushHeader emits the header block held back to see whether a restore mark follows it.
func (p *parser) flushHeader() error {
	b := p.header
	if b == nil {
		return nil
	}
	p.header = nil
	b.line = p.st.RunLine // line 1 of its run, whatever blank lines came before it
	return p.message(b, fmt.Sprintf("b%06d", 0), session.RoleSystem, nil)
}

// commandOf is the command a user's input runs through Aider (/run, !, /test), or nil.
func commandOf(typed, id string) *command {
	if strings.Contains(typed, "\n") {
		return nil
	}
	for _, c := range []struct{ prefix, name string }{{"/run ", "run"}, {"!", "run"}, {"/test ", "test"}} {
		if rest, ok := strings.CutPrefix(typed, c.prefix); ok && strings.TrimSpace(rest) != "" {
			return &command{ID: id + ":call", Name: c.name, Command: strings.TrimSpace(rest)}
		}
	}
	return nil
}

// failed reports whether Aider's report said reports a failed command: an error it printed, or
// /test's output added to the chat (it adds a test's output only on a non-zero exit).
func failed(c *command, said string) bool {
	if strings.HasPrefix(said, "Error") || strings.HasPrefix(said, "Unable to") {
		return true
	}
	return c.Name == "test" && strings.HasPrefix(said, "Added ") && strings.HasSuffix(said, "of output to the chat.")
}

// startRun begins the session of a header block.
func (p *parser) startRun(b *block) error {
	var header string
	var kept []byte // the block without Pond's lines
	var mark json.RawMessage
	dropped := 0          // Pond's lines: the run's lines are counted without them
	var started time.Time // the start Pond wrote, for a header whose own time does not read
	project := filepath.Dir(p.src.Path)
	for _, l := range bytes.SplitAfter(b.raw, []byte("\n")) {
		text := strings.TrimRight(string(l), "\r\n")
		switch {
		case header == "" && strings.HasPrefix(text, headerPrefix):
			header = text
		case header != "" && strings.HasPrefix(text, markPrefix):
			if v := []byte(strings.TrimSpace(strings.TrimPrefix(text, markPrefix))); json.Valid(v) {
				mark = v
			}
			dropped++
			continue
		case header != "" && strings.HasPrefix(text, startedPrefix):
			if at, err := time.Parse(time.RFC3339, strings.TrimSpace(strings.TrimPrefix(text, startedPrefix))); err == nil {
				started = at.UTC()
			}
			dropped++
			continue
		case header != "" && strings.HasPrefix(text, projectPrefix):
			var dir string
			if json.Unmarshal([]byte(strings.TrimPrefix(text, projectPrefix)), &dir) == nil && dir != "" {
				project = dir
			}
			dropped++
			continue
		}
		kept = append(kept, l...)
	}
	b.raw = kept
	stamp := strings.TrimSpace(strings.TrimPrefix(header, headerPrefix))
	at, err := time.ParseInLocation(headerLayout, stamp, location)
	idStamp := stamp
	if err != nil {
		// Kept, dated by the run before it (else the file): Aider never writes such a header.
		p.out.Unknown(adapters.Location{Path: p.src.Path, Line: b.line}, "header time "+strconv.Quote(stamp))
		at, idStamp = p.src.ModTime.UTC().Truncate(time.Second), ""
		switch {
		case !started.IsZero():
			at = started
		case p.st.Session != nil:
			at = p.st.Session.CreatedAt
		}
	}
	p.st.Run++
	p.st.RunLine = b.line + dropped
	p.st.Block, p.st.Cmd, p.st.Fence, p.st.Emitted = 0, nil, "", false
	s := &session.Session{
		ID:          sessionID(p.key, at, idStamp, p.st.Run),
		SourceAgent: Name,
		Project:     project,
		CreatedAt:   at.UTC(),
		Options: session.Options{"source": adapters.Object(
			adapters.Field{Key: "path", Value: adapters.String(p.src.Path)},
			adapters.Field{Key: "started", Value: adapters.String(stamp)},
		)},
	}
	adapters.ApplyRestoreMark(s, mark)
	p.st.Session = s
	p.header = b
	return nil
}

// startUndated begins the session of what a file holds before its first header (a file whose
// start was cut off, or written by hand): named after the file, dated by its modification time
// when first read.
func (p *parser) startUndated(b *block) {
	if p.st.Undated.IsZero() {
		p.st.Undated = p.src.ModTime.UTC().Truncate(time.Second)
	}
	p.st.RunLine = b.line
	p.st.Session = &session.Session{
		ID:          sessionID(p.key, p.st.Undated, "", 0),
		SourceAgent: Name,
		Project:     cmp.Or(p.st.UndatedProject, filepath.Dir(p.src.Path)),
		CreatedAt:   p.st.Undated,
		Options:     session.Options{"source": adapters.Object(adapters.Field{Key: "path", Value: adapters.String(p.src.Path)})},
	}
}

// sessionID is the id of the run-th run of the file key, started at at: the file holds no id.
func sessionID(key string, at time.Time, stamp string, run int) string {
	sum := sha256.Sum256([]byte(key))
	t := "undated"
	if stamp != "" && !at.IsZero() {
		t = at.Format("20060102T150405")
	}
	return fmt.Sprintf("aider-%s-%s-%d", hex.EncodeToString(sum[:6]), t, run)
}

func (p *parser) emitSession() error {
	p.st.Emitted = true
	s := *p.st.Session
	return p.out.Event(session.Event{Session: &s})
}

// message emits one block's message and its parts, the session first when this read has not.
func (p *parser) message(b *block, id string, role session.Role, parts []session.Part) error {
	if !p.st.Emitted {
		if err := p.emitSession(); err != nil {
			return err
		}
	}
	s := p.st.Session
	m := session.Message{SessionID: s.ID, ID: id, Role: role, Timestamp: s.CreatedAt, Options: session.Options{"source": adapters.Object(
		adapters.Field{Key: "path", Value: adapters.String(p.src.Path)},
		adapters.Field{Key: "line", Value: json.RawMessage(strconv.Itoa(b.line - p.st.RunLine + 1))},
		adapters.Field{Key: "record", Value: adapters.String(string(b.raw))},
	)}}
	if role == session.RoleSystem {
		m.Content = strings.TrimSpace(string(b.raw))
	}
	if err := p.out.Event(session.Event{Message: &m}); err != nil {
		return err
	}
	for i := range parts {
		pt := parts[i]
		pt.SessionID, pt.MessageID, pt.ID, pt.Ordinal = s.ID, id, id+":"+strconv.Itoa(i), i
		if err := p.out.Event(session.Event{Part: &pt}); err != nil {
			return err
		}
	}
	return nil
}

// readLine reads one line with its break. A line over max is read through but not kept (over).
// The error is io.EOF after a last line without a break.
func readLine(r *bufio.Reader, max int64) (line []byte, n int64, over bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		n += int64(len(chunk))
		if !over {
			if n > max+2 {
				over, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, n, over, err
	}
}

// anchorLen is how many bytes before a resume point the anchor digests.
const anchorLen = 256

// anchorAt digests the bytes just before offset: a file that was rewritten, not appended to,
// all but certainly differs there.
func anchorAt(f *os.File, offset int64) (string, error) {
	start := max(offset-anchorLen, 0)
	buf := make([]byte, offset-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:8]), nil
}
