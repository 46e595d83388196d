package openclaw

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/pi"
	"github.com/pondhq/pond/adapters/restore"
)

// OpenClaw resumes nothing from files: its sessions live in the agent's database, which its
// Gateway owns and which is not written from outside (triggers, validation tables, STRICT
// tables). A restore is what OpenClaw's own import takes in, laid out as its legacy era kept
// sessions: under agents/<agentId>/sessions/, a pi v3 transcript <sessionId>.jsonl per session
// and a sessions.json indexing them by session key; `openclaw doctor --session-sqlite import`
// (with the Gateway stopped) validates them, copies them into the database and archives the
// files. A sessions.json already there (a legacy install never imported, or an earlier restore
// not imported yet) gets the restore's entries added beside its own (restore.Planned.Merge):
// nothing of it is replaced, and a session key it already has fails the restore.
//
// A native restore replays the captured lines (an archive's too, restored as a live session)
// into the agent it came from; a foreign one is pi's foreign rebuild (adapters/pi), OpenClaw's
// own line format, into the agent "main". Each session gets a key of its own, so that the
// import never takes over a conversation the database holds: a sub-agent keeps
// "agent:<agentId>:subagent:…" (its original key, else one from its id) and names its parent's
// key in spawnedBy; any other session is "agent:<agentId>:pond-<sessionId>".

// defaultAgent is OpenClaw's default agent id, where a foreign restore goes.
const defaultAgent = "main"

