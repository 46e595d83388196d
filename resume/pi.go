package resume

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/pondhq/pond/session"
)

// Pi: sessions/--<cwd>--/<timestamp>_<uuid>.jsonl, a header line then a tree of entries. pi
// opens any session file by path (pi --session <file>); a fork or child session names its
// parent's file in the header's parentSession.

func encodePi(j *encodeJob) (*plan, error) {
	root := j.batch[0]
	p := &plan{cwd: root.Session.Project, needsCwd: true}
	var rootPath string
	for i, t := range j.batch {
		var f planned
		if j.native {
			src := source(t.Session.Options["source"])
			name := src.str("file")
			if name == "" {
				name = piFileName(t.Session.CreatedAt, t.Session.ID)
			}
			recs, lost := records(t)
			fid := Native
			if lost > 0 {
				fid = Downgraded
			}
			f = newFile(under(j.dest.root, "sessions/"+piProjectDir(t.Session.Project)+"/"+name), t.Session.ID, t.Session.ID, fid, lostReason(lost), replayLines(recs))
		} else {
			f = piForeign(j, t, newUUID("pi-coding-agent", t.Session.ID), rootPath)
		}
		if i == 0 {
			p.id, rootPath = f.ID, f.Path
		}
		p.files = append(p.files, f)
	}
	p.command = cdThen(p.cwd, "pi --session "+shellQuote(rootPath))
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
	ts := strings.NewReplacer(":", "-", ".", "-").Replace(stamp(created))
	return ts + "_" + id + ".jsonl"
}

type piText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// piForeign rebuilds a session as a version 3 pi file: the header (with the mark, and for a
// child the parent's file), then one message entry per user and assistant turn and one
// toolResult entry per result, each the child of the one before.
func piForeign(j *encodeJob, t *Transcript, id, parentPath string) planned {
	c := converse(t)
	var out []byte
	write := func(v any) {
		out = append(out, marshal(v)...)
		out = append(out, '\n')
	}
	header := map[string]any{"type": "session", "version": 3, "id": id, "timestamp": stamp(t.Session.CreatedAt), "cwd": t.Session.Project, MarkKey: markJSON(t)}
	if parentPath != "" {
		header["parentSession"] = parentPath
	}
	write(header)
	var parent any // JSON null for the first entry
	entry := func(key string, at time.Time, msg map[string]any) {
		eid := shortHash(t.Session.ID+"\x00"+key, 8)
		msg["timestamp"] = at.UnixMilli()
		write(map[string]any{"type": "message", "id": eid, "parentId": parent, "timestamp": stamp(at), "message": msg})
		parent = eid
	}
	entry("note", t.Session.CreatedAt, map[string]any{"role": "user", "content": []piText{{Type: "text", Text: noteText(t)}}})
	for _, tu := range c.turns {
		switch tu.role {
		case session.RoleAssistant:
			var content []any
			stop := "stop"
			for _, it := range tu.items {
				switch it.kind {
				case itemText:
					content = append(content, piText{Type: "text", Text: it.text})
				case itemCall:
					content = append(content, map[string]any{"type": "toolCall", "id": it.callID, "name": it.name, "arguments": json.RawMessage(paramsObject(it.params))})
					stop = "toolUse"
				}
			}
			entry(tu.id, tu.at, map[string]any{"role": "assistant", "content": content, "api": "", "provider": "", "model": tu.model,
				"usage": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
					"cost": map[string]int{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
				"stopReason": stop})
		case session.RoleTool:
			for k, it := range tu.items {
				entry(tu.id+":"+string(rune('a'+k%26))+it.callID, tu.at, map[string]any{"role": "toolResult", "toolCallId": it.callID, "toolName": it.name,
					"content": []piText{{Type: "text", Text: it.text}}, "isError": it.isError})
			}
		default:
			var content []piText
			for _, it := range tu.items {
				content = append(content, piText{Type: "text", Text: it.text})
			}
			entry(tu.id, tu.at, map[string]any{"role": "user", "content": content})
		}
	}
	path := under(j.dest.root, "sessions/"+piProjectDir(t.Session.Project)+"/"+piFileName(t.Session.CreatedAt, id))
	return newFile(path, t.Session.ID, id, Foreign, c.droppedReason(), out)
}
