package cline

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// Cline restores into the SDK store: sessions/<id>/<id>.json (the manifest) and
// <id>.messages.json, which `cline --id <id>` resumes (cline 3.0.65 lists its history from
// the manifests; sessions.db, its index, is not needed and Pond writes no agent database).
// A session captured from the SDK store is replayed there: the manifest, with messages_path
// pointed at where the messages land, the messages document rebuilt around its kept messages,
// the compaction document, and each sub-agent's messages file beside its root's. A legacy
// task is replayed as the task folder it was (tasks/<id>/), and rebuilt as an SDK session too,
// since cline reads no task folder. Any other session is rebuilt as an SDK session.

// Encode plans a restore into the agent (restore.Encoder).
func (Adapter) Encode(j *restore.Job) (*restore.Plan, error) {
	root := j.Batch[0]
	p := &restore.Plan{Cwd: root.Session.Project}
	switch {
	case j.Native && isTask(root):
		// The task folder goes back as it was, and beside it the session is rebuilt as an SDK
		// session under a new id, which is what `cline --id` resumes: cline 3.0.65 reads no
		// task folder (its original no more than its replay).
		for _, t := range j.Batch {
			fs, err := TaskFiles(j.Root, t, false)
			if err != nil {
				return nil, err
			}
			p.Files = append(p.Files, fs...)
		}
		p.ID = foreignID(root)
		p.Files = append(p.Files, foreignBatch(j.Root, p.ID, j.Batch)...)
	case j.Native:
		folder := root.Session.ID
		if root.Session.SourceAgent == SubagentAgent && root.Session.ParentSessionID != "" {
			folder = root.Session.ParentSessionID
		}
		p.ID = root.Session.ID
		for _, t := range j.Batch {
			fs, err := nativeSDK(j.Root, folder, t)
			if err != nil {
				return nil, err
			}
			p.Files = append(p.Files, fs...)
		}
	default:
		p.ID = foreignID(root)
		p.Files = foreignBatch(j.Root, p.ID, j.Batch)
	}
	p.Argv = [][]string{{"cline", "--id", p.ID}}
	return p, nil
}

// isTask reports a session captured from a legacy task folder.
func isTask(t *restore.Transcript) bool {
	switch restore.Source(t.Session.Options["source"]).Str("file") {
	case "taskHistory.json", HistoryItemFile:
		return true
	}
	for _, m := range t.Messages {
		if f := restore.Source(m.Options["source"]).Str("file"); f == APIHistoryFile || f == UIMessagesFile {
			return true
		}
	}
	return false
}

// keptRecord is one raw record kept at capture, with the file it came from and its place in
// the file's list.
type keptRecord struct {
	file  string
	index int
	list  bool // an element of the file's list (else the file whole, or its envelope)
	id    string
	rec   json.RawMessage
}

// records collects what a transcript kept, by file; lost counts records the archive could not
// keep whole.
func records(t *restore.Transcript) (map[string][]keptRecord, json.RawMessage, restore.SourceOf, int) {
	lost := 0
	byFile := map[string][]keptRecord{}
	src, sessRec, _ := restore.KeptRecord(t.Session.Options["source"], &lost)
	for _, m := range t.Messages {
		s, rec, ok := restore.KeptRecord(m.Options["source"], &lost)
		if !ok {
			continue
		}
		_, list := s["index"]
		f := s.Str("file")
		byFile[f] = append(byFile[f], keptRecord{file: f, index: s.Int("index"), list: list, id: m.ID, rec: rec})
	}
	for f := range byFile {
		sort.SliceStable(byFile[f], func(a, b int) bool { return byFile[f][a].index < byFile[f][b].index })
	}
	return byFile, sessRec, src, lost
}

// document rebuilds a kept messages document: its envelope (the record without an index)
// around its list; a bare list when it had no envelope.
func document(recs []keptRecord) []byte {
	var env json.RawMessage
	var list []json.RawMessage
	for _, r := range recs {
		if r.list {
			list = append(list, r.rec)
		} else if env == nil {
			env = r.rec
		}
	}
	return BuildDocument(env, list)
}

