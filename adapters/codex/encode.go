package codex

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// Codex CLI: sessions/YYYY/MM/DD/rollout-<local time>-<uuid>.jsonl. Codex finds a rollout by the
// uuid at the end of its name anywhere under sessions/, and checks it against the first
// session_meta; a sub-agent is a rollout of its own whose session_meta names its parent thread.

// Encode plans a restore into the agent (restore.Encoder).
func (*Adapter) Encode(j *restore.Job) (*restore.Plan, error) {
	root := j.Batch[0]
	p := &restore.Plan{Cwd: root.Session.Project, NeedsCwd: true}
	if j.Native {
		p.ID = root.Session.ID
	} else {
		p.ID = restore.NewUUID("codex-cli", root.Session.ID)
	}
	for i, t := range j.Batch {
		if j.Native {
			// The stored id names the file: it may come from someone else's export.
			if err := restore.CheckName(t.Session.ID, "id", t.Session.ID); err != nil {
				return nil, err
			}
			files, err := codexNative(j.Root, t)
			if err != nil {
				return nil, err
			}
			p.Files = append(p.Files, files...)
			continue
		}
		id, parent := p.ID, ""
		if i > 0 {
			id, parent = restore.NewUUID("codex-cli", t.Session.ID), p.ID
		}
		p.Files = append(p.Files, codexForeign(j, t, id, parent))
	}
	p.Argv = [][]string{{"codex", "resume", p.ID}}
	return p, nil
}

// codexNative replays a session's records: the thread's own file, and each later segment of a
// paginated thread (records whose options.source names their file) in a file of its own,
// named as Codex named it, in the date folder of the time in its name.
func codexNative(root string, t *restore.Transcript) ([]restore.Planned, error) {
	bySeg := map[string]*restore.Transcript{}
	var names []string
	for _, m := range t.Messages {
		name := restore.Source(m.Options["source"]).Str("file")
		st := bySeg[name]
		if st == nil {
			st = &restore.Transcript{Session: t.Session, Parts: t.Parts}
			bySeg[name] = st
			names = append(names, name)
		}
		st.Messages = append(st.Messages, m)
	}
	if len(names) == 0 {
		bySeg[""] = t
		names = []string{""}
	}
	slices.Sort(names)
	var files []restore.Planned
	for _, name := range names {
		path := codexPath(root, t.Session.ID, t.Session.CreatedAt)
		if name != "" {
			if err := restore.CheckName(t.Session.ID, "options.source.file", name); err != nil {
				return nil, err
			}
			id, seg := fileIDs(name)
			if !rolloutName.MatchString(name) || !strings.EqualFold(id, t.Session.ID) || seg == "" && fileTime(name).IsZero() {
				return nil, &restore.UnsafeError{Session: t.Session.ID, Field: "options.source.file", Value: name, Reason: "not the name of a segment of this thread's rollout"}
			}
			day := t.Session.CreatedAt.Local()
			if ft := fileTime(name); !ft.IsZero() {
				day = ft
			}
			path = restore.Under(root, "sessions/"+day.Format("2006/01/02")+"/"+name)
		}
		f := restore.NativeLines(path, bySeg[name])
		if !isUUID(t.Session.ID) {
			// Codex looks sessions up by the uuid in the file name only; an id that a
			// rollout without session_meta took from its file name is not kept either.
			f.Downgrade(restore.IDFromFileName)
		}
		files = append(files, f)
	}
	return files, nil
}

// codexPath is where Codex keeps a rollout: local-time date folders and file-name time.
func codexPath(root, id string, created time.Time) string {
	lt := created.Local()
	return restore.Under(root, "sessions/"+lt.Format("2006/01/02")+"/rollout-"+lt.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
}

type codexContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// codexForeign rebuilds a session as a rollout: session_meta (carrying the mark), then per user
// turn an event_msg/user_message and the response_item message, per assistant text the
// response_item and an event_msg/agent_message, per tool call a function_call and its
// function_call_output, as the minimal rollout Codex resumes from.
func codexForeign(j *restore.Job, t *restore.Transcript, id, parent string) restore.Planned {
	c := restore.Converse(t)
	var out []byte
	line := func(at time.Time, typ string, payload any) {
		out = append(out, restore.Marshal(map[string]any{"timestamp": restore.Stamp(at), "type": typ, "payload": payload})...)
		out = append(out, '\n')
	}
	meta := map[string]any{
		"id": id, "timestamp": restore.Stamp(t.Session.CreatedAt), "cwd": t.Session.Project,
		"originator": "codex_cli_rs", "cli_version": "0.0.0", "source": "cli", "model_provider": "openai",
		restore.MarkKey: restore.MarkJSON(t),
	}
	if parent != "" {
		meta["source"] = map[string]any{"subagent": map[string]any{"thread_spawn": map[string]any{"parent_thread_id": parent, "depth": 1}}}
	}
	line(t.Session.CreatedAt, "session_meta", meta)
	user := func(at time.Time, text string) {
		line(at, "event_msg", map[string]any{"type": "user_message", "message": text, "images": []string{}})
		line(at, "response_item", map[string]any{"type": "message", "role": "user", "content": []codexContent{{Type: "input_text", Text: text}}})
	}
	user(t.Session.CreatedAt, restore.NoteText(t))
	for _, tu := range c.Turns {
		for _, it := range tu.Items {
			switch {
			case it.Kind == restore.ItemText && tu.Role == session.RoleAssistant:
				line(tu.At, "response_item", map[string]any{"type": "message", "role": "assistant", "content": []codexContent{{Type: "output_text", Text: it.Text}}})
				line(tu.At, "event_msg", map[string]any{"type": "agent_message", "message": it.Text})
			case it.Kind == restore.ItemText:
				user(tu.At, it.Text)
			case it.Kind == restore.ItemCall:
				line(tu.At, "response_item", map[string]any{"type": "function_call", "name": it.Name,
					"arguments": string(restore.ParamsObject(it.Params)), "call_id": it.CallID})
			case it.Kind == restore.ItemResult:
				// Current Codex reads the output as a string; a failure says so in its text.
				text := it.Text
				if it.IsError {
					text = "[the tool call failed] " + text
				}
				line(tu.At, "response_item", map[string]any{"type": "function_call_output", "call_id": it.CallID, "output": text})
			}
		}
	}
	return restore.NewFile(codexPath(j.Root, id, t.Session.CreatedAt), t.Session.ID, id, restore.Foreign, c.DroppedReason(), out)
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func isUUID(s string) bool { return uuidPattern.MatchString(s) }
