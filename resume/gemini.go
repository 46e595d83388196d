package resume

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// Gemini CLI: tmp/<project folder>/chats/session-<time>-<first 8 of id>.json(l), sub-agents under
// chats/<parent id>/. The project folder is a slug recorded in projects.json and claimed by a
// .project_root marker holding the project's path; a restore uses the registered folder when
// there is one, else claims the slug folder with a marker (never editing projects.json, which
// the CLI owns), so that `gemini --resume <id>` in the project finds the session.

func encodeGemini(j *encodeJob) (*plan, error) {
	root := j.batch[0]
	p := &plan{cwd: root.Session.Project, needsCwd: true}
	dir := geminiProjectDir(j.dest.root, root)
	chats := "tmp/" + dir + "/chats/"
	for i, t := range j.batch {
		var f planned
		switch {
		case j.native:
			f = geminiNative(j, t, chats)
		case i == 0:
			f = geminiForeign(j, t, chats, newUUID("gemini-cli", t.Session.ID), "")
		default:
			f = geminiForeign(j, t, chats+p.id+"/", newUUID("gemini-cli", t.Session.ID), p.id)
		}
		if i == 0 {
			p.id = f.ID
		}
		p.files = append(p.files, f)
	}
	if filepath.IsAbs(root.Session.Project) {
		marker := under(j.dest.root, "tmp/"+dir+"/.project_root")
		if _, err := os.Lstat(marker); errors.Is(err, os.ErrNotExist) {
			f := newFile(marker, root.Session.ID, p.id, Native, "", []byte(root.Session.Project))
			f.Sidecar = true
			p.files = append(p.files, f)
		}
	}
	p.command = cdThen(p.cwd, "gemini --resume "+p.id)
	return p, nil
}

// geminiProjectDir is the project folder a session goes into: where it was captured from, else
// the folder projects.json registers for its project, else the CLI's slug of the project's
// base name (an unresolved project keeps the key it was captured under, a hash or a slug).
func geminiProjectDir(root string, t *Transcript) string {
	if d := source(t.Session.Options["source"]).str("project_dir"); d != "" && t.Session.SourceAgent == "gemini-cli" {
		return d
	}
	project := t.Session.Project
	if b, err := os.ReadFile(filepath.Join(root, "projects.json")); err == nil {
		var reg struct {
			Projects map[string]string `json:"projects"`
		}
		if json.Unmarshal(b, &reg) == nil && reg.Projects[project] != "" {
			return reg.Projects[project]
		}
	}
	if !filepath.IsAbs(project) {
		return geminiSlug(project)
	}
	return geminiSlug(filepath.Base(project))
}

// geminiSlug lower-cases s and turns every run of other characters than [a-z0-9] into one '-'.
func geminiSlug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimSuffix(b.String(), "-")
	if out == "" {
		out = "project"
	}
	return out
}

// geminiFileName is the CLI's name for a session file: its start to the minute and the first 8
// characters of its id.
func geminiFileName(created time.Time, id, ext string) string {
	short := id
	if len(short) > 8 {
		short = short[:8]
	}
	return "session-" + created.UTC().Format("2006-01-02T15-04") + "-" + short + ext
}

func geminiNative(j *encodeJob, t *Transcript, chats string) planned {
	src := source(t.Session.Options["source"])
	format := src.str("format")
	name := src.str("file")
	if !strings.HasPrefix(name, "session-") {
		// The CLI lists only session-*.json(l) files.
		name = ""
	}
	if name == "" {
		ext := ".jsonl"
		if format == "json" {
			ext = ".json"
		}
		name = geminiFileName(t.Session.CreatedAt, t.Session.ID, ext)
	}
	if t.Session.SourceAgent == "gemini-cli/subagent" && t.Session.ParentSessionID != "" {
		chats += t.Session.ParentSessionID + "/"
	}
	path := under(j.dest.root, chats+name)
	var meta struct {
		SessionID *string `json:"sessionId"`
	}
	_ = json.Unmarshal(src["record"], &meta)
	idFromName := meta.SessionID == nil
	if format == "json" {
		data, lost := geminiLegacy(t)
		fid := Native
		if lost > 0 {
			fid = Downgraded
		}
		return noSessionID(newFile(path, t.Session.ID, t.Session.ID, fid, lostReason(lost), data), idFromName)
	}
	recs, lost := records(t)
	fid := Native
	if lost > 0 {
		fid = Downgraded
	}
	return noSessionID(newFile(path, t.Session.ID, t.Session.ID, fid, lostReason(lost), replayLines(recs)), idFromName)
}

// noSessionID downgrades a session whose file recorded no id: Pond named it after its file,
// and the restored file carries the CLI's name instead.
func noSessionID(f planned, idFromName bool) planned {
	if idFromName {
		f.downgrade(IDFromFileName)
	}
	return f
}

