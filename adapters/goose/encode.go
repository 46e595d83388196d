package goose

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// Encode implements restore.Encoder. Every session of the batch (a session and its
// sub-agents) is a planned file of rows in ROOT/sessions/sessions.db, which resume writes in
// one transaction: a sessions row, then its messages rows, as goose's own import does (create
// the session, then its conversation), never replacing a row. A native restore replays the
// captured rows with their columns and row ids (renumbered after goose's own rows when the
// target holds those ids); a foreign one builds a new goose session (see foreignRows).
func (Adapter) Encode(j *restore.Job) (*restore.Plan, error) {
	for _, t := range j.Batch {
		// Ids go into goose's database and its resume command: only the ids capture accepts.
		if err := session.CheckID(t.Session.ID); err != nil {
			return nil, &restore.UnsafeError{Session: t.Session.ID, Field: "id", Value: t.Session.ID, Reason: err.Error()}
		}
	}
	path := restore.Under(j.Root, dbRel)
	plan := &restore.Plan{}
	add := func(t *restore.Transcript, id string, fid restore.Fidelity, reason string, ins []restore.Insert) {
		rows := &restore.Rows{Create: schema, Inserts: ins, Renumber: map[string]string{"messages": "id"}}
		plan.Files = append(plan.Files, restore.NewRows(path, t.Session.ID, id, fid, reason, rows))
	}
	if j.Native {
		for _, t := range j.Batch {
			if db := restore.Source(t.Session.Options["source"]).Str("db"); db != dbRel {
				return nil, fmt.Errorf("goose: session %s: no goose database row recorded at capture to restore it from", t.Session.ID)
			}
			ins, lost, err := nativeRows(t)
			if err != nil {
				return nil, err
			}
			fid := restore.Native
			if lost > 0 {
				fid = restore.Downgraded
			}
			add(t, t.Session.ID, fid, restore.LostReason(lost), ins)
		}
		plan.ID = j.Batch[0].Session.ID
	} else {
		ids := map[string]string{}
		for _, t := range j.Batch {
			ids[t.Session.ID] = foreignID(t)
		}
		for _, t := range j.Batch {
			ins, dropped := foreignRows(t, ids[t.Session.ID], ids[t.Session.ParentSessionID])
			add(t, ids[t.Session.ID], restore.Foreign, dropped, ins)
		}
		plan.ID = ids[j.Batch[0].Session.ID]
	}
	plan.Argv = [][]string{{"goose", "session", "--resume", "--session-id", plan.ID}}
	return plan, nil
}

// nativeRows are the captured rows of a session: its sessions row, then its messages rows in
// goose's order, each with the columns it had.
func nativeRows(t *restore.Transcript) ([]restore.Insert, int, error) {
	recs, lost := restore.Records(t)
	var sess *restore.Insert
	var msgs []restore.Insert
	for _, r := range recs {
		table := "messages"
		if r.Line == 0 {
			table = "sessions"
		}
		in, err := adapters.RowInsert(table, r.Record)
		if err != nil {
			return nil, 0, fmt.Errorf("goose: session %s: a kept row: %w", t.Session.ID, err)
		}
		if table == "sessions" {
			sess = &in
			continue
		}
		msgs = append(msgs, in)
	}
	if sess == nil {
		return nil, 0, fmt.Errorf("goose: session %s: its sessions row was not kept", t.Session.ID)
	}
	return append([]restore.Insert{*sess}, msgs...), lost, nil
}

// foreignID is a restored session's id in goose's form, YYYYMMDD_N (goose numbers a day's
// sessions from 1 and names its next one after the highest N of its day), the same for every
// restore of one stored session: the day it started and a nine-digit N from its id, so it
// never meets goose's own small numbers.
func foreignID(t *restore.Transcript) string {
	h := sha256.Sum256([]byte(t.Session.ID))
	n := 100_000_000 + binary.BigEndian.Uint32(h[:4])%900_000_000
	return t.Session.CreatedAt.UTC().Format("20060102") + "_" + strconv.FormatUint(uint64(n), 10)
}

// sqlTime is a TIMESTAMP as SQLite's CURRENT_TIMESTAMP writes it, which goose writes too.
func sqlTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

