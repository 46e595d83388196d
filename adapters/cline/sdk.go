package cline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

const (
	messagesSuffix   = ".messages.json"
	compactionSuffix = ".compaction.json"
)

// scanSDK lists the SDK store's sessions under root/sessions: a source per session folder and
// per sub-agent messages file in it; ids are the folders' names.
func scanSDK(ctx context.Context, root string) ([]adapters.Source, map[string]bool, error) {
	dir := filepath.Join(root, "sessions")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, map[string]bool{}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cline: scan %s: %w", dir, err)
	}
	var srcs []adapters.Source
	ids := map[string]bool{}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		id := e.Name()
		folder := filepath.Join(dir, id)
		if strings.HasPrefix(id, ".") {
			continue
		}
		if fi, err := os.Stat(folder); err != nil || !fi.IsDir() {
			continue
		}
		files, err := os.ReadDir(folder)
		if err != nil {
			continue // removed while we looked
		}
		src := adapters.Source{Key: "sessions/" + id, Path: folder}
		var stamp []string
		for _, f := range files {
			name := f.Name()
			fi, err := os.Stat(filepath.Join(folder, name))
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			switch {
			case name == id+".json" || name == id+messagesSuffix || name == id+compactionSuffix:
				stamp = append(stamp, name+"@"+adapters.FileStamp(fi))
				src.Size += fi.Size()
				if fi.ModTime().After(src.ModTime) {
					src.ModTime = fi.ModTime()
				}
			case strings.HasSuffix(name, messagesSuffix) && !strings.HasPrefix(name, "."):
				ids[SubagentSessionID(id, strings.TrimSuffix(name, messagesSuffix))] = true
				srcs = append(srcs, adapters.Source{Key: "sessions/" + id + "/" + name, Path: filepath.Join(folder, name),
					Stamp: adapters.FileStamp(fi), Size: fi.Size(), ModTime: fi.ModTime()})
			}
		}
		if len(stamp) == 0 {
			continue
		}
		ids[id] = true
		sort.Strings(stamp)
		src.Stamp = strings.Join(stamp, " ")
		srcs = append(srcs, src)
	}
	sort.Slice(srcs, func(i, j int) bool { return srcs[i].Key < srcs[j].Key })
	return srcs, ids, nil
}

// manifest is what a session's manifest says.
type manifest struct {
	record  json.RawMessage // the manifest without messages_path
	path    string          // its messages_path
	cwd     string
	started time.Time
	parent  string
	mark    json.RawMessage
}

// readManifest reads a session folder's manifest; ok is false when there is none, or it is
// malformed (reported).
func readManifest(env adapters.Env, path string, out adapters.Emitter) (manifest, bool) {
	data, err := adapters.ReadFile(path, env.Limits.Line())
	if errors.Is(err, fs.ErrNotExist) {
		return manifest{}, false
	}
	if err != nil {
		out.Malformed(adapters.Location{Path: path}, err)
		return manifest{}, false
	}
	n, err := adapters.ReadObject(data, &adapters.Shape{Members: map[string]*adapters.Shape{"metadata": {Members: map[string]*adapters.Shape{"fork": {}}}}})
	if err != nil {
		out.Malformed(adapters.Location{Path: path}, err)
		return manifest{}, false
	}
	o := n.Object()
	m := manifest{path: o.Str("messages_path"), cwd: o.Str("cwd"), started: adapters.Time(o["started_at"])}
	if m.cwd == "" {
		m.cwd = o.Str("workspace_root")
	}
	md := n.Kid("metadata")
	if p := md.Kid("fork").Str("forkedFromSessionId"); p != "" && session.CheckID(p) == nil {
		m.parent = p
	}
	m.mark = adapters.Value(md.Object()[adapters.RestoreMarkKey])
	var fs []adapters.Field
	_ = adapters.EachMember(data, func(key string, val json.RawMessage, _ int) error {
		if key != "messages_path" || !o.IsStr(key) {
			fs = append(fs, adapters.Field{Key: key, Value: val})
		}
		return nil
	})
	m.record = adapters.Object(fs...)
	return m, true
}

