package resume

import (
	"regexp"
	"time"

	"github.com/pondhq/pond/session"
)

// Codex CLI: sessions/YYYY/MM/DD/rollout-<local time>-<uuid>.jsonl. Codex finds a rollout by the
// uuid at the end of its name anywhere under sessions/, and checks it against the first
// session_meta; a sub-agent is a rollout of its own whose session_meta names its parent thread.

func encodeCodex(j *encodeJob) (*plan, error) {
	root := j.batch[0]
	p := &plan{cwd: root.Session.Project, needsCwd: true}
	if j.native {
		p.id = root.Session.ID
	} else {
		p.id = newUUID("codex-cli", root.Session.ID)
	}
	for i, t := range j.batch {
		if j.native {
			recs, lost := records(t)
			fid := Native
			if lost > 0 {
				fid = Downgraded
			}
			f := newFile(codexPath(j.dest.root, t.Session.ID, t.Session.CreatedAt), t.Session.ID, t.Session.ID, fid, lostReason(lost), replayLines(recs))
			if !isUUID(t.Session.ID) {
				// Codex looks sessions up by the uuid in the file name only; an id that a
				// rollout without session_meta took from its file name is not kept either.
				f.downgrade(IDFromFileName)
			}
			p.files = append(p.files, f)
			continue
		}
		id, parent := p.id, ""
		if i > 0 {
			id, parent = newUUID("codex-cli", t.Session.ID), p.id
		}
		p.files = append(p.files, codexForeign(j, t, id, parent))
	}
	p.command = cdThen(p.cwd, "codex resume "+p.id)
	return p, nil
}

// codexPath is where Codex keeps a rollout: local-time date folders and file-name time.
func codexPath(root, id string, created time.Time) string {
	lt := created.Local()
	return under(root, "sessions/"+lt.Format("2006/01/02")+"/rollout-"+lt.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
}

type codexContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// codexForeign rebuilds a session as a rollout: session_meta (carrying the mark), then per user
// turn an event_msg/user_message and the response_item message, per assistant text the
// response_item and an event_msg/agent_message, per tool call a function_call and its
// function_call_output, as the minimal rollout Codex resumes from.
func codexForeign(j *encodeJob, t *Transcript, id, parent string) planned {
	c := converse(t)
	var out []byte
	line := func(at time.Time, typ string, payload any) {
		out = append(out, marshal(map[string]any{"timestamp": stamp(at), "type": typ, "payload": payload})...)
		out = append(out, '\n')
	}
	meta := map[string]any{
		"id": id, "timestamp": stamp(t.Session.CreatedAt), "cwd": t.Session.Project,
		"originator": "codex_cli_rs", "cli_version": "0.0.0", "source": "cli", "model_provider": "openai",
		MarkKey: markJSON(t),
	}
	if parent != "" {
		meta["source"] = map[string]any{"subagent": map[string]any{"thread_spawn": map[string]any{"parent_thread_id": parent, "depth": 1}}}
	}
	line(t.Session.CreatedAt, "session_meta", meta)
	user := func(at time.Time, text string) {
		line(at, "event_msg", map[string]any{"type": "user_message", "message": text, "images": []string{}})
		line(at, "response_item", map[string]any{"type": "message", "role": "user", "content": []codexContent{{Type: "input_text", Text: text}}})
	}
	user(t.Session.CreatedAt, noteText(t))
	for _, tu := range c.turns {
		for _, it := range tu.items {
			switch {
			case it.kind == itemText && tu.role == session.RoleAssistant:
				line(tu.at, "response_item", map[string]any{"type": "message", "role": "assistant", "content": []codexContent{{Type: "output_text", Text: it.text}}})
				line(tu.at, "event_msg", map[string]any{"type": "agent_message", "message": it.text})
			case it.kind == itemText:
				user(tu.at, it.text)
			case it.kind == itemCall:
				line(tu.at, "response_item", map[string]any{"type": "function_call", "name": it.name,
					"arguments": string(paramsObject(it.params)), "call_id": it.callID})
			case it.kind == itemResult:
				// Current Codex reads the output as a string; a failure says so in its text.
				text := it.text
				if it.isError {
					text = "[the tool call failed] " + text
				}
				line(tu.at, "response_item", map[string]any{"type": "function_call_output", "call_id": it.callID, "output": text})
			}
		}
	}
	return newFile(codexPath(j.dest.root, id, t.Session.CreatedAt), t.Session.ID, id, Foreign, c.droppedReason(), out)
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func isUUID(s string) bool { return uuidPattern.MatchString(s) }
