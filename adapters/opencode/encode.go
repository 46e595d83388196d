package opencode

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// OpenCode keeps its sessions in a SQLite database (opencode.db, WAL mode) that the running app
// owns, with migrations and an event log of its own; its legacy JSON tree is imported only once,
// on the first start of a database build. So a restore does not touch either: it writes the
// document `opencode export` writes ({info, messages: [{info, parts}]}) and the command runs
// `opencode import <file>` in the project folder, OpenCode's own supported way in. The documents
// go to pond-import/ under --out-dir, or under Pond's own data folder for a native restore.

// Encode plans a restore into the agent (restore.Encoder).
func (Adapter) Encode(j *restore.Job) (*restore.Plan, error) {
	root := j.Batch[0]
	dir := j.ImportDir
	if dir == "" {
		return nil, fmt.Errorf("no folder for OpenCode import documents: pass --out-dir")
	}
	p := &restore.Plan{Cwd: root.Session.Project, NeedsCwd: true}
	for i, t := range j.Batch {
		var doc json.RawMessage
		var id string
		f := restore.Planned{}
		if j.Native {
			// The stored id names the document: it may come from someone else's export.
			if err := restore.CheckName(t.Session.ID, "id", t.Session.ID); err != nil {
				return nil, err
			}
			var lost, unplaced int
			doc, lost, unplaced = openCodeNative(t)
			id = t.Session.ID
			f = restore.NewFile("", t.Session.ID, id, restore.Native, "", doc)
			if lost > 0 {
				f.Downgrade(restore.LostReason(lost))
			}
			if unplaced > 0 {
				f.Downgrade(fmt.Sprintf("%d row(s) of tables other than session, message and part have no place in an import document", unplaced))
			}
		} else {
			parent := ""
			if i > 0 {
				parent = p.ID
			}
			var reason string
			id = openCodeID("ses", t.Session.ID, t.Session.CreatedAt.UnixMilli()*4096)
			doc, reason = openCodeForeign(t, id, parent)
			f = restore.NewFile("", t.Session.ID, id, restore.Foreign, reason, doc)
		}
		f.Path = restore.Under(dir, "pond-import/"+id+".json")
		if i == 0 {
			p.ID = id
		}
		p.Argv = append(p.Argv, []string{"opencode", "import", f.Path})
		p.Files = append(p.Files, f)
	}
	p.Argv = append(p.Argv, []string{"opencode", "-s", p.ID})
	return p, nil
}

