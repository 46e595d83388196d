package gemini

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
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// Gemini CLI: tmp/<project folder>/chats/session-<time>-<first 8 of id>.json(l), sub-agents under
// chats/<parent id>/. The project folder is a slug recorded in projects.json and claimed by a
// .project_root marker holding the project's path; a restore uses the registered folder when
// there is one, else claims the slug folder with a marker (never editing projects.json, which
// the CLI owns), so that `gemini --resume <id>` in the project finds the session.

// Encode plans a restore into the agent (restore.Encoder).
func (*Adapter) Encode(j *restore.Job) (*restore.Plan, error) {
	root := j.Batch[0]
	p := &restore.Plan{Cwd: root.Session.Project, NeedsCwd: true}
	dir := geminiProjectDir(j.Root, root)
	// The folder comes from the archive or from projects.json: either may name anything.
	if err := restore.CheckName(root.Session.ID, "the project folder", dir); err != nil {
		return nil, err
	}
	chats := "tmp/" + dir + "/chats/"
	for i, t := range j.Batch {
		var f restore.Planned
		switch {
		case j.Native:
			var err error
			if f, err = geminiNative(j, t, chats); err != nil {
				return nil, err
			}
		case i == 0:
			f = geminiForeign(j, t, chats, restore.NewUUID("gemini-cli", t.Session.ID), "")
		default:
			f = geminiForeign(j, t, chats+p.ID+"/", restore.NewUUID("gemini-cli", t.Session.ID), p.ID)
		}
		if i == 0 {
			p.ID = f.ID
		}
		p.Files = append(p.Files, f)
	}
	if filepath.IsAbs(root.Session.Project) {
		marker := restore.Under(j.Root, "tmp/"+dir+"/.project_root")
		if _, err := os.Lstat(marker); errors.Is(err, os.ErrNotExist) {
			f := restore.NewFile(marker, root.Session.ID, p.ID, restore.Native, "", []byte(root.Session.Project))
			f.Sidecar = true
			p.Files = append(p.Files, f)
		}
	}
	p.Argv = [][]string{{"gemini", "--resume", p.ID}}
	return p, nil
}