// gooseMessage is one message of a foreign rebuild, as goose keeps it.
type gooseMessage struct {
	role   string // user or assistant
	blocks []any
	at     time.Time
	result bool // it holds tool responses (a user message goose writes after the calls)
	calls  []string
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type callValue struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type requestBlock struct {
	Type     string `json:"type"`
	ID       string `json:"id"`
	ToolCall struct {
		Status string    `json:"status"`
		Value  callValue `json:"value"`
	} `json:"toolCall"`
}

type resultValue struct {
	Content []textBlock `json:"content"`
	IsError bool        `json:"isError"`
}

type responseBlock struct {
	Type       string `json:"type"`
	ID         string `json:"id"`
	ToolResult struct {
		Status string      `json:"status"`
		Value  resultValue `json:"value"`
	} `json:"toolResult"`
}

// conversation lays a transcript out as goose keeps one: user and assistant messages, an
// assistant's tool requests answered by the tool responses of the user message right after it
// (goose's own shape, which its history repair expects), adjacent messages of one role joined
// (their blocks kept apart). The note opens the conversation, in the first user message.
func conversation(t *restore.Transcript, c *restore.Conversation) []gooseMessage {
	start := t.Session.CreatedAt
	msgs := []gooseMessage{{role: "user", blocks: []any{textBlock{"text", restore.NoteText(t)}}, at: start}}
	results := map[string]responseBlock{}
	resultAt := map[string]time.Time{}
	for _, tu := range c.Turns {
		at := tu.At
		if at.IsZero() {
			at = start
		}
		if tu.Role == session.RoleTool {
			for _, it := range tu.Items {
				if it.Kind == restore.ItemResult {
					r := responseBlock{Type: "toolResponse", ID: it.CallID}
					r.ToolResult.Status = "success"
					r.ToolResult.Value = resultValue{Content: []textBlock{{"text", it.Text}}, IsError: it.IsError}
					results[it.CallID], resultAt[it.CallID] = r, at
				}
			}
			continue
		}
		m := gooseMessage{role: "user", at: at}
		if tu.Role == session.RoleAssistant {
			m.role = "assistant"
		}
		for _, it := range tu.Items {
			switch it.Kind {
			case restore.ItemText:
				m.blocks = append(m.blocks, textBlock{"text", it.Text})
			case restore.ItemCall:
				r := requestBlock{Type: "toolRequest", ID: it.CallID}
				r.ToolCall.Status = "success"
				r.ToolCall.Value = callValue{Name: it.Name, Arguments: restore.ParamsObject(it.Params)}
				m.blocks = append(m.blocks, r)
				m.calls = append(m.calls, it.CallID)
			}
		}
		msgs = append(msgs, m)
	}
	var out []gooseMessage
	push := func(m gooseMessage) {
		if n := len(out); n > 0 && out[n-1].role == m.role && !out[n-1].result && !m.result && len(out[n-1].calls) == 0 {
			out[n-1].blocks = append(out[n-1].blocks, m.blocks...)
			out[n-1].calls = append(out[n-1].calls, m.calls...)
			return
		}
		out = append(out, m)
	}
	for _, m := range msgs {
		push(m)
		if len(m.calls) == 0 {
			continue
		}
		res := gooseMessage{role: "user", at: m.at, result: true}
		for _, id := range m.calls {
			if r, ok := results[id]; ok {
				res.blocks = append(res.blocks, r)
				if resultAt[id].After(res.at) {
					res.at = resultAt[id]
				}
			}
		}
		if len(res.blocks) > 0 {
			out = append(out, res)
		}
	}
	return out
}

// foreignRows rebuilds a transcript as a new goose session: its sessions row (the restore mark
// in extension_data; a sub-agent of the batch as goose's sub_agent type under its parent) and
// its messages, all visible, each with its own time (created_timestamp never going back, as
// goose's own insert keeps it, and the timestamp column set to the same time).
func foreignRows(t *restore.Transcript, id, parent string) ([]restore.Insert, string) {
	c := restore.Converse(t)
	msgs := conversation(t, c)
	ext := adapters.Object(adapters.Field{Key: markKey, Value: restore.MarkJSON(t)})
	kind := "user"
	var parentID any
	if parent != "" {
		parentID = parent
		if strings.HasSuffix(t.Session.SourceAgent, "/subagent") {
			kind = "sub_agent"
		}
	}
	last := t.Session.CreatedAt
	for _, m := range msgs {
		if m.at.After(last) {
			last = m.at
		}
	}
	name := "Restored: " + t.Session.ID
	out := []restore.Insert{{Table: "sessions",
		Columns: []string{"id", "name", "description", "user_set_name", "session_type", "working_dir", "created_at", "updated_at", "extension_data", "goose_mode", "parent_session_id"},
		Values:  []any{id, name, "", int64(0), kind, t.Session.Project, sqlTime(t.Session.CreatedAt), sqlTime(last), string(ext), "auto", parentID}}}
	var prev int64
	for i, m := range msgs {
		sec := m.at.Unix()
		if sec < prev {
			sec = prev
		}
		prev = sec
		content := restore.Marshal(m.blocks)
		out = append(out, restore.Insert{Table: "messages",
			Columns: []string{"message_id", "session_id", "role", "content_json", "created_timestamp", "timestamp", "metadata_json"},
			Values: []any{"msg_" + id + "_" + restore.NewUUID(t.Session.ID, strconv.Itoa(i)), id, m.role, string(content), sec,
				sqlTime(time.Unix(sec, 0)), `{"userVisible":true,"agentVisible":true}`}})
	}
	return out, c.DroppedReason()
}
