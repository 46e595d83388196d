package openclaw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/jsonl"
	"github.com/pondhq/pond/adapters/pi"
)

// archiveName matches an archive file: <session id>.jsonl.<deleted|reset>.<time>[.<32 hex>]
// [.zst] (OpenClaw's artifacts.ts).
var archiveName = regexp.MustCompile(`^(.+)\.jsonl\.(deleted|reset)\.(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z)(?:\.[0-9a-f]{32})?(\.zst)?$`)

// checkpointName matches a compaction checkpoint, a copy of a transcript taken when it was
// compacted: its entries are the session's own, so it is not read.
var checkpointName = regexp.MustCompile(`(?i)\.checkpoint\.[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.jsonl$`)

// fileHint is what Scan learns of a file's session, handed to Read in Source.Hint.
type fileHint struct {
	ID       string          `json:"id"`
	Agent    string          `json:"agent"`
	Key      string          `json:"key,omitempty"`
	Parent   string          `json:"parent,omitempty"`
	Archived string          `json:"archived,omitempty"`
	Zstd     bool            `json:"zstd,omitempty"`
	Entry    json.RawMessage `json:"entry,omitempty"` // its sessions.json entry, verbatim
}

// indexEntry is one sessions.json entry, by session id.
type indexEntry struct {
	key       string
	spawnedBy string
	raw       json.RawMessage
}

// readIndex reads an agent's sessions.json: session key → entry. A missing or unreadable
// index names nothing (the transcripts are still read).
func readIndex(path string) (bySession map[string]indexEntry, byKey map[string]string) {
	bySession, byKey = map[string]indexEntry{}, map[string]string{}
	b, err := adapters.ReadFile(path, adapters.DefaultMaxLineBytes)
	if err != nil {
		return
	}
	_ = adapters.EachMember(b, func(key string, v json.RawMessage, _ int) error {
		var e struct {
			SessionID string `json:"sessionId"`
			SpawnedBy string `json:"spawnedBy"`
		}
		if json.Unmarshal(v, &e) != nil || e.SessionID == "" {
			return nil
		}
		byKey[key] = e.SessionID
		if _, ok := bySession[e.SessionID]; !ok {
			bySession[e.SessionID] = indexEntry{key: key, spawnedBy: e.SpawnedBy, raw: v}
		}
		return nil
	})
	return
}

// scanFiles lists an agent's legacy transcripts and archives. A session the databases hold
// (live), or that a live transcript or an earlier archive holds, is listed as superseded.
func scanFiles(ctx context.Context, root, agent string, live map[string]bool) ([]adapters.Source, error) {
	dir := filepath.Join(root, "agents", agent, "sessions")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("openclaw: scan %s: %w", dir, err)
	}
	bySession, byKey := readIndex(filepath.Join(dir, "sessions.json"))
	type found struct {
		name string
		h    fileHint
	}
	var primary, archives []found
	for _, e := range ents {
		name := e.Name()
		h := fileHint{Agent: agent}
		switch {
		case strings.HasSuffix(name, ".trajectory.jsonl"), checkpointName.MatchString(name):
			continue
		case strings.HasSuffix(name, ".jsonl"):
			h.ID = strings.TrimSuffix(name, ".jsonl")
			primary = append(primary, found{name, h})
		default:
			m := archiveName.FindStringSubmatch(name)
			if m == nil {
				continue
			}
			h.ID, h.Archived, h.Zstd = m[1], m[2], m[4] != ""
			archives = append(archives, found{name, h})
		}
	}
	sort.Slice(archives, func(i, j int) bool { return archives[i].name < archives[j].name })
	var out []adapters.Source
	held := map[string]bool{}
	for _, list := range [][]found{primary, archives} {
		for _, f := range list {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			path := filepath.Join(dir, f.name)
			info, err := os.Stat(path)
			if err != nil || !info.Mode().IsRegular() {
				continue
			}
			h := f.h
			if e, ok := bySession[h.ID]; ok {
				h.Key, h.Entry = e.key, e.raw
				if e.spawnedBy != "" {
					h.Parent = byKey[e.spawnedBy]
				}
			}
			src := adapters.Source{
				Key:     "agents/" + agent + "/sessions/" + f.name,
				Path:    path,
				Stamp:   adapters.FileStamp(info),
				Size:    info.Size(),
				ModTime: info.ModTime(),
			}
			if live[h.ID] || held[h.ID] {
				src.Skip = adapters.SkipSuperseded
			}
			held[h.ID] = true
			hint, err := json.Marshal(h)
			if err != nil {
				return nil, err
			}
			src.Hint = string(hint)
			out = append(out, src)
		}
	}
	return out, nil
}

