package hermes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// Encode implements restore.Encoder. A native restore replays what was captured: the rows of a
// store go back into the same store of the profile (ROOT/state.db, ROOT/profiles/<name>/state.db)
// with their row ids when the target has them free (restore.Rows), a gateway transcript or a
// legacy snapshot back to its file. A foreign one becomes a new session in ROOT/state.db, its
// messages laid out as Hermes keeps them live (see chat). Each session of the batch (its
// sub-agents) is a planned file of rows in the same store, which resume writes in one
// transaction.
func (Adapter) Encode(j *restore.Job) (*restore.Plan, error) {
	for _, t := range j.Batch {
		// Ids go into Hermes's store and its resume command: only the ids capture accepts.
		if err := session.CheckID(t.Session.ID); err != nil {
			return nil, &restore.UnsafeError{Session: t.Session.ID, Field: "id", Value: t.Session.ID, Reason: err.Error()}
		}
	}
	root := j.Batch[0]
	var files []restore.Planned
	dbPath := "" // every row of the batch goes into one store, in one transaction (resume groups them)
	var dbFiles []restore.Planned
	addRows := func(path string, t *restore.Transcript, id string, fid restore.Fidelity, reason string, ins []restore.Insert) {
		if dbPath == "" {
			dbPath = path
		}
		rows := &restore.Rows{Create: schema, Inserts: ins, Renumber: map[string]string{"messages": "id"}}
		dbFiles = append(dbFiles, restore.NewRows(dbPath, t.Session.ID, id, fid, reason, rows))
	}
	plan := &restore.Plan{}
	if j.Native {
		// Hermes 0.19 resumes only from its store (its JSONL fallback is gone): a session
		// captured from a gateway transcript or a legacy snapshot goes back to its file as it
		// was, and is rebuilt beside it as a new session of the profile's store (its own id, the
		// restore mark naming the original), which is what Hermes resumes. A new id, not the
		// file's: the file and the rows would otherwise be two copies of one session to capture.
		rebuilt := map[string]string{}
		for _, t := range j.Batch {
			if src := restore.Source(t.Session.Options["source"]); src.Str("db") == "" && src.Str("file") != "" {
				rebuilt[t.Session.ID] = foreignID(t)
			}
		}
		plan.ID = root.Session.ID
		if id, ok := rebuilt[root.Session.ID]; ok {
			plan.ID = id
		}
		for i, t := range j.Batch {
			src := restore.Source(t.Session.Options["source"])
			switch {
			case src.Str("db") != "":
				rel := src.Str("db")
				if err := restore.CheckRel(t.Session.ID, "options.source.db", rel); err != nil {
					return nil, err
				}
				ins, lost, err := nativeRows(t)
				if err != nil {
					return nil, err
				}
				fid := restore.Native
				if lost > 0 {
					fid = restore.Downgraded
				}
				addRows(restore.Under(j.Root, rel), t, t.Session.ID, fid, restore.LostReason(lost), ins)
			case src.Str("file") != "":
				rel := src.Str("file")
				if err := restore.CheckRel(t.Session.ID, "options.source.file", rel); err != nil {
					return nil, err
				}
				parent := t.Session.ParentSessionID
				if id, ok := rebuilt[parent]; ok {
					parent = id
				}
				ins, dropped := foreignRows(t, rebuilt[t.Session.ID], parent, i > 0)
				addRows(restore.Under(j.Root, path.Join(path.Dir(path.Dir(rel)), "state.db")), t, rebuilt[t.Session.ID], restore.Foreign, dropped, ins)
				file := restore.Under(j.Root, rel)
				if strings.HasSuffix(rel, ".jsonl") {
					files = append(files, restore.NativeLines(file, t))
					break
				}
				// A legacy snapshot is one record, kept whole on the session.
				var lost int
				_, rec, ok := restore.KeptRecord(t.Session.Options["source"], &lost)
				f := restore.NewFile(file, t.Session.ID, t.Session.ID, restore.Native, "", append(bytes.Clone(rec), '\n'))
				if !ok {
					f.Downgrade(restore.LostReason(max(lost, 1)))
				}
				files = append(files, f)
			default:
				return nil, fmt.Errorf("hermes: session %s: no store or file recorded at capture to restore it to", t.Session.ID)
			}
		}
	} else {
		ids := map[string]string{}
		for _, t := range j.Batch {
			ids[t.Session.ID] = foreignID(t)
		}
		for i, t := range j.Batch {
			// Batch[1:] are the root's sub-agents, written as Hermes's delegate_task writes its
			// children, so that its resume of the root never follows one (see foreignRows).
			ins, dropped := foreignRows(t, ids[t.Session.ID], ids[t.Session.ParentSessionID], i > 0)
			addRows(restore.Under(j.Root, "state.db"), t, ids[t.Session.ID], restore.Foreign, dropped, ins)
		}
		plan.ID = ids[root.Session.ID]
	}
	plan.Files = append(dbFiles, files...)
	argv := []string{"hermes"}
	if p := profileOfSession(root); j.Native && p != "default" {
		argv = append(argv, "--profile", p)
	}
	plan.Argv = [][]string{append(argv, "--resume", plan.ID)}
	return plan, nil
}