// geminiLegacy rebuilds a single-JSON session file (≤0.38): the metadata record (the latest one
// kept) with "messages" after lastUpdated, each message in its latest kept version, in order.
func geminiLegacy(t *Transcript) ([]byte, int) {
	lost := 0
	meta := json.RawMessage(nil)
	if s := t.Session.Options["source"]; truncated(s) {
		lost++
	} else {
		meta = source(s)["record"]
	}
	var order []string
	latest := map[string]json.RawMessage{}
	keep := func(id string, rec json.RawMessage) {
		if _, ok := latest[id]; !ok {
			order = append(order, id)
		}
		latest[id] = rec
	}
	for _, m := range t.Messages {
		s := source(m.Options["source"])
		if truncated(m.Options["source"]) || truncated(s["record"]) {
			lost++
			continue
		}
		switch {
		case m.Role == session.RoleSystem && len(s["metadata"]) > 0:
			meta = s["record"]
		case len(s["replaces"]) > 0:
			keep(s.str("replaces"), s["record"])
		case len(s["record"]) > 0:
			keep(m.ID, s["record"])
		}
		for _, p := range t.Parts[m.ID] {
			ps := source(p.Options["source"])
			if len(ps["replaces"]) > 0 && len(ps["record"]) > 0 {
				keep(ps.str("replaces"), ps["record"])
			}
		}
	}
	msgs := []byte("[")
	for i, id := range order {
		if i > 0 {
			msgs = append(msgs, ',')
		}
		msgs = append(msgs, latest[id]...)
	}
	msgs = append(msgs, ']')
	fields := objectFields(meta)
	var out []adapters.Field
	placed := false
	for _, f := range fields {
		out = append(out, f)
		if f.Key == "lastUpdated" {
			out, placed = append(out, adapters.Field{Key: "messages", Value: msgs}), true
		}
	}
	if !placed {
		out = append(out, adapters.Field{Key: "messages", Value: msgs})
	}
	var b bytes.Buffer
	if err := json.Indent(&b, adapters.Object(out...), "", "  "); err != nil {
		return adapters.Object(out...), lost
	}
	return b.Bytes(), lost
}

// objectFields lists a JSON object's members in order, values byte for byte.
func objectFields(raw json.RawMessage) []adapters.Field {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var out []adapters.Field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil && err != io.EOF {
			return out
		}
		out = append(out, adapters.Field{Key: key, Value: v})
	}
	return out
}

// geminiForeign rebuilds a session as a JSONL session file (≥0.39): the metadata record (with
// the mark), then one user or gemini message per turn; a tool call and its result sit together
// in the gemini message's toolCalls, as the CLI records them.
func geminiForeign(j *encodeJob, t *Transcript, chats, id, parent string) planned {
	c := converse(t)
	results := map[string]item{}
	for _, tu := range c.turns {
		for _, it := range tu.items {
			if it.kind == itemResult {
				results[it.callID] = it
			}
		}
	}
	var out []byte
	write := func(v any) {
		out = append(out, marshal(v)...)
		out = append(out, '\n')
	}
	sum := sha256.Sum256([]byte(t.Session.Project))
	last := t.Session.CreatedAt
	if n := len(c.turns); n > 0 {
		last = c.turns[n-1].at
	}
	kind := "main"
	if parent != "" {
		kind = "subagent"
	}
	write(map[string]any{"sessionId": id, "projectHash": hex.EncodeToString(sum[:]), "startTime": stamp(t.Session.CreatedAt),
		"lastUpdated": stamp(last), "kind": kind, MarkKey: markJSON(t)})
	type text struct {
		Text string `json:"text"`
	}
	write(map[string]any{"id": newUUID("gemini-cli", t.Session.ID, "note"), "timestamp": stamp(t.Session.CreatedAt), "type": "user",
		"content": []text{{noteText(t)}}})
	for _, tu := range c.turns {
		mid := newUUID("gemini-cli", t.Session.ID, tu.id)
		switch tu.role {
		case session.RoleAssistant:
			content := []text{}
			var calls []map[string]any
			for _, it := range tu.items {
				switch it.kind {
				case itemText:
					content = append(content, text{it.text})
				case itemCall:
					r := results[it.callID]
					status := "success"
					if r.isError {
						status = "error"
					}
					calls = append(calls, map[string]any{"id": it.callID, "name": it.name, "args": json.RawMessage(paramsObject(it.params)),
						"result": []any{map[string]any{"functionResponse": map[string]any{"id": it.callID, "name": it.name,
							"response": map[string]string{"output": r.text}}}},
						"status": status, "timestamp": stamp(tu.at)})
				}
			}
			m := map[string]any{"id": mid, "timestamp": stamp(tu.at), "type": "gemini", "content": content, "model": tu.model}
			if len(calls) > 0 {
				m["toolCalls"] = calls
			}
			write(m)
		case session.RoleTool:
			// Results are written with their calls.
		default:
			var content []text
			for _, it := range tu.items {
				content = append(content, text{it.text})
			}
			write(map[string]any{"id": mid, "timestamp": stamp(tu.at), "type": "user", "content": content})
		}
	}
	path := under(j.dest.root, chats+geminiFileName(t.Session.CreatedAt, id, ".jsonl"))
	return newFile(path, t.Session.ID, id, Foreign, c.droppedReason(), out)
}
