package pi

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/jsonl"
	"github.com/pondhq/pond/session"
)

// lineage links a forked session to the session it came from. The header's parentSession is
// the path of the forked-from file; its session id is read from that file's header when the
// file can be found, else taken from its name. The cut point (ParentMessageID) is the last
// entry of the forked path pi copied into the new file, ids included: pi's fork copies the path
// from the root to the chosen entry, then appends fresh label entries and the new
// conversation. A fork made before the first message copies nothing and has no cut point.
func (p *parser) lineage(s *session.Session, recorded string) {
	path := resolveParent(recorded, p.src.Path)
	id := ""
	if path != "" {
		id = headerID(path)
	}
	if id == "" {
		_, id = splitFileName(recorded)
	}
	if id == "" || id == s.ID || session.CheckID(id) != nil {
		return
	}
	s.ParentSessionID = id
	if p.st.Version >= 2 { // v1 entries have no ids to cut at
		s.ParentMessageID = p.forkCut(path, s.CreatedAt)
	}
}

// resolveParent finds the forked-from file: at its recorded path, else (the agent dir was
// moved, or the file was written on another machine) under this root's sessions folder by its
// last two path elements, else next to the fork.
func resolveParent(recorded, self string) string {
	var cands []string
	if filepath.IsAbs(recorded) {
		cands = append(cands, recorded)
	}
	elems := strings.FieldsFunc(recorded, func(r rune) bool { return r == '/' || r == '\\' })
	if n := len(elems); n >= 2 && elems[n-2] != ".." && elems[n-2] != "." {
		cands = append(cands, filepath.Join(filepath.Dir(filepath.Dir(self)), elems[n-2], elems[n-1]))
	}
	if n := len(elems); n >= 1 {
		cands = append(cands, filepath.Join(filepath.Dir(self), elems[n-1]))
	}
	selfInfo, _ := os.Stat(self)
	for _, c := range cands {
		info, err := os.Stat(c)
		if err != nil || !info.Mode().IsRegular() || (selfInfo != nil && os.SameFile(info, selfInfo)) {
			continue
		}
		return c
	}
	return ""
}

// headerID is the session id in the header line of the file at path, or "".
func headerID(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 1<<20)).ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	var h struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	if json.Unmarshal(line, &h) != nil || h.Type != "session" {
		return ""
	}
	return h.ID
}

// errStop ends a scan early.
var errStop = errors.New("stop")

// forkCut is the id of the last entry of the copied prefix of this file: the entries after the
// header whose ids the parent file holds or, when the parent cannot be read, whose times are
// before the fork's (copies keep their original times; what pi appends after the fork is
// newer).
func (p *parser) forkCut(parentPath string, forkedAt time.Time) string {
	var inParent map[string]bool
	if parentPath != "" {
		inParent = p.entryIDs(parentPath)
	}
	if inParent == nil && forkedAt.IsZero() {
		return ""
	}
	f, err := os.Open(p.src.Path)
	if err != nil {
		return ""
	}
	defer f.Close()
	cut, header := "", false
	_ = jsonl.Each(p.ctx, f, p.src.Path, adapters.Limits{}.Line(), func(line []byte, _ int) error {
		var e struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			Timestamp string `json:"timestamp"`
		}
		err := json.Unmarshal(line, &e)
		if !header {
			header = err == nil && e.Type == "session"
			return nil
		}
		if err != nil || e.ID == "" {
			return errStop
		}
		copied := false
		if inParent != nil {
			copied = inParent[e.ID]
		} else if t, err := time.Parse(time.RFC3339Nano, e.Timestamp); err == nil {
			copied = t.Before(forkedAt)
		}
		if !copied {
			return errStop
		}
		cut = e.ID
		return nil
	}, nil)
	return cut
}

// entryIDs are the entry ids in the file at path, or nil when it cannot be read.
func (p *parser) entryIDs(path string) map[string]bool {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	ids := map[string]bool{}
	err = jsonl.Each(p.ctx, f, path, adapters.Limits{}.Line(), func(line []byte, _ int) error {
		var e struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if json.Unmarshal(line, &e) == nil && e.Type != "session" && e.ID != "" {
			ids[e.ID] = true
		}
		return nil
	}, nil)
	if err != nil {
		return nil
	}
	return ids
}