// profileOfSession is the profile a captured session came from.
func profileOfSession(t *restore.Transcript) string {
	var h struct {
		Profile string `json:"profile"`
	}
	_ = json.Unmarshal(t.Session.Options["hermes"], &h)
	if restore.CheckName(t.Session.ID, "options.hermes.profile", h.Profile) != nil {
		return "default"
	}
	return h.Profile
}

// nativeRows are the captured rows of a session: its sessions row, then its messages rows in
// their order, each with the columns it had.
func nativeRows(t *restore.Transcript) ([]restore.Insert, int, error) {
	recs, lost := restore.Records(t)
	var out []restore.Insert
	var sess *restore.Insert
	for _, r := range recs {
		table := "messages"
		if r.Line == 0 {
			table = "sessions"
		}
		in, err := adapters.RowInsert(table, r.Record)
		if err != nil {
			return nil, 0, fmt.Errorf("hermes: session %s: a kept row: %w", t.Session.ID, err)
		}
		if table == "sessions" {
			sess = &in
			continue
		}
		out = append(out, in)
	}
	if sess == nil {
		return nil, 0, fmt.Errorf("hermes: session %s: its sessions row was not kept", t.Session.ID)
	}
	return append([]restore.Insert{*sess}, out...), lost, nil
}

// foreignID is a restored session's id in Hermes's own form, YYYYMMDD_HHMMSS_<6 hex>, the same
// for every restore of one stored session.
func foreignID(t *restore.Transcript) string {
	return t.Session.CreatedAt.UTC().Format("20060102_150405") + "_" + restore.ShortHash(t.Session.ID, 6)
}

// chatMessage is one message of a foreign rebuild, as Hermes keeps it.
type chatMessage struct {
	role     string
	texts    []string // one: plain content; several: a list of text parts
	parts    bool     // the texts as a list of text parts even when there is one
	calls    []restore.Item
	callID   string
	toolName string
	at       time.Time
}

// content is the message's content column: its one text, or Hermes's "\x00json:" encoding of a
// list of text parts, which keeps several texts apart in one message.
func (m chatMessage) content() string {
	switch {
	case len(m.texts) == 0:
		return ""
	case len(m.texts) == 1 && !m.parts:
		return m.texts[0]
	}
	type part struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	parts := make([]part, len(m.texts))
	for i, t := range m.texts {
		parts[i] = part{"text", t}
	}
	return contentJSONPrefix + string(restore.Marshal(parts))
}