// nativeSDK replays a session of the SDK store into sessions/<folder>/.
func nativeSDK(root, folder string, t *restore.Transcript) ([]restore.Planned, error) {
	id := t.Session.ID
	if err := restore.CheckName(id, "id", folder); err != nil {
		return nil, err
	}
	byFile, sessRec, src, lost := records(t)
	dir := "sessions/" + folder + "/"
	msgName := id + messagesSuffix
	var out []restore.Planned
	if t.Session.SourceAgent == SubagentAgent {
		msgName = src.Str("file")
		if msgName == "" {
			msgName = strings.TrimPrefix(id, folder+"__") + messagesSuffix
		}
	} else if sessRec != nil {
		// The manifest, messages_path pointing at where the messages land now.
		var fs []adapters.Field
		_ = adapters.EachMember(sessRec, func(key string, val json.RawMessage, _ int) error {
			fs = append(fs, adapters.Field{Key: key, Value: val})
			return nil
		})
		if src.Str("path") != "" {
			fs = append(fs, adapters.Field{Key: "messages_path", Value: adapters.String(restore.Under(root, dir+msgName))})
		}
		f := restore.NewFile(restore.Under(root, dir+id+".json"), id, id, restore.Native, "", adapters.Object(fs...))
		f.Sidecar = true
		out = append(out, f)
	}
	if err := restore.CheckName(id, "messages file", msgName); err != nil {
		return nil, err
	}
	main := restore.NewFile(restore.Under(root, dir+msgName), id, id, restore.Native, "", document(byFile[msgName]))
	if lost > 0 {
		main.Downgrade(restore.LostReason(lost))
	}
	out = append([]restore.Planned{main}, out...)
	if c := byFile[id+compactionSuffix]; len(c) > 0 {
		f := restore.NewFile(restore.Under(root, dir+id+compactionSuffix), id, id, restore.Native, "", c[0].rec)
		f.Sidecar = true
		out = append(out, f)
	}
	return out, nil
}

// TaskFiles replays a session captured from a task folder (Cline's legacy tasks, Roo Code's)
// into tasks/<id>/ under root: the model's history, the UI records and the other files as they
// were, and the history item as history_item.json (Roo Code's file; Cline keeps the item in
// its task list, state/taskHistory.json, which a restore does not rewrite: listed says whether
// the agent lists a task by that file).
func TaskFiles(root string, t *restore.Transcript, listed bool) ([]restore.Planned, error) {
	id := t.Session.ID
	if err := restore.CheckName(id, "id", id); err != nil {
		return nil, err
	}
	byFile, sessRec, _, lost := records(t)
	dir := "tasks/" + id + "/"
	main := restore.NewFile(restore.Under(root, dir+APIHistoryFile), id, id, restore.Native, "", document(byFile[APIHistoryFile]))
	if lost > 0 {
		main.Downgrade(restore.LostReason(lost))
	}
	out := []restore.Planned{main}
	side := func(name string, data []byte) {
		f := restore.NewFile(restore.Under(root, dir+name), id, id, restore.Native, "", data)
		f.Sidecar = true
		out = append(out, f)
	}
	if sessRec != nil {
		side(HistoryItemFile, sessRec)
		if !listed {
			main.Downgrade("left out of Cline's task list (state/taskHistory.json, which a restore does not rewrite): the task folder holds its history item as history_item.json")
			out[0] = main
		}
	}
	if recs := byFile[UIMessagesFile]; len(recs) > 0 {
		side(UIMessagesFile, document(recs))
	}
	for _, name := range wholeFiles {
		if recs := byFile[name]; len(recs) > 0 {
			side(name, recs[0].rec)
		}
	}
	return out, nil
}

// foreignID is the SDK id of a foreign restore: the SDK's "<ms>_<5 base-36 digits>" shape,
// from the session's start and a digest of its id.
func foreignID(t *restore.Transcript) string {
	return fmt.Sprintf("%d_%s", t.Session.CreatedAt.UnixMilli(), restore.ShortHash(t.Session.ID, 5))
}

// sdkMessage is a message of the SDK's messages document.
type sdkMessage struct {
	ID      string `json:"id"`
	Role    string `json:"role"`
	Content []any  `json:"content"`
	TS      int64  `json:"ts"`
}