// geminiProjectDir is the project folder a session goes into: where it was captured from, else
// the folder projects.json registers for its project, else the CLI's slug of the project's
// base name (an unresolved project keeps the key it was captured under, a hash or a slug).
func geminiProjectDir(root string, t *restore.Transcript) string {
	if d := restore.Source(t.Session.Options["source"]).Str("project_dir"); d != "" && t.Session.SourceAgent == "gemini-cli" {
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

func geminiNative(j *restore.Job, t *restore.Transcript, chats string) (restore.Planned, error) {
	src := restore.Source(t.Session.Options["source"])
	format := src.Str("format")
	name, field := src.Str("file"), "options.source.file"
	if !strings.HasPrefix(name, "session-") {
		// The CLI lists only session-*.json(l) files.
		name = ""
	}
	if name == "" {
		ext := ".jsonl"
		if format == "json" {
			ext = ".json"
		}
		name, field = geminiFileName(t.Session.CreatedAt, t.Session.ID, ext), "id"
	}
	if err := restore.CheckName(t.Session.ID, field, name); err != nil {
		return restore.Planned{}, err
	}
	if t.Session.SourceAgent == "gemini-cli/subagent" && t.Session.ParentSessionID != "" {
		if err := restore.CheckName(t.Session.ID, "parent_session_id", t.Session.ParentSessionID); err != nil {
			return restore.Planned{}, err
		}
		chats += t.Session.ParentSessionID + "/"
	}
	path := restore.Under(j.Root, chats+name)
	var meta struct {
		SessionID *string `json:"sessionId"`
	}
	_ = json.Unmarshal(src["record"], &meta)
	idFromName := meta.SessionID == nil
	if format == "json" {
		data, lost := geminiLegacy(t)
		fid := restore.Native
		if lost > 0 {
			fid = restore.Downgraded
		}
		return noSessionID(restore.NewFile(path, t.Session.ID, t.Session.ID, fid, restore.LostReason(lost), data), idFromName), nil
	}
	return noSessionID(restore.NativeLines(path, t), idFromName), nil
}

// noSessionID downgrades a session whose file recorded no id: Pond named it after its file,
// and the restored file carries the CLI's name instead.
func noSessionID(f restore.Planned, idFromName bool) restore.Planned {
	if idFromName {
		f.Downgrade(restore.IDFromFileName)
	}
	return f
}

// geminiLegacy rebuilds a single-JSON session file (≤0.38): the metadata record (the latest one
// kept) with "messages" after lastUpdated, each message in its latest kept version, in order.
func geminiLegacy(t *restore.Transcript) ([]byte, int) {
	lost := 0
	meta := json.RawMessage(nil)
	if s := t.Session.Options["source"]; restore.Truncated(s) {
		lost++
	} else {
		meta = restore.Source(s)["record"]
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
		s := restore.Source(m.Options["source"])
		if restore.Truncated(m.Options["source"]) || restore.Truncated(s["record"]) {
			lost++
			continue
		}
		switch {
		case m.Role == session.RoleSystem && len(s["metadata"]) > 0:
			meta = s["record"]
		case len(s["replaces"]) > 0:
			keep(s.Str("replaces"), s["record"])
		case len(s["record"]) > 0:
			keep(m.ID, s["record"])
		}
		for _, p := range t.Parts[m.ID] {
			ps := restore.Source(p.Options["source"])
			if len(ps["replaces"]) > 0 && len(ps["record"]) > 0 {
				keep(ps.Str("replaces"), ps["record"])
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
func geminiForeign(j *restore.Job, t *restore.Transcript, chats, id, parent string) restore.Planned {
	c := restore.Converse(t)
	results := map[string]restore.Item{}
	for _, tu := range c.Turns {
		for _, it := range tu.Items {
			if it.Kind == restore.ItemResult {
				results[it.CallID] = it
			}
		}
	}
	var out []byte
	write := func(v any) {
		out = append(out, restore.Marshal(v)...)
		out = append(out, '\n')
	}
	sum := sha256.Sum256([]byte(t.Session.Project))
	last := t.Session.CreatedAt
	if n := len(c.Turns); n > 0 {
		last = c.Turns[n-1].At
	}
	kind := "main"
	if parent != "" {
		kind = "subagent"
	}
	write(map[string]any{"sessionId": id, "projectHash": hex.EncodeToString(sum[:]), "startTime": restore.Stamp(t.Session.CreatedAt),
		"lastUpdated": restore.Stamp(last), "kind": kind, restore.MarkKey: restore.MarkJSON(t)})
	type text struct {
		Text string `json:"text"`
	}
	write(map[string]any{"id": restore.NewUUID("gemini-cli", t.Session.ID, "note"), "timestamp": restore.Stamp(t.Session.CreatedAt), "type": "user",
		"content": []text{{restore.NoteText(t)}}})
	for _, tu := range c.Turns {
		mid := restore.NewUUID("gemini-cli", t.Session.ID, tu.ID)
		switch tu.Role {
		case session.RoleAssistant:
			content := []text{}
			var calls []map[string]any
			for _, it := range tu.Items {
				switch it.Kind {
				case restore.ItemText:
					content = append(content, text{it.Text})
				case restore.ItemCall:
					r := results[it.CallID]
					status := "success"
					if r.IsError {
						status = "error"
					}
					calls = append(calls, map[string]any{"id": it.CallID, "name": it.Name, "args": json.RawMessage(restore.ParamsObject(it.Params)),
						"result": []any{map[string]any{"functionResponse": map[string]any{"id": it.CallID, "name": it.Name,
							"response": map[string]string{"output": r.Text}}}},
						"status": status, "timestamp": restore.Stamp(tu.At)})
				}
			}
			m := map[string]any{"id": mid, "timestamp": restore.Stamp(tu.At), "type": "gemini", "content": content, "model": tu.Model}
			if len(calls) > 0 {
				m["toolCalls"] = calls
			}
			write(m)
		case session.RoleTool:
			// Results are written with their calls.
		default:
			var content []text
			for _, it := range tu.Items {
				content = append(content, text{it.Text})
			}
			write(map[string]any{"id": mid, "timestamp": restore.Stamp(tu.At), "type": "user", "content": content})
		}
	}
	path := restore.Under(j.Root, chats+geminiFileName(t.Session.CreatedAt, id, ".jsonl"))
	return restore.NewFile(path, t.Session.ID, id, restore.Foreign, c.DroppedReason(), out)
}