// agentIDPattern is an agent id OpenClaw accepts as a folder name (normalizeAgentId keeps
// lower-case letters, digits, '_' and '-').
var agentIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// Encode plans a restore into the agent (restore.Encoder).
func (Adapter) Encode(j *restore.Job) (*restore.Plan, error) {
	root := j.Batch[0]
	agent := defaultAgent
	if j.Native {
		if a := kept(root.Session.Options["openclaw"]).Str("agent"); a != "" {
			agent = a
		}
		if !agentIDPattern.MatchString(agent) {
			return nil, &restore.UnsafeError{Session: root.Session.ID, Field: "options.openclaw.agent", Value: agent, Reason: "not an OpenClaw agent id"}
		}
	}
	dir := "agents/" + agent + "/sessions/"
	p := &restore.Plan{Cwd: root.Session.Project}
	var foreign []restore.Planned
	if !j.Native {
		// pi's rebuild, planned under a folder of its own and moved here.
		fp, err := (&pi.Adapter{}).Encode(&restore.Job{Batch: j.Batch, Root: j.Root})
		if err != nil {
			return nil, err
		}
		foreign = fp.Files
	}
	type indexed struct {
		key   string
		entry map[string]json.RawMessage
	}
	var index []indexed
	rootKey := ""
	for i, t := range j.Batch {
		var f restore.Planned
		if j.Native {
			if err := restore.CheckName(t.Session.ID, "id", t.Session.ID+".jsonl"); err != nil {
				return nil, err
			}
			f = restore.NativeLines(restore.Under(j.Root, dir+t.Session.ID+".jsonl"), t)
		} else {
			f = foreign[i]
			data, err := dropParentSession(f.Data)
			if err != nil {
				return nil, err
			}
			f.Data, f.Bytes = data, len(data)
			f.Path = restore.Under(j.Root, dir+f.ID+".jsonl")
		}
		o := kept(t.Session.Options["openclaw"])
		key := "agent:" + agent + ":pond-" + f.ID
		switch orig := o.Str("session_key"); {
		case j.Native && sourceAgent(orig) == Name+"/subagent" && keyPattern.MatchString(orig):
			key = orig
		case j.Native && sourceAgent(orig) == Name+"/subagent", !j.Native && i > 0:
			key = "agent:" + agent + ":subagent:" + f.ID
		}
		entry := map[string]json.RawMessage{}
		if j.Native {
			entry = nativeEntry(o)
			if raw := t.Session.Options["openclaw"]; len(raw) > 0 && !restore.Truncated(raw) {
				// What OpenClaw kept of the session, for a re-capture to find as it was.
				entry[restoredKey] = raw
			}
			// The session's place in its lineage, which its database rows said (the window
			// before it, the session that spawned it) and the index cannot.
			if parent := t.Session.ParentSessionID; parent != "" {
				entry[restoredParentKey] = restore.Marshal(map[string]string{"session": parent, "message": t.Session.ParentMessageID})
			}
		}
		delete(entry, "sessionFile") // the original's transcript, not this one
		entry["sessionId"] = adapters.String(f.ID)
		if _, ok := entry["updatedAt"]; !ok {
			entry["updatedAt"] = json.RawMessage(fmt.Sprint(t.Session.CreatedAt.UnixMilli()))
		}
		delete(entry, "spawnedBy")
		if i > 0 {
			entry["spawnedBy"] = adapters.String(rootKey)
		} else {
			rootKey = key
			p.ID = f.ID
		}
		index = append(index, indexed{key, entry})
		p.Files = append(p.Files, f)
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, e := range index {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("  ")
		b.Write(adapters.String(e.key))
		b.WriteString(": ")
		b.Write(restore.Marshal(e.entry))
	}
	b.WriteString("\n}\n")
	side := restore.NewFile(restore.Under(j.Root, dir+"sessions.json"), root.Session.ID, p.ID, restore.Native, "", b.Bytes())
	side.Sidecar = true
	side.Merge = true
	p.Files = append(p.Files, side)
	p.Argv = [][]string{
		{"openclaw", "doctor", "--session-sqlite", "import", "--session-sqlite-agent", agent},
		{"openclaw", "resume", rootKey},
	}
	return p, nil
}

// restoredKey is the index entry's member holding what the original's options.openclaw held,
// in a native restore: the session's records from the database or the index it came from,
// which a re-capture of the restore keeps as its own (the restore's key and entry are Pond's).
// OpenClaw keeps unknown entry members (in session_nodes.entry_json once imported).
const restoredKey = "pondOpenclaw"

// restoredParentKey is the index entry's member holding the original's parent session (and
// message), in a native restore.
const restoredParentKey = "pondParent"

// keyPattern is a session key a restore may take over from the archive: OpenClaw's own shape,
// without anything a path or a shell could make more of.
var keyPattern = regexp.MustCompile(`^agent:[a-z0-9][a-z0-9_-]*:[A-Za-z0-9:._-]{1,200}$`)

// kept reads the session's options.openclaw.
func kept(raw json.RawMessage) restore.SourceOf { return restore.Source(raw) }

// nativeEntry is the session's own index entry: its sessions.json entry as captured, else the
// entry its database node kept (entry_json).
func nativeEntry(o restore.SourceOf) map[string]json.RawMessage {
	var entry map[string]json.RawMessage
	if json.Unmarshal(o["entry"], &entry) == nil && entry != nil {
		return entry
	}
	var node struct {
		EntryJSON string `json:"entry_json"`
	}
	if json.Unmarshal(o["node"], &node) == nil && json.Unmarshal([]byte(node.EntryJSON), &entry) == nil && entry != nil {
		return entry
	}
	return map[string]json.RawMessage{}
}

// dropParentSession removes the parent's file from pi's header: OpenClaw links sessions in
// its index (spawnedBy), and the path pi names is not where the parent lands here.
func dropParentSession(data []byte) ([]byte, error) {
	head, rest, _ := bytes.Cut(data, []byte("\n"))
	var h map[string]json.RawMessage
	if err := json.Unmarshal(head, &h); err != nil {
		return nil, fmt.Errorf("openclaw: pi's rebuilt header: %w", err)
	}
	if _, ok := h["parentSession"]; !ok {
		return data, nil
	}
	delete(h, "parentSession")
	out := append(restore.Marshal(h), '\n')
	return append(out, rest...), nil
}