// Conversation turns as an SDK messages list: user text, assistant text and tool_use blocks,
// tool results as a user message of tool_result blocks (as the SDK writes them), each call's
// results in the message right after its call's: Cline's model client (Anthropic's API)
// refuses a history whose tool result does not follow its call, which a session whose records
// came out of order (a Codex rollout's late function output) would otherwise give it.
func sdkMessages(t *restore.Transcript, c *restore.Conversation, prefix string) []json.RawMessage {
	var out []json.RawMessage
	n := 0
	add := func(role string, at int64, content []any) {
		n++
		out = append(out, restore.Marshal(sdkMessage{ID: fmt.Sprintf("%s_%d", prefix, n), Role: role, Content: content, TS: at}))
	}
	result := func(it restore.Item) any {
		return map[string]any{"type": "tool_result", "tool_use_id": restore.AnthropicCallID(it.CallID), "name": it.Name, "content": it.Text, "is_error": it.IsError}
	}
	called := map[string]bool{}
	for _, tu := range c.Turns {
		for _, it := range tu.Items {
			if it.Kind == restore.ItemCall {
				called[it.CallID] = true
			}
		}
	}
	type answer struct {
		it restore.Item
		at int64
	}
	results := map[string][]answer{} // by call id, for calls the conversation holds
	for _, tu := range c.Turns {
		for _, it := range tu.Items {
			if it.Kind == restore.ItemResult && called[it.CallID] {
				results[it.CallID] = append(results[it.CallID], answer{it, tu.At.UnixMilli()})
			}
		}
	}
	add("user", t.Session.CreatedAt.UnixMilli(), []any{map[string]any{"type": "text", "text": restore.NoteText(t)}})
	for _, tu := range c.Turns {
		at := tu.At.UnixMilli()
		var content, answers []any
		answeredAt := at
		role := "user"
		for _, it := range tu.Items {
			switch it.Kind {
			case restore.ItemText:
				content = append(content, map[string]any{"type": "text", "text": it.Text})
			case restore.ItemCall:
				content = append(content, map[string]any{"type": "tool_use", "id": restore.AnthropicCallID(it.CallID), "name": it.Name, "input": restore.ParamsObject(it.Params)})
				for _, r := range results[it.CallID] {
					answers = append(answers, result(r.it))
					answeredAt = max(answeredAt, r.at)
				}
			case restore.ItemResult:
				if !called[it.CallID] {
					content = append(content, result(it))
				} // else it follows its call
			}
		}
		if tu.Role == session.RoleAssistant {
			role = "assistant"
		}
		if len(content) > 0 {
			add(role, at, content)
		}
		if len(answers) > 0 {
			add("user", answeredAt, answers)
		}
	}
	return out
}

// foreignBatch rebuilds a batch as the SDK session id: the root, then its sub-agents' messages
// files beside it.
func foreignBatch(root, id string, batch []*restore.Transcript) []restore.Planned {
	var out []restore.Planned
	for i, t := range batch {
		stem := id
		if i > 0 {
			stem = "agent_" + restore.ShortHash(t.Session.ID, 12)
		}
		out = append(out, foreignSDK(root, id, stem, t, i == 0)...)
	}
	return out
}

// foreignSDK rebuilds a session as an SDK session in sessions/<folder>/: the root with a
// manifest (the restore mark in its metadata) and a messages document, a sub-agent as a
// messages file <stem>.messages.json beside it.
func foreignSDK(root, folder, stem string, t *restore.Transcript, main bool) []restore.Planned {
	c := restore.Converse(t)
	dir := "sessions/" + folder + "/"
	msgPath := restore.Under(root, dir+stem+messagesSuffix)
	sid := folder
	if !main {
		sid = SubagentSessionID(folder, stem)
	}
	fields := []adapters.Field{
		{Key: "version", Value: json.RawMessage("1")},
		{Key: "updated_at", Value: adapters.String(restore.Stamp(lastAt(t)))},
		{Key: "agent", Value: adapters.String(map[bool]string{true: "lead", false: stem}[main])},
		{Key: "sessionId", Value: adapters.String(sid)},
	}
	if !main {
		// A sub-agent has no manifest of its own to carry Pond's mark.
		fields = append(fields, adapters.Field{Key: adapters.RestoreMarkKey, Value: restore.Marshal(restore.MarkOf(t))})
	}
	fields = append(fields, adapters.Field{Key: "messages", Value: BuildDocument(nil, sdkMessages(t, c, "msg_"+restore.ShortHash(t.Session.ID, 8)))})
	doc := adapters.Object(fields...)
	f := restore.NewFile(msgPath, t.Session.ID, sid, restore.Foreign, c.DroppedReason(), doc)
	if !main {
		return []restore.Planned{f}
	}
	model := "unknown"
	for _, tu := range c.Turns {
		if tu.Model != "" {
			model = tu.Model
		}
	}
	md := map[string]any{"title": "Restored: " + t.Session.SourceAgent + " " + t.Session.ID, adapters.RestoreMarkKey: restore.MarkOf(t)}
	man := restore.Marshal(map[string]any{
		"version": 1, "session_id": folder, "source": "cli", "pid": 0, "started_at": restore.Stamp(t.Session.CreatedAt),
		"ended_at": restore.Stamp(lastAt(t)), "exit_code": 0, "status": "completed", "interactive": true,
		"provider": "anthropic", "model": model, "cwd": t.Session.Project, "workspace_root": t.Session.Project,
		"enable_tools": true, "enable_spawn": true, "enable_teams": false, "metadata": md, "messages_path": msgPath,
	})
	mf := restore.NewFile(restore.Under(root, dir+folder+".json"), t.Session.ID, sid, restore.Foreign, "", man)
	mf.Sidecar = true
	return []restore.Planned{f, mf}
}

// lastAt is the time of a transcript's last message, else its start.
func lastAt(t *restore.Transcript) (at time.Time) {
	at = t.Session.CreatedAt
	if n := len(t.Messages); n > 0 && t.Messages[n-1].Timestamp.After(at) {
		at = t.Messages[n-1].Timestamp
	}
	return at
}
