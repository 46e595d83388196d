package roocode

import (
	"encoding/json"
	"strings"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/cline"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// Roo Code restores into a task folder, tasks/<id>/ under its folder in the editor's
// globalStorage, with history_item.json, api_conversation_history.json and ui_messages.json:
// the extension adopts any task folder with a history item (TaskHistoryStore.reconcile, also
// on a file-system event), and resumes it from its history list. A session captured from Roo
// Code (or Kilo Code's extension) is replayed as the folder it was; any other is rebuilt, its
// model history as Anthropic messages (which Roo Code still reads, and migrates to its
// version 2 form itself), sub-agents as sub-tasks.

// Encode plans a restore into the agent (restore.Encoder).
func (Adapter) Encode(j *restore.Job) (*restore.Plan, error) {
	root := j.Batch[0]
	p := &restore.Plan{Cwd: root.Session.Project}
	if j.Native {
		p.ID = root.Session.ID
		for _, t := range j.Batch {
			fs, err := cline.TaskFiles(j.Root, t, true)
			if err != nil {
				return nil, err
			}
			p.Files = append(p.Files, fs...)
		}
	} else {
		p.ID = restore.NewUUID(Name, root.Session.ID)
		var kids []string
		for _, t := range j.Batch[1:] {
			kids = append(kids, restore.NewUUID(Name, root.Session.ID, t.Session.ID))
		}
		for i, t := range j.Batch {
			id, parent := p.ID, ""
			if i > 0 {
				id, parent = kids[i-1], p.ID
			}
			p.Files = append(p.Files, foreign(j.Root, t, id, parent, kids, i)...)
		}
	}
	// Roo Code has no command of its own: the editor opens the workspace, and the task is in
	// Roo Code's history there.
	p.Argv = [][]string{{"code", p.Cwd}}
	return p, nil
}

// apiMessage is a message of the legacy (Anthropic) model history.
type apiMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"`
	TS      int64  `json:"ts"`
}

// uiMessage is a record of ui_messages.json.
type uiMessage struct {
	TS   int64  `json:"ts"`
	Type string `json:"type"`
	Say  string `json:"say"`
	Text string `json:"text"`
}

// foreign rebuilds one session as a Roo Code task folder.
func foreign(root string, t *restore.Transcript, id, parent string, kids []string, n int) []restore.Planned {
	c := restore.Converse(t)
	start := t.Session.CreatedAt.UnixMilli()
	note := restore.NoteText(t)
	api := []json.RawMessage{restore.Marshal(apiMessage{Role: "user", Content: []any{map[string]any{"type": "text", "text": note}}, TS: start})}
	ui := []json.RawMessage{restore.Marshal(uiMessage{TS: start, Type: "say", Say: "text", Text: note})}
	task := ""
	for _, tu := range c.Turns {
		at := tu.At.UnixMilli()
		var content []any
		role := "user"
		if tu.Role == session.RoleAssistant {
			role = "assistant"
		}
		for _, it := range tu.Items {
			switch it.Kind {
			case restore.ItemText:
				content = append(content, map[string]any{"type": "text", "text": it.Text})
				say := "text"
				if role == "user" {
					say = "user_feedback"
					if task == "" {
						task = it.Text
					}
				}
				ui = append(ui, restore.Marshal(uiMessage{TS: at, Type: "say", Say: say, Text: it.Text}))
			case restore.ItemCall:
				content = append(content, map[string]any{"type": "tool_use", "id": restore.AnthropicCallID(it.CallID), "name": it.Name, "input": restore.ParamsObject(it.Params)})
			case restore.ItemResult:
				content = append(content, map[string]any{"type": "tool_result", "tool_use_id": restore.AnthropicCallID(it.CallID), "content": it.Text, "is_error": it.IsError})
			}
		}
		if len(content) > 0 {
			api = append(api, restore.Marshal(apiMessage{Role: role, Content: content, TS: at}))
		}
	}
	if task == "" {
		task = "Restored: " + t.Session.SourceAgent + " " + t.Session.ID
	}
	if len(task) > 200 {
		task = strings.ToValidUTF8(task[:200], "")
	}
	item := map[string]any{
		"id": id, "number": n + 1, "ts": start, "task": task, "tokensIn": 0, "tokensOut": 0, "totalCost": 0,
		"workspace": t.Session.Project, "mode": "code", "status": "completed", adapters.RestoreMarkKey: restore.MarkOf(t),
	}
	if parent != "" {
		item["parentTaskId"], item["rootTaskId"] = parent, parent
	} else if len(kids) > 0 {
		item["childIds"] = kids
	}
	dir := "tasks/" + id + "/"
	main := restore.NewFile(restore.Under(root, dir+cline.APIHistoryFile), t.Session.ID, id, restore.Foreign, c.DroppedReason(), cline.BuildDocument(nil, api))
	side := func(name string, data []byte) restore.Planned {
		f := restore.NewFile(restore.Under(root, dir+name), t.Session.ID, id, restore.Foreign, "", data)
		f.Sidecar = true
		return f
	}
	return []restore.Planned{main, side(cline.HistoryItemFile, restore.Marshal(item)), side(cline.UIMessagesFile, cline.BuildDocument(nil, ui))}
}