// readSDK reads a session folder, or a sub-agent's messages file in one.
func readSDK(ctx context.Context, env adapters.Env, src adapters.Source, out adapters.Emitter) error {
	rel := strings.TrimPrefix(filepath.ToSlash(src.Key), "sessions/")
	folder, file, sub := strings.Cut(rel, "/")
	dir := src.Path
	if sub {
		dir = filepath.Dir(src.Path)
	}
	// A sub-agent takes its root's working directory; the root's read reports a bad manifest.
	report := out
	if sub {
		report = silent{out}
	}
	man, hasMan := readManifest(env, filepath.Join(dir, folder+".json"), report)
	s := &session.Session{ID: sessionID(folder), SourceAgent: Name, Project: man.cwd, CreatedAt: man.started}
	msgFile := folder + messagesSuffix
	if sub {
		stem := strings.TrimSuffix(file, messagesSuffix)
		s.ParentSessionID, s.SourceAgent, s.CreatedAt = s.ID, SubagentAgent, time.Time{}
		s.ID = sessionID(SubagentSessionID(folder, stem))
		msgFile = file
		s.Options = session.Options{"source": adapters.Object(adapters.Field{Key: "file", Value: adapters.String(file)})}
	} else {
		s.ParentSessionID = man.parent
		if hasMan {
			s.Options = session.Options{"source": adapters.Object(
				adapters.Field{Key: "file", Value: adapters.String(folder + ".json")},
				adapters.Field{Key: "path", Value: adapters.OptString(man.path)},
				adapters.Field{Key: "record", Value: man.record},
			)}
		}
	}
	msgPath := filepath.Join(dir, msgFile)
	doc := readDoc(env, msgPath, out)
	var compaction json.RawMessage
	if !sub {
		compaction = readWhole(env, filepath.Join(dir, folder+compactionSuffix), out)
	}
	if s.CreatedAt.IsZero() {
		s.CreatedAt = firstTime(doc)
	}
	if s.CreatedAt.IsZero() {
		s.CreatedAt = src.ModTime.UTC()
	}
	if s.Project == "" {
		s.Project = "unknown"
	}
	if hasMan && !sub {
		adapters.ApplyRestoreMark(s, man.mark)
	}
	if err := out.Event(session.Event{Session: s}); err != nil {
		return err
	}
	ms := &Messages{Out: out, Session: s.ID, File: msgFile, Path: msgPath, Seen: &adapters.SeenIDs{}, Last: s.CreatedAt}
	if err := emitDoc(ms, doc, "document"); err != nil {
		return err
	}
	if compaction != nil {
		m := &session.Message{SessionID: s.ID, ID: "compaction", Role: session.RoleSystem, Timestamp: ms.Last,
			Options: session.Options{"source": adapters.Object(
				adapters.Field{Key: "file", Value: adapters.String(folder + compactionSuffix)},
				adapters.Field{Key: "record", Value: compaction},
			)}}
		if err := out.Event(session.Event{Message: m}); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// SubagentSessionID is the SDK's id of the sub-agent whose messages file in the root session's
// folder is named <stem>.messages.json: "<root>__<agent>", or for a team task's
// "<agent>__<task>" file "<root>__teamtask__<agent>__<task>".
func SubagentSessionID(root, stem string) string {
	if strings.Contains(stem, "__") {
		return root + "__teamtask__" + stem
	}
	return root + "__" + stem
}

// readDoc reads a messages document; nil when there is none or it is not one (reported).
func readDoc(env adapters.Env, path string, out adapters.Emitter) *Document {
	data, err := adapters.ReadFile(path, env.Limits.Line())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		out.Malformed(adapters.Location{Path: path}, err)
		return nil
	}
	doc, err := ReadDocument(data)
	if err != nil {
		out.Malformed(adapters.Location{Path: path}, err)
		return nil
	}
	if doc.Err != nil {
		out.Malformed(adapters.Location{Path: path}, fmt.Errorf("cut short in message %d: %w", doc.ErrAt, doc.Err))
	}
	return doc
}

// readWhole reads a JSON file kept whole; nil when there is none or it is no JSON (reported).
func readWhole(env adapters.Env, path string, out adapters.Emitter) json.RawMessage {
	data, err := adapters.ReadFile(path, env.Limits.Line())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		_, err = adapters.ReadNode(data, nil)
	}
	if err != nil {
		out.Malformed(adapters.Location{Path: path}, err)
		return nil
	}
	return data
}

// firstTime is the first message's ts.
func firstTime(doc *Document) time.Time {
	if doc == nil {
		return time.Time{}
	}
	for _, raw := range doc.Messages {
		var m struct {
			TS json.RawMessage `json:"ts"`
		}
		if json.Unmarshal(raw, &m) == nil {
			if ts, ok := adapters.Int(m.TS); ok && ts > 0 {
				return time.UnixMilli(ts).UTC()
			}
		}
	}
	return time.Time{}
}

// emitDoc emits a document: its envelope (when it has one) as the system message envID, then
// its messages.
func emitDoc(ms *Messages, doc *Document, envID string) error {
	if doc == nil {
		return nil
	}
	if doc.Envelope != nil {
		m := &session.Message{SessionID: ms.Session, ID: envID, Role: session.RoleSystem, Timestamp: ms.Last,
			Options: session.Options{"source": adapters.Object(
				adapters.Field{Key: "file", Value: adapters.String(ms.File)},
				adapters.Field{Key: "record", Value: doc.EnvelopeRecord()},
			)}}
		if err := ms.Out.Event(session.Event{Message: m}); err != nil {
			return err
		}
	}
	for i, raw := range doc.Messages {
		if err := ms.Emit(i, raw); err != nil {
			return err
		}
	}
	return nil
}

// silent passes events on and drops reports.
type silent struct{ adapters.Emitter }

func (silent) Malformed(adapters.Location, error) {}
func (silent) Unknown(adapters.Location, string)  {}