// chat lays a conversation out as Hermes sends it live, so that Hermes's own repair of a
// resumed history (repair_message_sequence) finds nothing to change, since what it would change
// is lost or merged: a tool result that does not follow its call's assistant message is dropped,
// and consecutive assistant (or user) messages are merged, their texts joined. So each call's
// results follow its assistant message directly, and adjacent messages of one role become one
// message whose texts stay apart as a list of text parts (which Hermes never merges into
// another). The note opens the conversation, in the first user message.
func chat(t *restore.Transcript, c *restore.Conversation) []chatMessage {
	start := t.Session.CreatedAt
	var msgs []chatMessage
	results := map[string]chatMessage{}
	msgs = append(msgs, chatMessage{role: "user", texts: []string{restore.NoteText(t)}, at: start})
	for _, tu := range c.Turns {
		at := tu.At
		if at.IsZero() {
			at = start
		}
		m := chatMessage{role: "user", at: at}
		switch tu.Role {
		case session.RoleTool:
			for _, it := range tu.Items {
				if it.Kind == restore.ItemResult {
					results[it.CallID] = chatMessage{role: "tool", texts: []string{it.Text}, callID: it.CallID, toolName: it.Name, at: at}
				}
			}
			continue
		case session.RoleAssistant:
			m.role = "assistant"
		}
		for _, it := range tu.Items {
			switch it.Kind {
			case restore.ItemText:
				m.texts = append(m.texts, it.Text)
			case restore.ItemCall:
				m.calls = append(m.calls, it)
			}
		}
		msgs = append(msgs, m)
	}
	// Each call's result right after its assistant message.
	var placed []chatMessage
	for _, m := range msgs {
		placed = append(placed, m)
		for _, call := range m.calls {
			if r, ok := results[call.CallID]; ok {
				placed = append(placed, r)
			}
		}
	}
	// Adjacent messages of one role, one message.
	var out []chatMessage
	for _, m := range placed {
		if n := len(out); n > 0 && out[n-1].role == m.role && m.role != "tool" {
			out[n-1].texts = append(out[n-1].texts, m.texts...)
			out[n-1].calls = append(out[n-1].calls, m.calls...)
			continue
		}
		out = append(out, m)
	}
	// A conversation that ends on the user's turn: the turn Hermes adds on resume would follow
	// it, and Hermes merges two adjacent user messages into one, their texts joined, unless one
	// holds a list of parts (repair_message_sequence, which resume runs on the loaded history and
	// again before each request). As a list of parts the last turn stays a message of its own.
	if n := len(out); n > 0 && out[n-1].role == "user" {
		out[n-1].parts = true
	}
	return out
}

// foreignRows rebuilds a transcript as a new Hermes session: its sessions row (the restore mark
// in model_config) and its messages, all live. A sub-agent's row is marked as Hermes's
// delegate_task marks the sessions of the agents it starts: the platform "subagent" as its
// source and the parent's id as model_config's _delegate_from, which Hermes's resume
// (SessionDB.resolve_resume_session_id) and its session lists read as "not a continuation of
// the parent", so resuming the parent resumes the parent.
func foreignRows(t *restore.Transcript, id, parent string, subagent bool) ([]restore.Insert, string) {
	c := restore.Converse(t)
	msgs := chat(t, c)
	mark := restore.MarkJSON(t)
	fields := []adapters.Field{
		{Key: "cwd", Value: adapters.String(t.Session.Project)},
		{Key: restore.MarkKey, Value: mark},
	}
	source := "cli"
	if subagent {
		source = "subagent"
		if parent != "" {
			fields = append(fields, adapters.Field{Key: delegateFrom, Value: adapters.String(parent)})
		}
	}
	cfg := adapters.Object(fields...)
	model := ""
	for _, tu := range c.Turns {
		if tu.Model != "" {
			model = tu.Model
		}
	}
	var cwd any
	if strings.HasPrefix(t.Session.Project, "/") || len(t.Session.Project) > 2 && t.Session.Project[1] == ':' {
		cwd = t.Session.Project
	}
	var parentID any
	if parent != "" {
		parentID = parent
	}
	var modelV any
	if model != "" {
		modelV = model
	}
	calls := 0
	for _, m := range msgs {
		calls += len(m.calls)
	}
	out := []restore.Insert{{Table: "sessions",
		Columns: []string{"id", "source", "model", "model_config", "parent_session_id", "started_at", "message_count", "tool_call_count", "cwd", "title"},
		Values:  []any{id, source, modelV, string(cfg), parentID, secs(t.Session.CreatedAt), int64(len(msgs)), int64(calls), cwd, nil}}}
	for _, m := range msgs {
		var toolCalls, callID, toolName, finish any
		if len(m.calls) > 0 {
			type fn struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			}
			type call struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function fn     `json:"function"`
			}
			var cs []call
			for _, it := range m.calls {
				cs = append(cs, call{ID: it.CallID, Type: "function", Function: fn{Name: it.Name, Arguments: string(restore.ParamsObject(it.Params))}})
			}
			toolCalls = string(restore.Marshal(cs))
			finish = "tool_calls"
		}
		if m.role == "tool" {
			callID, toolName = m.callID, m.toolName
		}
		out = append(out, restore.Insert{Table: "messages",
			Columns: []string{"session_id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "timestamp", "finish_reason", "active", "compacted"},
			Values:  []any{id, m.role, m.content(), callID, toolCalls, toolName, secs(m.at), finish, int64(1), int64(0)}})
	}
	return out, c.DroppedReason()
}
