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
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// The files of a legacy task folder, in the order a read emits them after the model's history.
const (
	APIHistoryFile  = "api_conversation_history.json"
	UIMessagesFile  = "ui_messages.json"
	HistoryItemFile = "history_item.json" // Roo Code's
)

// wholeFiles are a task's other JSON files, each kept whole as a system message.
var wholeFiles = []string{"context_history.json", "task_metadata.json", "settings.json"}

// TaskConfig says whose task folders a read is of: Cline's, or a fork's that keeps the same
// layout (Roo Code, Kilo Code's extension).
type TaskConfig struct {
	Agent string // the SourceAgent of main sessions; sub-tasks get Agent + "/subagent"
}

// ScanTasks lists the task folders under root/tasks, one source each (key "tasks/<id>"),
// the task's history item from the root's task list in Hint; superseded says which ids
// another store holds (listed, not read).
func ScanTasks(ctx context.Context, root string, superseded func(id string) bool) ([]adapters.Source, error) {
	dir := filepath.Join(root, "tasks")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	items := taskHistory(root)
	var srcs []adapters.Source
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		id := e.Name()
		folder := filepath.Join(dir, id)
		if strings.HasPrefix(id, ".") || strings.HasPrefix(id, "_") {
			continue
		}
		files, err := os.ReadDir(folder)
		if err != nil {
			continue // not a folder, or removed while we looked
		}
		src := adapters.Source{Key: "tasks/" + id, Path: folder, Hint: string(items[id])}
		var stamp []string
		for _, f := range files {
			fi, err := os.Stat(filepath.Join(folder, f.Name()))
			if err != nil || !fi.Mode().IsRegular() || !strings.HasSuffix(f.Name(), ".json") {
				continue
			}
			stamp = append(stamp, f.Name()+"@"+adapters.FileStamp(fi))
			src.Size += fi.Size()
			if fi.ModTime().After(src.ModTime) {
				src.ModTime = fi.ModTime()
			}
		}
		if len(stamp) == 0 {
			continue
		}
		sort.Strings(stamp)
		if src.Hint != "" {
			stamp = append(stamp, "item@"+adapters.Digest([]byte(src.Hint)))
		}
		src.Stamp = strings.Join(stamp, " ")
		if superseded != nil && superseded(id) {
			src.Skip = adapters.SkipSuperseded
		}
		srcs = append(srcs, src)
	}
	return srcs, nil
}

// taskHistory reads a root's task list, state/taskHistory.json (else the taskHistory of
// globalState.json), by task id; unreadable lists give nothing.
func taskHistory(root string) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	list, err := os.ReadFile(filepath.Join(root, "state", "taskHistory.json"))
	if err != nil {
		state, err := os.ReadFile(filepath.Join(root, "globalState.json"))
		if err != nil {
			return out
		}
		n, err := adapters.ReadObject(state, nil)
		if err != nil {
			return out
		}
		list = n.Object()["taskHistory"]
	}
	_ = adapters.EachElem(list, func(val json.RawMessage, _ int) error {
		var item struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(val, &item) == nil {
			if id := adapters.Str(item.ID); id != "" {
				out[id] = val
			}
		}
		return nil
	})
	return out
}

// item is what a task's history item says.
type item struct {
	record json.RawMessage
	file   string
	cwd    string
	start  time.Time
	parent string
	mark   json.RawMessage
}

func readItem(raw json.RawMessage, file string) item {
	it := item{record: raw, file: file}
	n, err := adapters.ReadObject(raw, nil)
	if err != nil {
		return it
	}
	o := n.Object()
	it.cwd = o.Str("cwdOnTaskInitialization")
	if it.cwd == "" {
		it.cwd = o.Str("workspace")
	}
	if ts, ok := o.Int("ts"); ok && ts > 0 {
		it.start = time.UnixMilli(ts).UTC()
	}
	if p := o.Str("parentTaskId"); p != "" && session.CheckID(p) == nil {
		it.parent = p
	}
	it.mark = adapters.Value(o[adapters.RestoreMarkKey])
	return it
}

