package pi

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// Pi: sessions/--<cwd>--/<timestamp>_<uuid>.jsonl, a header line then a tree of entries. pi
// opens any session file by path (pi --session <file>); a fork or child session names its
// parent's file in the header's parentSession.

// Encode plans a restore into the agent (restore.Encoder).
func (*Adapter) Encode(j *restore.Job) (*restore.Plan, error) {
	root := j.Batch[0]
	p := &restore.Plan{Cwd: root.Session.Project, NeedsCwd: true}
	var rootPath string
	for i, t := range j.Batch {
		var f restore.Planned
		if j.Native {
			src := restore.Source(t.Session.Options["source"])
			name, field := src.Str("file"), "options.source.file"
			if name == "" {
				name, field = piFileName(t.Session.CreatedAt, t.Session.ID), "id"
			}
			// The file name comes from the archive, which may hold someone else's export.
			if err := restore.CheckName(t.Session.ID, field, name); err != nil {
				return nil, err
			}
			f = restore.NativeLines(restore.Under(j.Root, "sessions/"+piProjectDir(t.Session.Project)+"/"+name), t)
		} else {
			f = piForeign(j, t, restore.NewUUID("pi-coding-agent", t.Session.ID), rootPath)
		}
		if i == 0 {
			p.ID, rootPath = f.ID, f.Path
		}
		p.Files = append(p.Files, f)
	}
	p.Argv = [][]string{{"pi", "--session", rootPath}}
	return p, nil
}

// piProjectDir is pi's folder for a cwd: "--" + the path without its leading separator, with
// '/', '\' and ':' as '-', + "--".
func piProjectDir(cwd string) string {
	s := strings.TrimLeft(cwd, `/\`)
	s = strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(s)
	return "--" + s + "--"
}

// piFileName is pi's file name for a session: its ISO creation time with ':' and '.' as '-'.
func piFileName(created time.Time, id string) string {
	ts := strings.NewReplacer(":", "-", ".", "-").Replace(restore.Stamp(created))
	return ts + "_" + id + ".jsonl"
}

type piText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// piForeign rebuilds a session as a version 3 pi file: the header (with the mark, and for a
// child the parent's file), then one message entry per user and assistant turn and one
// toolResult entry per result, each the child of the one before.
func piForeign(j *restore.Job, t *restore.Transcript, id, parentPath string) restore.Planned {
	c := restore.Converse(t)
	var out []byte
	write := func(v any) {
		out = append(out, restore.Marshal(v)...)
		out = append(out, '\n')
	}
	header := map[string]any{"type": "session", "version": 3, "id": id, "timestamp": restore.Stamp(t.Session.CreatedAt), "cwd": t.Session.Project, restore.MarkKey: restore.MarkJSON(t)}
	if parentPath != "" {
		header["parentSession"] = parentPath
	}
	write(header)
	var parent any // JSON null for the first entry
	entry := func(key string, at time.Time, msg map[string]any) {
		eid := restore.ShortHash(t.Session.ID+"\x00"+key, 8)
		msg["timestamp"] = at.UnixMilli()
		write(map[string]any{"type": "message", "id": eid, "parentId": parent, "timestamp": restore.Stamp(at), "message": msg})
		parent = eid
	}
	entry("note", t.Session.CreatedAt, map[string]any{"role": "user", "content": []piText{{Type: "text", Text: restore.NoteText(t)}}})
	for _, tu := range c.Turns {
		switch tu.Role {
		case session.RoleAssistant:
			var content []any
			stop := "stop"
			for _, it := range tu.Items {
				switch it.Kind {
				case restore.ItemText:
					content = append(content, piText{Type: "text", Text: it.Text})
				case restore.ItemCall:
					content = append(content, map[string]any{"type": "toolCall", "id": it.CallID, "name": it.Name, "arguments": json.RawMessage(restore.ParamsObject(it.Params))})
					stop = "toolUse"
				}
			}
			entry(tu.ID, tu.At, map[string]any{"role": "assistant", "content": content, "api": "", "provider": "", "model": tu.Model,
				"usage": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
					"cost": map[string]int{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
				"stopReason": stop})
		case session.RoleTool:
			for k, it := range tu.Items {
				entry(tu.ID+":"+string(rune('a'+k%26))+it.CallID, tu.At, map[string]any{"role": "toolResult", "toolCallId": it.CallID, "toolName": it.Name,
					"content": []piText{{Type: "text", Text: it.Text}}, "isError": it.IsError})
			}
		default:
			var content []piText
			for _, it := range tu.Items {
				content = append(content, piText{Type: "text", Text: it.Text})
			}
			entry(tu.ID, tu.At, map[string]any{"role": "user", "content": content})
		}
	}
	path := restore.Under(j.Root, "sessions/"+piProjectDir(t.Session.Project)+"/"+piFileName(t.Session.CreatedAt, id))
	return restore.NewFile(path, t.Session.ID, id, restore.Foreign, c.DroppedReason(), out)
}
