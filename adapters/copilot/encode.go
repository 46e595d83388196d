package copilot

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// Copilot CLI: session-state/<id>/events.jsonl. `copilot --resume <id>` loads a session by its
// folder's name from any working directory; it checks every event's envelope (id a UUID,
// timestamp with an offset, parentId a UUID or null) and that the first event is session.start,
// tolerates data keys and event types it does not know, and no longer resumes the flat
// session-state/<id>.jsonl of builds before 1.0 (1.0.102's own errors say so), so a session
// captured from one is restored into a folder. Sub-agents are events of their parent's file,
// so a native restore writes one file for a session and its sub-agents.

// restoreVersion is the copilotVersion of a foreign restore's session.start.
const restoreVersion = "pond-restore"

// Encode plans a restore into the agent (restore.Encoder).
func (Adapter) Encode(j *restore.Job) (*restore.Plan, error) {
	root := j.Batch[0]
	p := &restore.Plan{Cwd: root.Session.Project}
	switch {
	case j.Native && root.Session.SourceAgent != SubagentAgent:
		// The sub-agents go into their session's file; any other child (a detached run) is
		// a file of its own.
		main := []*restore.Transcript{root}
		var others [][]*restore.Transcript
		for _, t := range j.Batch[1:] {
			if t.Session.SourceAgent == SubagentAgent {
				main = append(main, t)
			} else {
				others = append(others, []*restore.Transcript{t})
			}
		}
		for _, b := range append([][]*restore.Transcript{main}, others...) {
			f, err := native(j.Root, b)
			if err != nil {
				return nil, err
			}
			p.Files = append(p.Files, f)
		}
		p.ID = p.Files[0].ID
	default:
		// A sub-agent asked for on its own is part of its parent's file, which it cannot
		// stand for: it is rebuilt as a session of its own, as a session of another agent is.
		p.ID = restore.NewUUID(Name, root.Session.ID)
		for i, t := range j.Batch {
			id, parent := p.ID, ""
			if i > 0 {
				id, parent = restore.NewUUID(Name, root.Session.ID, t.Session.ID), p.ID
			}
			f := foreign(j, t, id, parent)
			if j.Native {
				f.Downgrade("a Copilot sub-agent lives in its parent's events.jsonl, which was not restored: it was rebuilt as a session of its own")
			}
			p.Files = append(p.Files, f)
		}
	}
	p.Argv = [][]string{{"copilot", "--resume", p.ID}}
	return p, nil
}

// native replays the events captured from one file, a session's (batch[0]) and its
// sub-agents', in their lines' order, into session-state/<id>/events.jsonl under root.
func native(root string, batch []*restore.Transcript) (restore.Planned, error) {
	t := batch[0]
	id := t.Session.ID
	// An archive written before ids were checked may hold one no encoder names anything after.
	if err := restore.CheckName(id, "id", id); err != nil {
		return restore.Planned{}, err
	}
	var recs []restore.Record
	lost := 0
	var includes []string
	for i, tr := range batch {
		rs, l := restore.Records(tr)
		recs, lost = append(recs, rs...), lost+l
		if i > 0 {
			includes = append(includes, tr.Session.ID)
		}
	}
	sort.SliceStable(recs, func(a, b int) bool {
		if recs[a].Line != recs[b].Line {
			return recs[a].Line < recs[b].Line
		}
		return recs[a].Piece < recs[b].Piece
	})
	data, closed := restore.ReplayLines(recs)
	fid := restore.Native
	if lost > 0 {
		fid = restore.Downgraded
	}
	f := restore.NewFile(restore.Under(root, "session-state/"+id+"/events.jsonl"), id, id, fid, restore.LostReason(lost), data)
	f.Includes = includes
	if closed > 0 {
		f.Downgrade(restore.ClosedGapReason(closed))
	}
	if name := restore.Source(t.Session.Options["source"]).Str("name"); name != "" && name != id {
		// Copilot knew the session by a name that is no id (Pond named it after a digest):
		// the restored folder has Pond's name, so Copilot knows it by that.
		f.Downgrade(restore.IDFromFileName)
	}
	return f, nil
}

// envelope is one event as the CLI writes it, in its field order.
type envelope struct {
	Type      string  `json:"type"`
	Data      any     `json:"data"`
	ID        string  `json:"id"`
	Timestamp string  `json:"timestamp"`
	ParentID  *string `json:"parentId"`
}

type startData struct {
	SessionID      string       `json:"sessionId"`
	Version        int          `json:"version"`
	Producer       string       `json:"producer"`
	CopilotVersion string       `json:"copilotVersion"`
	StartTime      string       `json:"startTime"`
	Context        startContext `json:"context"`
}

