package qwen

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// Qwen Code: projects/<sanitized cwd>/chats/<session>.jsonl, sub-agents under
// projects/<sanitized cwd>/subagents/<session>/agent-<id>.jsonl with an agent-<id>.meta.json
// beside them. `qwen --resume <id>` looks only in the folder of the project it runs in, takes
// a file only when its first record's cwd is that project and every record carries the same
// sessionId (the 0.24 bundle's sessionBelongsToCurrentProject and prepareTranscriptRecords), so
// the command runs in the session's project.

// Encode plans a restore into the agent (restore.Encoder).
func (Adapter) Encode(j *restore.Job) (*restore.Plan, error) {
	root := j.Batch[0]
	p := &restore.Plan{Cwd: root.Session.Project, NeedsCwd: true}
	if j.Native {
		for _, t := range j.Batch {
			files, err := qwenNative(j, t)
			if err != nil {
				return nil, err
			}
			p.Files = append(p.Files, files...)
		}
		p.ID = p.Files[0].ID
	} else {
		p.ID = restore.NewUUID(Name, root.Session.ID)
		for i, t := range j.Batch {
			p.Files = append(p.Files, qwenForeign(j, t, p.ID, i > 0)...)
		}
	}
	p.Argv = [][]string{{"qwen", "--resume", p.ID}}
	return p, nil
}

// projectDir is Qwen's folder name for a cwd (sanitizeCwd): every character outside
// [A-Za-z0-9] becomes '-'. Qwen lower-cases the cwd first on Windows, where the restore's
// cwd is as captured.
func projectDir(cwd string) string {
	var b strings.Builder
	for _, r := range cwd {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			// JavaScript's replace works on UTF-16 code units: a rune beyond the BMP is two.
			b.WriteByte('-')
			if r > 0xFFFF {
				b.WriteByte('-')
			}
		}
	}
	return b.String()
}

// qwenNative replays a captured file where it was. An archived session goes back to
// chats/archive/, as it was: Qwen resumes it once it is unarchived. Every stored value that
// becomes part of the path is checked first: the archive may hold someone else's export.
func qwenNative(j *restore.Job, t *restore.Transcript) ([]restore.Planned, error) {
	src := restore.Source(t.Session.Options["source"])
	id, name := t.Session.ID, t.Session.ID
	// An archive written before ids were checked may hold one no encoder names anything after.
	if err := session.CheckID(id); err != nil {
		return nil, &restore.UnsafeError{Session: id, Field: "id", Value: id, Reason: err.Error()}
	}
	rel := src.Str("path")
	if strings.HasPrefix(rel, "projects/") && classify(rel).sessionID() == id {
		if err := restore.CheckRel(id, "options.source.path", rel); err != nil {
			return nil, err
		}
	} else {
		dir := "projects/" + projectDir(t.Session.Project)
		if src.Str("kind") == "subagent" {
			parent, _, _ := strings.Cut(id, "/agent-")
			agent := src.Str("agent_id")
			if err := restore.CheckName(id, "id", parent); err != nil {
				return nil, err
			}
			if err := restore.CheckName(id, "options.source.agent_id", agent); err != nil {
				return nil, err
			}
			rel = dir + "/subagents/" + parent + "/agent-" + agent + ".jsonl"
		} else {
			if !sessionFile.MatchString(id + ".jsonl") {
				// Not a name Qwen lists (a session imported from elsewhere): the file gets one.
				name = restore.NewUUID(Name, id)
			}
			rel = dir + "/chats/" + name + ".jsonl"
		}
	}
	recs, lost := restore.Records(t)
	fid := restore.Native
	if lost > 0 {
		fid = restore.Downgraded
	}
	data, closed := restore.ReplayLines(recs)
	f := restore.NewFile(restore.Under(j.Root, rel), id, name, fid, restore.LostReason(lost), data)
	if closed > 0 {
		f.Downgrade(restore.ClosedGapReason(closed))
	}
	if name != id {
		f.Downgrade(restore.IDFromFileName)
	}
	out := []restore.Planned{f}
	if meta := src["meta"]; len(meta) > 0 && src.Str("kind") == "subagent" {
		body := []byte(meta)
		var s string
		if json.Unmarshal(meta, &s) == nil {
			body = []byte(s)
		}
		side := restore.NewFile(restore.Under(j.Root, strings.TrimSuffix(rel, ".jsonl")+".meta.json"), id, id, restore.Native, "", body)
		side.Sidecar = true
		out = append(out, side)
	}
	return out, nil
}

// qwenRecord is one ChatRecord of a foreign restore, in the field order Qwen writes.
type qwenRecord struct {
	UUID           string          `json:"uuid"`
	ParentUUID     *string         `json:"parentUuid"`
	SessionID      string          `json:"sessionId"`
	Timestamp      string          `json:"timestamp"`
	Type           string          `json:"type"`
	Provenance     string          `json:"provenance"`
	Cwd            string          `json:"cwd"`
	Version        string          `json:"version"`
	AgentID        string          `json:"agentId,omitempty"`
	IsSidechain    bool            `json:"isSidechain,omitempty"`
	Model          string          `json:"model,omitempty"`
	Message        qwenContent     `json:"message"`
	ToolCallResult *qwenCallResult `json:"toolCallResult,omitempty"`
	Mark           json.RawMessage `json:"pond_restored_from,omitempty"`
}

