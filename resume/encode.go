package resume

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/all"
)

// encoder writes sessions in one agent's format.
type encoder struct {
	name string
	// needsRoot: a native restore needs the agent's root to exist already (the agent keeps
	// registries there that a restore cannot make up).
	needsRoot bool
	encode    func(j *encodeJob) (*plan, error)
}

func (e encoder) roots(env adapters.Env) []string {
	a, ok := all.ByName(e.name)
	if !ok {
		return nil
	}
	return a.Roots(env)
}

var encoders = map[string]encoder{
	"claude-code":     {name: "claude-code", encode: encodeClaude},
	"codex-cli":       {name: "codex-cli", encode: encodeCodex},
	"gemini-cli":      {name: "gemini-cli", encode: encodeGemini},
	"opencode":        {name: "opencode", encode: encodeOpenCode},
	"pi-coding-agent": {name: "pi-coding-agent", encode: encodePi},
}

// encodeJob is one batch to encode: batch[0] is the session asked for, the rest its children.
type encodeJob struct {
	batch  []*Transcript
	native bool
	dest   dest
	now    time.Time
}

// plan is what an encoder decided: the files and how to resume.
type plan struct {
	id, cwd, command string
	needsCwd         bool // the agent resumes only from the session's working directory
	files            []planned
}

// planned is one file to write.
type planned struct {
	File
	data []byte
}

func (p *planned) downgrade(reason string) {
	if p.Sidecar {
		return
	}
	if p.Fidelity != Downgraded {
		p.Fidelity = Downgraded
		p.Reason = joinReasons(reason, p.Reason)
		return
	}
	p.Reason = joinReasons(p.Reason, reason)
}

func joinReasons(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

func newFile(path, sessionID, id string, fid Fidelity, reason string, data []byte) planned {
	return planned{File: File{Path: path, Session: sessionID, ID: id, Fidelity: fid, Reason: reason, Bytes: len(data)}, data: data}
}

// sourceRecord is one raw record kept at capture, with where it was.
type sourceRecord struct {
	line   int
	record json.RawMessage
}

// sourceOf decodes an options.source value.
type sourceOf map[string]json.RawMessage

func source(raw json.RawMessage) sourceOf {
	var s sourceOf
	_ = json.Unmarshal(raw, &s)
	return s
}

func (s sourceOf) str(k string) string {
	var v string
	_ = json.Unmarshal(s[k], &v)
	return v
}

func (s sourceOf) int(k string) int {
	var v int
	_ = json.Unmarshal(s[k], &v)
	return v
}

// truncated reports an options entry the store replaced by a size marker: the value is lost.
func truncated(raw json.RawMessage) bool {
	return bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`{"pond_truncated_bytes":`))
}

// keptRecord unwraps the raw source record kept in a canonical object's options.source: the
// source fields and the record, or false when there is none or the store truncated either
// (counted in lost).
func keptRecord(opt json.RawMessage, lost *int) (sourceOf, json.RawMessage, bool) {
	if opt == nil {
		return nil, nil, false
	}
	if truncated(opt) {
		*lost++
		return nil, nil, false
	}
	s := source(opt)
	rec := s["record"]
	if len(rec) == 0 {
		return nil, nil, false
	}
	if truncated(rec) {
		*lost++
		return nil, nil, false
	}
	return s, rec, true
}

// records collects every raw record kept in a transcript (on the session, its messages and
// their parts), ordered by source line. lost counts records the store could not keep whole.
func records(t *Transcript) (recs []sourceRecord, lost int) {
	add := func(o json.RawMessage) {
		s, rec, ok := keptRecord(o, &lost)
		if ok {
			recs = append(recs, sourceRecord{line: s.int("line"), record: rec})
		}
	}
	add(t.Session.Options["source"])
	for _, m := range t.Messages {
		add(m.Options["source"])
		for _, p := range t.Parts[m.ID] {
			add(p.Options["source"])
		}
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].line < recs[j].line })
	return recs, lost
}

// replayLines writes records as JSON Lines in source order. A line that was not kept (it was
// malformed at capture) becomes an empty line, which agents skip, so every record keeps its line
// number and a re-capture gives the same keys.
func replayLines(recs []sourceRecord) []byte {
	var b bytes.Buffer
	next := 1
	for _, r := range recs {
		for r.line > next {
			b.WriteByte('\n')
			next++
		}
		b.Write(r.record)
		b.WriteByte('\n')
		next++
	}
	return b.Bytes()
}

// lostReason describes records the archive could not keep whole.
func lostReason(lost int) string {
	if lost == 0 {
		return ""
	}
	return fmt.Sprintf("%d source record(s) were above the archive's value cap and are missing", lost)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@+,%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// cdThen is "cd <dir> && <cmd>".
func cdThen(dir, cmd string) string { return "cd " + shellQuote(dir) + " && " + cmd }

// under joins a slash path below root.
func under(root, rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