type startContext struct {
	Cwd string `json:"cwd"`
}

type infoData struct {
	InfoType string `json:"infoType"`
	Message  string `json:"message"`
}

type userData struct {
	Content string `json:"content"`
}

type assistantData struct {
	MessageID    string        `json:"messageId"`
	Model        string        `json:"model,omitempty"`
	Content      string        `json:"content"`
	ToolRequests []toolRequest `json:"toolRequests"`
}

type toolRequest struct {
	ToolCallID string          `json:"toolCallId"`
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	Type       string          `json:"type"`
}

type completeData struct {
	ToolCallID string        `json:"toolCallId"`
	Success    bool          `json:"success"`
	Result     *resultData   `json:"result,omitempty"`
	Error      *errorMessage `json:"error,omitempty"`
}

type resultData struct {
	Content string `json:"content"`
}

type errorMessage struct {
	Message string `json:"message"`
}

// foreignMark is the restore mark a foreign restore writes in its session.info event: the
// stored session it came from and, for a sub-agent rebuilt as a session of its own, the
// restored session it belongs to.
type foreignMark struct {
	restore.Mark
	Parent string `json:"parent,omitempty"`
}

// foreign rebuilds one session as Copilot events, every one valid under the CLI's schema:
// session.start, the restore mark (a session.info), Pond's note, then per turn a user.message,
// an assistant.message per text (the turn's tool calls in its last one) and a
// tool.execution_complete per result, chained by parentId.
func foreign(j *restore.Job, t *restore.Transcript, id, parent string) restore.Planned {
	c := restore.Converse(t)
	var out []byte
	var prev *string
	n := 0
	emit := func(typ, at string, data any) {
		n++
		eid := restore.NewUUID(Name, id, fmt.Sprint(n))
		out = append(out, restore.Marshal(envelope{Type: typ, Data: data, ID: eid, Timestamp: at, ParentID: prev})...)
		out = append(out, '\n')
		prev = &eid
	}
	start := restore.Stamp(t.Session.CreatedAt)
	emit("session.start", start, startData{SessionID: id, Version: 1, Producer: "pond", CopilotVersion: restoreVersion,
		StartTime: start, Context: startContext{Cwd: t.Session.Project}})
	emit("session.info", start, infoData{InfoType: markInfo, Message: string(restore.Marshal(foreignMark{Mark: restore.MarkOf(t), Parent: parent}))})
	emit("user.message", start, userData{Content: restore.NoteText(t)})
	for _, tu := range c.Turns {
		at := restore.Stamp(tu.At)
		switch tu.Role {
		case session.RoleAssistant:
			var texts []string
			var calls []toolRequest
			for _, it := range tu.Items {
				switch it.Kind {
				case restore.ItemText:
					texts = append(texts, it.Text)
				case restore.ItemCall:
					calls = append(calls, toolRequest{ToolCallID: restore.AnthropicCallID(it.CallID), Name: it.Name,
						Arguments: restore.ParamsObject(it.Params), Type: "function"})
				}
			}
			if len(texts) == 0 {
				texts = []string{""}
			}
			for i, text := range texts {
				m := assistantData{MessageID: restore.NewUUID(Name, id, tu.ID, fmt.Sprint(i)), Model: tu.Model, Content: text, ToolRequests: []toolRequest{}}
				if i == len(texts)-1 && len(calls) > 0 {
					m.ToolRequests = calls
				}
				emit("assistant.message", at, m)
			}
		case session.RoleTool:
			for _, it := range tu.Items {
				if it.Kind != restore.ItemResult {
					continue
				}
				d := completeData{ToolCallID: restore.AnthropicCallID(it.CallID), Success: !it.IsError}
				if it.IsError {
					d.Error = &errorMessage{Message: it.Text}
				} else {
					d.Result = &resultData{Content: it.Text}
				}
				emit("tool.execution_complete", at, d)
			}
		default:
			for _, it := range tu.Items {
				emit("user.message", at, userData{Content: it.Text})
			}
		}
	}
	return restore.NewFile(restore.Under(j.Root, "session-state/"+id+"/events.jsonl"), t.Session.ID, id, restore.Foreign, c.DroppedReason(), out)
}

// markParent is the restored session a foreign restore's mark names as the one a rebuilt
// sub-agent belongs to; "" when none.
func markParent(mark json.RawMessage) string {
	var m foreignMark
	if json.Unmarshal(mark, &m) != nil || session.CheckID(m.Parent) != nil || strings.TrimSpace(m.Parent) == "" {
		return ""
	}
	return m.Parent
}