// openCodeNative rebuilds the export document from the rows or files kept at capture: a
// database row's `data` column is the object minus its ids, a legacy file is the object.
func openCodeNative(t *restore.Transcript) (doc json.RawMessage, lost, unplaced int) {
	var info map[string]json.RawMessage
	type msg struct {
		info    map[string]json.RawMessage
		parts   []map[string]json.RawMessage
		created int64
		id      string
	}
	msgs := map[string]*msg{}
	var order []string
	var parts []map[string]json.RawMessage
	// add takes the record kept on one canonical object; owner is the message a part belongs
	// to in the canonical model (hand-made legacy trees may leave the ids out of their files).
	add := func(opt json.RawMessage, owner, self string) {
		s, rec, ok := restore.KeptRecord(opt, &lost)
		if !ok {
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(rec, &obj) != nil {
			return
		}
		table := s.Str("table")
		if table == "" {
			table = legacyKind(s.Str("file"), obj)
		}
		if _, isRow := obj["data"]; isRow && s.Str("table") != "" && table != "session" {
			obj = rowObject(obj, table)
		}
		fill := func(k, v string) {
			if len(obj[k]) == 0 && v != "" {
				obj[k] = restore.Marshal(v)
			}
		}
		switch table {
		case "session":
			if s.Str("table") != "" {
				info = sessionRowInfo(obj)
			} else {
				info = obj
			}
		case "message":
			fill("id", self)
			fill("sessionID", t.Session.ID)
			id := jstr(obj["id"])
			if _, ok := msgs[id]; !ok {
				order = append(order, id)
				var tm struct {
					Created int64 `json:"created"`
				}
				_ = json.Unmarshal(obj["time"], &tm)
				msgs[id] = &msg{id: id, created: tm.Created}
			}
			msgs[id].info = obj
		case "part":
			if owner == "" {
				owner = partFolder(s.Str("file"))
			}
			fill("id", strings.TrimSuffix(self, ":0"))
			fill("sessionID", t.Session.ID)
			fill("messageID", owner)
			parts = append(parts, obj)
		default:
			unplaced++ // rows of tables an import document has no place for
		}
	}
	add(t.Session.Options["source"], "", t.Session.ID)
	for _, m := range t.Messages {
		add(m.Options["source"], "", m.ID)
		for _, p := range t.Parts[m.ID] {
			add(p.Options["source"], m.ID, p.ID)
		}
	}
	for _, p := range parts {
		if m := msgs[jstr(p["messageID"])]; m != nil {
			m.parts = append(m.parts, p)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := msgs[order[i]], msgs[order[j]]
		if a.created != b.created {
			return a.created < b.created
		}
		return a.id < b.id
	})
	fillLegacyMessages(order, func(id string) map[string]json.RawMessage { return msgs[id].info })
	type exported struct {
		Info  map[string]json.RawMessage   `json:"info"`
		Parts []map[string]json.RawMessage `json:"parts"`
	}
	if info != nil && len(info["slug"]) == 0 {
		// Sessions from before slugs (the legacy JSON tree) get one, as OpenCode's own
		// migration gives them: its import refuses a session without.
		info["slug"] = restore.Marshal("restored-" + restore.ShortHash(t.Session.ID, 8))
	}
	out := struct {
		Info     map[string]json.RawMessage `json:"info"`
		Messages []exported                 `json:"messages"`
	}{Info: info, Messages: []exported{}}
	for _, id := range order {
		m := msgs[id]
		if m.parts == nil {
			m.parts = []map[string]json.RawMessage{}
		}
		out.Messages = append(out.Messages, exported{Info: m.info, Parts: m.parts})
	}
	return restore.Marshal(out), lost, unplaced
}

// fillLegacyMessages gives messages of OpenCode's legacy JSON tree what `opencode import`
// requires and they did not record: an assistant's agent (it was called mode), a user
// message's agent and model (the model of the answer to it, else of the one before, else
// Pond's placeholder).
func fillLegacyMessages(order []string, info func(id string) map[string]json.RawMessage) {
	modelOf := func(m map[string]json.RawMessage) json.RawMessage {
		if p, id := jstr(m["providerID"]), jstr(m["modelID"]); p != "" && id != "" {
			return restore.Marshal(map[string]string{"providerID": p, "modelID": id})
		}
		return nil
	}
	var last json.RawMessage
	for i, id := range order {
		m := info(id)
		if m == nil {
			continue
		}
		switch jstr(m["role"]) {
		case "assistant":
			if len(m["agent"]) == 0 {
				agent := jstr(m["mode"])
				if agent == "" {
					agent = "build"
				}
				m["agent"] = restore.Marshal(agent)
			}
			if mo := modelOf(m); mo != nil {
				last = mo
			}
		case "user":
			if len(m["agent"]) == 0 {
				m["agent"] = restore.Marshal("build")
			}
			if len(m["model"]) > 0 {
				continue
			}
			model := last
			for _, next := range order[i+1:] {
				if n := info(next); n != nil && jstr(n["role"]) == "assistant" {
					if mo := modelOf(n); mo != nil {
						model = mo
					}
					break
				}
			}
			if model == nil {
				model = restore.Marshal(restoredModel) // the session names none
			}
			m["model"] = model
		}
	}
}

// partFolder is the message id a legacy part file's folder names: part/<message id>/<file>.
func partFolder(file string) string {
	el := strings.Split(file, "/")
	for i := len(el) - 2; i >= 1; i-- {
		if el[i-1] == "part" {
			return el[i]
		}
	}
	return ""
}

// legacyKind tells a legacy tree file's object apart by its folder (session/, message/, part/).
func legacyKind(file string, obj map[string]json.RawMessage) string {
	for _, k := range []string{"session", "message", "part"} {
		if strings.HasPrefix(file, k+"/") || strings.Contains(file, "/"+k+"/") {
			return k
		}
	}
	switch {
	case obj["messageID"] != nil:
		return "part"
	case obj["role"] != nil:
		return "message"
	}
	return "session"
}

// rowObject turns a message or part row into OpenCode's object: its data plus the ids.
func rowObject(row map[string]json.RawMessage, table string) map[string]json.RawMessage {
	obj := map[string]json.RawMessage{}
	_ = json.Unmarshal([]byte(jstr(row["data"])), &obj)
	obj["id"] = row["id"]
	obj["sessionID"] = row["session_id"]
	if table == "part" {
		obj["messageID"] = row["message_id"]
	}
	return obj
}

// sessionRowInfo maps a session row's columns onto the export's session info.
func sessionRowInfo(row map[string]json.RawMessage) map[string]json.RawMessage {
	info := map[string]json.RawMessage{}
	set := func(key, col string, isJSON bool) {
		v, ok := row[col]
		if !ok || string(v) == "null" {
			return
		}
		if isJSON {
			if s := jstr(v); s != "" && json.Valid([]byte(s)) {
				v = json.RawMessage(s)
			}
		}
		info[key] = v
	}
	set("id", "id", false)
	set("slug", "slug", false)
	set("projectID", "project_id", false)
	set("workspaceID", "workspace_id", false)
	set("directory", "directory", false)
	set("parentID", "parent_id", false)
	set("title", "title", false)
	set("version", "version", false)
	set("permission", "permission", true)
	set("revert", "revert", true)
	tm := map[string]json.RawMessage{}
	for key, col := range map[string]string{"created": "time_created", "updated": "time_updated", "compacting": "time_compacting", "archived": "time_archived"} {
		if v, ok := row[col]; ok && string(v) != "null" {
			tm[key] = v
		}
	}
	info["time"] = restore.Marshal(tm)
	if v := row["share_url"]; len(v) > 0 && string(v) != "null" {
		info["share"] = restore.Marshal(map[string]json.RawMessage{"url": v})
	}
	if v := row["summary_additions"]; len(v) > 0 && string(v) != "null" {
		sum := map[string]json.RawMessage{"additions": v, "deletions": row["summary_deletions"], "files": row["summary_files"]}
		if d := jstr(row["summary_diffs"]); d != "" && json.Valid([]byte(d)) {
			sum["diffs"] = json.RawMessage(d)
		}
		info["summary"] = restore.Marshal(sum)
	}
	return info
}

func jstr(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// openCodeID makes an OpenCode id: prefix, 12 hex digits of time order, 14 base62 characters
// derived from the original. Message and part ids ascend with seq (OpenCode orders by id);
// session ids descend (newer first), so the time bits are inverted.
func openCodeID(prefix, origin string, seq int64) string {
	const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	v := seq & (1<<48 - 1)
	if prefix == "ses" {
		v = ^v & (1<<48 - 1)
	}
	sum := sha256.Sum256([]byte(prefix + "\x00" + origin))
	var tail strings.Builder
	for i := 0; i < 14; i++ {
		tail.WriteByte(base62[int(sum[i])%62])
	}
	return fmt.Sprintf("%s_%012x%s", prefix, v, tail.String())
}

// restoredModel is the model a restored user message names when the session names none.
var restoredModel = map[string]string{"providerID": "pond", "modelID": "restored"}

// openCodeForeign rebuilds a session as an export document: the note as the first user
// message (its text part carries the mark in metadata), user messages with text parts,
// assistant messages with text parts and one tool part per call holding its result.
func openCodeForeign(t *restore.Transcript, id, parent string) (json.RawMessage, string) {
	c := restore.Converse(t)
	results := map[string]restore.Item{}
	for _, tu := range c.Turns {
		for _, it := range tu.Items {
			if it.Kind == restore.ItemResult {
				results[it.CallID] = it
			}
		}
	}
	created := t.Session.CreatedAt.UnixMilli()
	// Message and part ids count up from zero, not from the session's time: an id keeps only
	// the low 48 bits of milliseconds×4096, which wrap every 2.2 years, and Kilo CLI reads a
	// session's history in id order up to the message it adds. Ids minted from a 2025 session's
	// time sort after the ones Kilo mints today (the count wrapped in between), so `kilo run
	// --session` sent the model its new message alone; ids from zero sort before any it mints.
	// Their random-looking tail comes from the restored session's id, not the stored one's:
	// two stored sessions of one id (agents' ids are theirs; two fixtures named "small") must
	// not restore messages of one id into one database, where the second import lost them.
	var seq int64
	next := func(prefix string) string {
		seq++
		return openCodeID(prefix, fmt.Sprint(id, "\x00", seq), seq)
	}
	updated := created
	if n := len(c.Turns); n > 0 {
		updated = c.Turns[n-1].At.UnixMilli()
	}
	info := map[string]any{"id": id, "slug": "restored-" + restore.ShortHash(t.Session.ID, 8), "projectID": "global",
		"directory": t.Session.Project, "title": "Restored: " + t.Session.SourceAgent + " " + t.Session.ID,
		"version": "pond-restore", "time": map[string]int64{"created": created, "updated": updated}}
	if parent != "" {
		info["parentID"] = parent
	}
	type message struct {
		Info  map[string]any   `json:"info"`
		Parts []map[string]any `json:"parts"`
	}
	var msgs []message
	lastUser := ""
	user := func(at int64, texts []string, meta map[string]any) {
		mid := next("msg")
		m := message{Info: map[string]any{"id": mid, "sessionID": id, "role": "user", "time": map[string]int64{"created": at},
			"agent": "build", "model": restoredModel}}
		for _, tx := range texts {
			p := map[string]any{"id": next("prt"), "sessionID": id, "messageID": mid, "type": "text", "text": tx}
			if meta != nil {
				p["metadata"] = meta
			}
			m.Parts = append(m.Parts, p)
		}
		msgs, lastUser = append(msgs, m), mid
	}
	// OpenCode orders messages by time: the note goes first even when the session's first
	// message is stamped before the session itself.
	noteAt := created
	if len(c.Turns) > 0 && c.Turns[0].At.UnixMilli() < noteAt {
		noteAt = c.Turns[0].At.UnixMilli()
	}
	user(noteAt, []string{restore.NoteText(t)}, map[string]any{restore.MarkKey: restore.MarkOf(t)})
	for _, tu := range c.Turns {
		at := tu.At.UnixMilli()
		switch tu.Role {
		case session.RoleAssistant:
			mid := next("msg")
			model := tu.Model
			if model == "" {
				model = "unknown"
			}
			m := message{Info: map[string]any{"id": mid, "sessionID": id, "role": "assistant", "parentID": lastUser,
				"time": map[string]int64{"created": at, "completed": at}, "modelID": model, "providerID": "pond",
				"mode": "build", "agent": "build", "path": map[string]string{"cwd": t.Session.Project, "root": t.Session.Project},
				"cost": 0, "tokens": map[string]any{"input": 0, "output": 0, "reasoning": 0, "cache": map[string]int{"read": 0, "write": 0}},
				"finish": "stop"}}
			for _, it := range tu.Items {
				switch it.Kind {
				case restore.ItemText:
					m.Parts = append(m.Parts, map[string]any{"id": next("prt"), "sessionID": id, "messageID": mid, "type": "text", "text": it.Text})
				case restore.ItemCall:
					r := results[it.CallID]
					state := map[string]any{"status": "completed", "input": json.RawMessage(restore.ParamsObject(it.Params)), "output": r.Text,
						"title": it.Name, "metadata": map[string]any{}, "time": map[string]int64{"start": at, "end": at}}
					if r.IsError {
						state = map[string]any{"status": "error", "input": json.RawMessage(restore.ParamsObject(it.Params)), "error": r.Text,
							"time": map[string]int64{"start": at, "end": at}}
					}
					m.Parts = append(m.Parts, map[string]any{"id": next("prt"), "sessionID": id, "messageID": mid, "type": "tool",
						"callID": it.CallID, "tool": it.Name, "state": state})
				}
			}
			msgs = append(msgs, m)
		case session.RoleTool:
			// Results are written with their calls.
		default:
			var texts []string
			for _, it := range tu.Items {
				texts = append(texts, it.Text)
			}
			user(at, texts, nil)
		}
	}
	return restore.Marshal(map[string]any{"info": info, "messages": msgs}), c.DroppedReason()
}
