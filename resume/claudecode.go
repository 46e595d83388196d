package resume

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/pondhq/pond/session"
)

// Claude Code: projects/<encoded cwd>/<session>.jsonl, sub-agents under
// <session>/subagents/agent-<id>.jsonl with an agent-<id>.meta.json beside them. Claude Code
// finds a session only from the folder of the cwd it ran in, so the command cds there first.

func encodeClaude(j *encodeJob) (*plan, error) {
	root := j.batch[0]
	p := &plan{cwd: root.Session.Project, needsCwd: true}
	if j.native {
		p.id = root.Session.ID
		for _, t := range j.batch {
			p.files = append(p.files, claudeNative(j, t)...)
		}
	} else {
		p.id = newUUID("claude-code", root.Session.ID)
		for i, t := range j.batch {
			p.files = append(p.files, claudeForeign(j, t, p.id, i > 0)...)
		}
	}
	p.command = cdThen(p.cwd, "claude --resume "+p.id)
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
		s = s[:200] + "-" + shortHash(cwd, 8)
	}
	return s
}

func claudeNative(j *encodeJob, t *Transcript) []planned {
	src := source(t.Session.Options["source"])
	rel := src.str("path")
	if !strings.HasPrefix(rel, "projects/") {
		dir := "projects/" + claudeProjectDir(t.Session.Project)
		switch src.str("kind") {
		case "subagent":
			rel = dir + "/" + t.Session.ParentSessionID + "/subagents/"
			if wf := src.str("workflow"); wf != "" {
				rel += "workflows/" + wf + "/"
			}
			rel += "agent-" + src.str("agent_id") + ".jsonl"
		case "legacy-subagent":
			rel = dir + "/agent-" + src.str("agent_id") + ".jsonl"
		default:
			rel = dir + "/" + t.Session.ID + ".jsonl"
		}
	}
	recs, lost := records(t)
	data := replayLines(recs)
	fid := Native
	if lost > 0 {
		fid = Downgraded
	}
	out := []planned{newFile(under(j.dest.root, rel), t.Session.ID, t.Session.ID, fid, lostReason(lost), data)}
	if meta := src["meta"]; len(meta) > 0 && src.str("kind") == "subagent" {
		body := []byte(meta)
		var s string
		if json.Unmarshal(meta, &s) == nil {
			body = []byte(s)
		}
		f := newFile(under(j.dest.root, strings.TrimSuffix(rel, ".jsonl")+".meta.json"), t.Session.ID, t.Session.ID, Native, "", body)
		f.Sidecar = true
		out = append(out, f)
	}
	return out
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
func claudeForeign(j *encodeJob, t *Transcript, rootID string, child bool) []planned {
	c := converse(t)
	sessionID, agentID := rootID, ""
	rel := "projects/" + claudeProjectDir(t.Session.Project) + "/" + rootID + ".jsonl"
	if child {
		agentID = "a" + shortHash(t.Session.ID, 16)
		rel = "projects/" + claudeProjectDir(t.Session.Project) + "/" + rootID + "/subagents/agent-" + agentID + ".jsonl"
	}
	var out []byte
	var parent *string
	emit := func(typ, key string, at string, msg any, mark json.RawMessage) {
		u := newUUID("claude-code", t.Session.ID, key)
		l := claudeLine{ParentUUID: parent, IsSidechain: child, UserType: "external", Cwd: t.Session.Project,
			SessionID: sessionID, Version: "pond-restore", AgentID: agentID, Type: typ, Message: msg, UUID: u,
			Timestamp: at, Mark: mark}
		out = append(out, marshal(l)...)
		out = append(out, '\n')
		parent = &u
	}
	emit("user", "note", stamp(t.Session.CreatedAt), map[string]any{"role": "user", "content": noteText(t)}, markJSON(t))
	for _, tu := range c.turns {
		var blocks []claudeBlock
		for _, it := range tu.items {
			switch it.kind {
			case itemText:
				blocks = append(blocks, claudeBlock{Type: "text", Text: it.text})
			case itemCall:
				blocks = append(blocks, claudeBlock{Type: "tool_use", ID: anthropicCallID(it.callID), Name: it.name, Input: paramsObject(it.params)})
			case itemResult:
				text := it.text
				blocks = append(blocks, claudeBlock{Type: "tool_result", ToolUseID: anthropicCallID(it.callID), Content: &text, IsError: it.isError})
			}
		}
		if tu.role == session.RoleAssistant {
			stop := "end_turn"
			if blocks[len(blocks)-1].Type == "tool_use" {
				stop = "tool_use"
			}
			model := tu.model
			if model == "" {
				model = "unknown"
			}
			emit("assistant", tu.id, stamp(tu.at), map[string]any{
				"id": "msg_pond_" + shortHash(t.Session.ID+"\x00"+tu.id, 24), "type": "message", "role": "assistant",
				"model": model, "content": blocks, "stop_reason": stop, "stop_sequence": nil,
				"usage": map[string]int{"input_tokens": 0, "output_tokens": 0},
			}, nil)
			continue
		}
		emit("user", tu.id, stamp(tu.at), map[string]any{"role": "user", "content": blocks}, nil)
	}
	id := sessionID
	if child {
		id += "/agent-" + agentID
	}
	return []planned{newFile(under(j.dest.root, path.Clean(rel)), t.Session.ID, id, Foreign, c.droppedReason(), out)}
}
