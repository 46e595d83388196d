package claudecode

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// Claude Code: projects/<encoded cwd>/<session>.jsonl, sub-agents under
// <session>/subagents/agent-<id>.jsonl with an agent-<id>.meta.json beside them. Claude Code
// finds a session only from the folder of the cwd it ran in, so the command cds there first.

// Encode plans a restore into the agent (restore.Encoder).
func (Adapter) Encode(j *restore.Job) (*restore.Plan, error) {
	root := j.Batch[0]
	p := &restore.Plan{Cwd: root.Session.Project, NeedsCwd: true}
	if j.Native {
		p.ID = root.Session.ID
		for _, t := range j.Batch {
			files, err := claudeNative(j, t)
			if err != nil {
				return nil, err
			}
			p.Files = append(p.Files, files...)
		}
	} else {
		p.ID = restore.NewUUID("claude-code", root.Session.ID)
		for i, t := range j.Batch {
			p.Files = append(p.Files, claudeForeign(j, t, p.ID, i > 0)...)
		}
	}
	p.Argv = [][]string{{"claude", "--resume", p.ID}}
	return p, nil
}

// claudeProjectDir is Claude Code's folder name for a cwd: every character outside
// [A-Za-z0-9] becomes '-'. Claude Code shortens names above 200 characters with a hash of its
// runtime's own that Pond cannot reproduce; such names are cut and suffixed with a digest.
func claudeProjectDir(cwd string) string {
	var b strings.Builder
	for _, r := range cwd {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	s := b.String()
	if len(s) > 200 {
		s = s[:200] + "-" + restore.ShortHash(cwd, 8)
	}
	return s
}

// claudeNative replays a session where it was captured from (options.source.path), else where
// Claude Code would keep it. Every stored value that becomes part of the path is checked: the
// archive may hold someone else's export.
func claudeNative(j *restore.Job, t *restore.Transcript) ([]restore.Planned, error) {
	src := restore.Source(t.Session.Options["source"])
	id := t.Session.ID
	rel := src.Str("path")
	if strings.HasPrefix(rel, "projects/") {
		if err := restore.CheckRel(id, "options.source.path", rel); err != nil {
			return nil, err
		}
		if !strings.HasSuffix(rel, ".jsonl") {
			// Claude Code's transcripts are .jsonl files: anything else under its folder
			// is no session (settings, hooks) and is not written.
			return nil, &restore.UnsafeError{Session: id, Field: "options.source.path", Value: rel, Reason: "not a .jsonl transcript"}
		}
	} else {
		dir := "projects/" + claudeProjectDir(t.Session.Project)
		switch src.Str("kind") {
		case "subagent":
			if err := restore.CheckName(id, "parent_session_id", t.Session.ParentSessionID); err != nil {
				return nil, err
			}
			rel = dir + "/" + t.Session.ParentSessionID + "/subagents/"
			if wf := src.Str("workflow"); wf != "" {
				if err := restore.CheckName(id, "options.source.workflow", wf); err != nil {
					return nil, err
				}
				rel += "workflows/" + wf + "/"
			}
			if err := restore.CheckName(id, "options.source.agent_id", src.Str("agent_id")); err != nil {
				return nil, err
			}
			rel += "agent-" + src.Str("agent_id") + ".jsonl"
		case "legacy-subagent":
			if err := restore.CheckName(id, "options.source.agent_id", src.Str("agent_id")); err != nil {
				return nil, err
			}
			rel = dir + "/agent-" + src.Str("agent_id") + ".jsonl"
		default:
			if err := restore.CheckName(id, "id", id); err != nil {
				return nil, err
			}
			rel = dir + "/" + id + ".jsonl"
		}
	}
	out := []restore.Planned{restore.NativeLines(restore.Under(j.Root, rel), t)}
	if meta := src["meta"]; len(meta) > 0 && src.Str("kind") == "subagent" {
		body := []byte(meta)
		var s string
		if json.Unmarshal(meta, &s) == nil {
			body = []byte(s)
		}
		f := restore.NewFile(restore.Under(j.Root, strings.TrimSuffix(rel, ".jsonl")+".meta.json"), t.Session.ID, t.Session.ID, restore.Native, "", body)
		f.Sidecar = true
		out = append(out, f)
	}
	return out, nil
}

// claudeLine is one transcript line of a foreign restore, in the field order Claude Code writes.
type claudeLine struct {
	ParentUUID  *string         `json:"parentUuid"`
	IsSidechain bool            `json:"isSidechain"`
	UserType    string          `json:"userType"`
	Cwd         string          `json:"cwd"`
	SessionID   string          `json:"sessionId"`
	Version     string          `json:"version"`
	AgentID     string          `json:"agentId,omitempty"`
	Type        string          `json:"type"`
	Message     any             `json:"message"`
	UUID        string          `json:"uuid"`
	Timestamp   string          `json:"timestamp"`
	Mark        json.RawMessage `json:"pond_restored_from,omitempty"`
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// claudeForeign rebuilds a session as Claude Code lines: the note, then one user, assistant or
// tool-result line per turn, chained by parentUuid. A child becomes a sub-agent transcript of
// the restored parent.
func claudeForeign(j *restore.Job, t *restore.Transcript, rootID string, child bool) []restore.Planned {
	c := restore.Converse(t)
	sessionID, agentID := rootID, ""
	rel := "projects/" + claudeProjectDir(t.Session.Project) + "/" + rootID + ".jsonl"
	if child {
		agentID = "a" + restore.ShortHash(t.Session.ID, 16)
		rel = "projects/" + claudeProjectDir(t.Session.Project) + "/" + rootID + "/subagents/agent-" + agentID + ".jsonl"
	}
	var out []byte
	var parent *string
	emit := func(typ, key string, at string, msg any, mark json.RawMessage) {
		u := restore.NewUUID("claude-code", t.Session.ID, key)
		l := claudeLine{ParentUUID: parent, IsSidechain: child, UserType: "external", Cwd: t.Session.Project,
			SessionID: sessionID, Version: "pond-restore", AgentID: agentID, Type: typ, Message: msg, UUID: u,
			Timestamp: at, Mark: mark}
		out = append(out, restore.Marshal(l)...)
		out = append(out, '\n')
		parent = &u
	}
	emit("user", "note", restore.Stamp(t.Session.CreatedAt), map[string]any{"role": "user", "content": restore.NoteText(t)}, restore.MarkJSON(t))
	for _, tu := range c.Turns {
		var blocks []claudeBlock
		for _, it := range tu.Items {
			switch it.Kind {
			case restore.ItemText:
				blocks = append(blocks, claudeBlock{Type: "text", Text: it.Text})
			case restore.ItemCall:
				blocks = append(blocks, claudeBlock{Type: "tool_use", ID: restore.AnthropicCallID(it.CallID), Name: it.Name, Input: restore.ParamsObject(it.Params)})
			case restore.ItemResult:
				text := it.Text
				blocks = append(blocks, claudeBlock{Type: "tool_result", ToolUseID: restore.AnthropicCallID(it.CallID), Content: &text, IsError: it.IsError})
			}
		}
		if tu.Role == session.RoleAssistant {
			stop := "end_turn"
			if blocks[len(blocks)-1].Type == "tool_use" {
				stop = "tool_use"
			}
			model := tu.Model
			if model == "" {
				model = "unknown"
			}
			emit("assistant", tu.ID, restore.Stamp(tu.At), map[string]any{
				"id": "msg_pond_" + restore.ShortHash(t.Session.ID+"\x00"+tu.ID, 24), "type": "message", "role": "assistant",
				"model": model, "content": blocks, "stop_reason": stop, "stop_sequence": nil,
				"usage": map[string]int{"input_tokens": 0, "output_tokens": 0},
			}, nil)
			continue
		}
		emit("user", tu.ID, restore.Stamp(tu.At), map[string]any{"role": "user", "content": blocks}, nil)
	}
	id := sessionID
	if child {
		id += "/agent-" + agentID
	}
	return []restore.Planned{restore.NewFile(restore.Under(j.Root, path.Clean(rel)), t.Session.ID, id, restore.Foreign, c.DroppedReason(), out)}
}