// ReadTask reads one task folder (a source from ScanTasks) as one session.
func ReadTask(ctx context.Context, env adapters.Env, src adapters.Source, cfg TaskConfig, out adapters.Emitter) error {
	dir := src.Path
	name := filepath.Base(dir)
	var it item
	if raw := readWhole(env, filepath.Join(dir, HistoryItemFile), out); raw != nil {
		it = readItem(raw, HistoryItemFile)
	} else if src.Hint != "" {
		it = readItem(json.RawMessage(src.Hint), "taskHistory.json")
	}
	s := &session.Session{ID: sessionID(name), SourceAgent: cfg.Agent, Project: it.cwd, CreatedAt: it.start}
	if it.parent != "" {
		s.ParentSessionID, s.SourceAgent = it.parent, cfg.Agent+"/subagent"
	}
	if it.record != nil {
		s.Options = session.Options{"source": adapters.Object(
			adapters.Field{Key: "file", Value: adapters.String(it.file)},
			adapters.Field{Key: "record", Value: it.record},
		)}
	}
	api := readDoc(env, filepath.Join(dir, APIHistoryFile), out)
	ui := readDoc(env, filepath.Join(dir, UIMessagesFile), out)
	if s.CreatedAt.IsZero() {
		if ms, err := strconv.ParseInt(name, 10, 64); err == nil && ms > 0 {
			s.CreatedAt = time.UnixMilli(ms).UTC() // task ids are the creation's Unix milliseconds
		}
	}
	for _, d := range []*Document{api, ui} {
		if s.CreatedAt.IsZero() {
			s.CreatedAt = firstTime(d)
		}
	}
	if s.CreatedAt.IsZero() {
		s.CreatedAt = src.ModTime.UTC()
	}
	if s.Project == "" {
		s.Project = "unknown"
	}
	adapters.ApplyRestoreMark(s, it.mark)
	if err := out.Event(session.Event{Session: s}); err != nil {
		return err
	}
	seen := &adapters.SeenIDs{}
	ms := &Messages{Out: out, Session: s.ID, File: APIHistoryFile, Path: filepath.Join(dir, APIHistoryFile), Seen: seen, Last: s.CreatedAt}
	if err := emitDoc(ms, api, "api_conversation_history"); err != nil {
		return err
	}
	if err := emitRecords(out, s.ID, seen, filepath.Join(dir, UIMessagesFile), ui, s.CreatedAt); err != nil {
		return err
	}
	for _, f := range wholeFiles {
		raw := readWhole(env, filepath.Join(dir, f), out)
		if raw == nil {
			continue
		}
		m := &session.Message{SessionID: s.ID, ID: seen.Next(strings.TrimSuffix(f, ".json")), Role: session.RoleSystem, Timestamp: ms.Last,
			Options: session.Options{"source": adapters.Object(
				adapters.Field{Key: "file", Value: adapters.String(f)},
				adapters.Field{Key: "record", Value: raw},
			)}}
		if err := out.Event(session.Event{Message: m}); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// emitRecords emits each element of a UI document as a part-less system message "ui-<ts>".
func emitRecords(out adapters.Emitter, sid string, seen *adapters.SeenIDs, path string, doc *Document, last time.Time) error {
	if doc == nil {
		return nil
	}
	file := filepath.Base(path)
	for i, raw := range doc.Messages {
		var rec struct {
			TS json.RawMessage `json:"ts"`
		}
		if err := json.Unmarshal(raw, &rec); err != nil {
			out.Malformed(adapters.Location{Path: path}, fmt.Errorf("record %d: %w", i, err))
			continue
		}
		id := adapters.RecordID(raw)
		if ts, ok := adapters.Int(rec.TS); ok && ts > 0 {
			last = time.UnixMilli(ts).UTC()
			id = "ui-" + strconv.FormatInt(ts, 10)
		}
		m := &session.Message{SessionID: sid, ID: seen.Next(id), Role: session.RoleSystem, Timestamp: last,
			Options: session.Options{"source": adapters.Object(
				adapters.Field{Key: "file", Value: adapters.String(file)},
				adapters.Field{Key: "index", Value: json.RawMessage(strconv.Itoa(i))},
				adapters.Field{Key: "record", Value: raw},
			)}}
		if err := out.Event(session.Event{Message: m}); err != nil {
			return err
		}
	}
	return nil
}