type qwenContent struct {
	Role  string     `json:"role"`
	Parts []qwenPart `json:"parts"`
}

type qwenPart struct {
	Text             *string       `json:"text,omitempty"`
	FunctionCall     *qwenCall     `json:"functionCall,omitempty"`
	FunctionResponse *qwenResponse `json:"functionResponse,omitempty"`
}

type qwenCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type qwenResponse struct {
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Response map[string]string `json:"response"`
}

type qwenCallResult struct {
	CallID string `json:"callId"`
	Status string `json:"status"`
}

// provenances are Qwen's provenance per record type (createBaseRecord).
var provenances = map[string]string{"user": "real_user", "assistant": "assistant_output", "tool_result": "tool_result"}

// qwenForeign rebuilds a session as Qwen records: the note, then one user or assistant record
// per turn and one tool_result record per result, chained by parentUuid, all under the restored
// session's id. A child becomes a sub-agent transcript of the restored parent, with its
// sidecar.
func qwenForeign(j *restore.Job, t *restore.Transcript, rootID string, child bool) []restore.Planned {
	c := restore.Converse(t)
	dir := "projects/" + projectDir(t.Session.Project)
	rel := dir + "/chats/" + rootID + ".jsonl"
	agentID := ""
	if child {
		agentID = "pond-" + restore.ShortHash(t.Session.ID, 16)
		rel = dir + "/subagents/" + rootID + "/agent-" + agentID + ".jsonl"
	}
	var out []byte
	var parent *string
	emit := func(key, typ, at string, content qwenContent, model string, result *qwenCallResult, mark json.RawMessage) {
		u := restore.NewUUID(Name, t.Session.ID, key)
		rec := qwenRecord{UUID: u, ParentUUID: parent, SessionID: rootID, Timestamp: at, Type: typ, Provenance: provenances[typ],
			Cwd: t.Session.Project, Version: "pond-restore", AgentID: agentID, IsSidechain: child, Model: model,
			Message: content, ToolCallResult: result, Mark: mark}
		out = append(out, restore.Marshal(rec)...)
		out = append(out, '\n')
		parent = &u
	}
	note := restore.NoteText(t)
	emit("note", "user", restore.Stamp(t.Session.CreatedAt), qwenContent{Role: "user", Parts: []qwenPart{{Text: &note}}}, "", nil, restore.MarkJSON(t))
	for _, tu := range c.Turns {
		switch tu.Role {
		case session.RoleAssistant:
			var parts []qwenPart
			for _, it := range tu.Items {
				switch it.Kind {
				case restore.ItemText:
					parts = append(parts, qwenPart{Text: &it.Text})
				case restore.ItemCall:
					parts = append(parts, qwenPart{FunctionCall: &qwenCall{ID: restore.AnthropicCallID(it.CallID), Name: it.Name, Args: restore.ParamsObject(it.Params)}})
				}
			}
			emit(tu.ID, "assistant", restore.Stamp(tu.At), qwenContent{Role: "model", Parts: parts}, tu.Model, nil, nil)
		case session.RoleTool:
			for i, it := range tu.Items {
				if it.Kind != restore.ItemResult {
					continue
				}
				key, status := "output", "success"
				if it.IsError {
					key, status = "error", "error"
				}
				id := restore.AnthropicCallID(it.CallID)
				emit(fmt.Sprintf("%s:%d", tu.ID, i), "tool_result", restore.Stamp(tu.At),
					qwenContent{Role: "user", Parts: []qwenPart{{FunctionResponse: &qwenResponse{ID: id, Name: it.Name, Response: map[string]string{key: it.Text}}}}},
					"", &qwenCallResult{CallID: id, Status: status}, nil)
			}
		default:
			var parts []qwenPart
			for _, it := range tu.Items {
				parts = append(parts, qwenPart{Text: &it.Text})
			}
			emit(tu.ID, "user", restore.Stamp(tu.At), qwenContent{Role: "user", Parts: parts}, "", nil, nil)
		}
	}
	id := rootID
	if child {
		id += "/agent-" + agentID
	}
	files := []restore.Planned{restore.NewFile(restore.Under(j.Root, path.Clean(rel)), t.Session.ID, id, restore.Foreign, c.DroppedReason(), out)}
	if child {
		// Qwen lists a session's sub-agents from these sidecars (readAgentTrace).
		meta := restore.Marshal(map[string]any{"agentId": agentID, "agentType": "general-purpose",
			"description": "restored by Pond from " + t.Session.ID, "parentSessionId": rootID, "parentAgentId": nil,
			"createdAt": restore.Stamp(t.Session.CreatedAt), "status": "completed"})
		f := restore.NewFile(restore.Under(j.Root, strings.TrimSuffix(path.Clean(rel), ".jsonl")+".meta.json"), t.Session.ID, id, restore.Foreign, "", meta)
		f.Sidecar = true
		files = append(files, f)
	}
	return files
}