// restoredFacts is what a native restore kept of the original session in its index entry
// (restoredKey), nil when the entry holds no object there.
func restoredFacts(entry json.RawMessage) json.RawMessage {
	var e map[string]json.RawMessage
	if json.Unmarshal(entry, &e) != nil || adapters.Kind(e[restoredKey]) != '{' {
		return nil
	}
	return e[restoredKey]
}

// hintOf is a file source's hint; a source listed by another version of Scan (or none) is
// read from its name alone.
func hintOf(src adapters.Source) fileHint {
	var h fileHint
	if json.Unmarshal([]byte(src.Hint), &h) == nil && h.ID != "" {
		return h
	}
	name := filepath.Base(src.Path)
	h = fileHint{Agent: agentOfKey(src.Key), ID: strings.TrimSuffix(name, ".jsonl")}
	if m := archiveName.FindStringSubmatch(name); m != nil {
		h.ID, h.Archived, h.Zstd = m[1], m[2], m[4] != ""
	}
	return h
}

// readFile reads a legacy transcript or an archive through pi's mapping.
func readFile(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	h := hintOf(src)
	f := &facts{ID: h.ID, Agent: h.Agent, Key: h.Key, Parent: h.Parent, Archived: h.Archived, Created: src.ModTime}
	if sessionIDBad(f.ID) {
		f.ID = adapters.RecordID([]byte(filepath.Base(src.Path)))
	}
	if f.Created.IsZero() {
		if info, err := os.Stat(src.Path); err == nil {
			f.Created = info.ModTime()
		} else {
			f.Created = time.Unix(0, 0)
		}
	}
	if len(h.Entry) > 0 {
		f.Kept = append(f.Kept, adapters.Field{Key: "entry", Value: h.Entry})
		if prior := restoredFacts(h.Entry); prior != nil {
			// A native restore of Pond's: the original's records stand for the restore's, and
			// its lineage for the index's.
			f.Prior = prior
			var e struct {
				Parent struct {
					Session string `json:"session"`
					Message string `json:"message"`
				} `json:"pondParent"`
			}
			if json.Unmarshal(h.Entry, &e) == nil && e.Parent.Session != "" {
				f.Parent, f.ParentMsg = e.Parent.Session, e.Parent.Message
			}
		}
	}
	host := f.host(filepath.Base(src.Path))
	if !h.Zstd {
		next, err := pi.ReadFile(ctx, env, src, cur, out, host)
		if err != nil {
			return adapters.Cursor{}, fmt.Errorf("openclaw: %w", err)
		}
		return next, nil
	}
	// A compressed archive is written once: read whole, within the decompression cap.
	file, err := os.Open(src.Path)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("openclaw: %w", err)
	}
	defer file.Close()
	dec, err := zstd.NewReader(file, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("openclaw: read %s: %w", src.Path, err)
	}
	defer dec.Close()
	limit := env.Limits.Decompressed()
	data, err := io.ReadAll(io.LimitReader(dec, limit+1))
	if err != nil {
		out.Malformed(adapters.Location{Path: src.Path}, fmt.Errorf("openclaw: %s: %w", src.Path, err))
	}
	if int64(len(data)) > limit {
		data = data[:limit]
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			data = data[:i+1]
		}
		out.Malformed(adapters.Location{Path: src.Path}, fmt.Errorf("openclaw: the rest of %s not read: decompressed, it is %w of %d bytes", src.Path, adapters.ErrTooLarge, limit))
	}
	lines := pi.NewLines(ctx, src, out, host)
	err = jsonl.Each(ctx, bytes.NewReader(data), src.Path, env.Limits.Line(), lines.Line, out.Malformed)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("openclaw: %w", err)
	}
	return adapters.Cursor{Stamp: src.Stamp}, nil
}
