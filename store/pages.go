package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/sqlite"
)

// Bounds of session pages and message reads.
const (
	maxContext = 50
)

// GetSession reads one page of a session from the mirror.
func (s *Store) GetSession(ctx context.Context, req view.GetSessionRequest) (*view.SessionPage, error) {
	if req.ID == "" {
		req.ID = req.SessionID
	}
	if req.ID == "" {
		return nil, validation("id", "a session or message id is required")
	}
	if n := countSet(req.AfterMessageID, req.BeforeMessageID, req.AtMessageID); n > 1 {
		return nil, validation("after_message_id", "after_message_id, before_message_id and at_message_id exclude each other")
	}
	switch req.From {
	case "", "start", "end":
	default:
		return nil, validation("from", fmt.Sprintf("unknown value %q (want start or end)", req.From))
	}
	limit := req.Limit
	if limit <= 0 {
		limit = view.DefaultPageLimit
	}
	limit = min(limit, view.MaxPageLimit)
	db, err := s.searchDB()
	if err != nil {
		return nil, err
	}
	page := &view.SessionPage{Scope: "session", Messages: []view.MessageView{}}
	info, err := sessionInfo(ctx, db, req.ID)
	if err == ErrNotFound {
		// Perhaps a message id: read its session, starting there.
		var sid string
		qerr := db.QueryRowContext(ctx, `SELECT session_id FROM messages WHERE message_id = ? ORDER BY session_id LIMIT 1`, req.ID).Scan(&sid)
		if isNoRows(qerr) {
			return nil, fmt.Errorf("%w: no session or message has the id %s", ErrNotFound, req.ID)
		}
		if qerr != nil {
			return nil, fmt.Errorf("store: get session: %w", qerr)
		}
		if info, err = sessionInfo(ctx, db, sid); err != nil {
			return nil, err
		}
		page.ResolvedFromMessageID = req.ID
	} else if err != nil {
		return nil, err
	}
	page.Session = info

	ids, err := messageOrder(ctx, db, info.ID)
	if err != nil {
		return nil, err
	}
	position := func(id, field string) (int, error) {
		for i, m := range ids {
			if m == id {
				return i, nil
			}
		}
		return 0, validation(field, fmt.Sprintf("message %s is not in session %s (a stale anchor?)", id, info.ID))
	}
	lo, hi := 0, min(limit, len(ids))
	switch {
	case req.AfterMessageID != "":
		i, err := position(req.AfterMessageID, "after_message_id")
		if err != nil {
			return nil, err
		}
		lo, hi = i+1, min(i+1+limit, len(ids))
	case req.BeforeMessageID != "":
		i, err := position(req.BeforeMessageID, "before_message_id")
		if err != nil {
			return nil, err
		}
		lo, hi = max(0, i-limit), i
	case req.AtMessageID != "":
		i, err := position(req.AtMessageID, "at_message_id")
		if err != nil {
			return nil, err
		}
		lo, hi = i, min(i+limit, len(ids))
	case page.ResolvedFromMessageID != "":
		i, _ := position(page.ResolvedFromMessageID, "id")
		lo, hi = i, min(i+limit, len(ids))
	case req.From == "end":
		lo, hi = max(0, len(ids)-limit), len(ids)
	}
	views, err := messageViews(ctx, db, info.ID, ids[lo:hi])
	if err != nil {
		return nil, err
	}
	// Keep within the byte budget, at least one message; from the end, keep the newest.
	used, kept := 0, 0
	fromEnd := req.From == "end" || req.BeforeMessageID != ""
	for k := range views {
		i := k
		if fromEnd {
			i = len(views) - 1 - k
		}
		b, _ := json.Marshal(views[i])
		if kept > 0 && used+len(b) > view.PageBudgetBytes {
			break
		}
		used += len(b)
		kept++
	}
	if fromEnd {
		lo += len(views) - kept
		views = views[len(views)-kept:]
	} else {
		hi = lo + kept
		views = views[:kept]
	}
	page.Messages = views
	page.FirstIndex = lo + 1
	page.BeforeRemaining, page.AfterRemaining = lo, len(ids)-hi
	if lo == 0 {
		if page.Subagents, err = childSessions(ctx, db, info.ID); err != nil {
			return nil, err
		}
	}
	return page, nil
}

func countSet(values ...string) int {
	n := 0
	for _, v := range values {
		if v != "" {
			n++
		}
	}
	return n
}

// GetMessage reads one message with its full parts and neighbours.
func (s *Store) GetMessage(ctx context.Context, req view.GetMessageRequest) (*view.MessageDetail, error) {
	if req.ID == "" {
		req.ID = req.MessageID
	}
	if req.ID == "" {
		return nil, validation("id", "a message id is required")
	}
	before, after := view.DefaultContext, view.DefaultContext
	if req.ContextBefore != nil {
		before = max(0, min(*req.ContextBefore, maxContext))
	}
	if req.ContextAfter != nil {
		after = max(0, min(*req.ContextAfter, maxContext))
	}
	db, err := s.searchDB()
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT session_id FROM messages WHERE message_id = ? ORDER BY session_id`, req.ID)
	if err != nil {
		return nil, fmt.Errorf("store: get message: %w", err)
	}
	var sessions []string
	for rows.Next() {
		var sid string
		if err := rows.Scan(&sid); err != nil {
			rows.Close()
			return nil, err
		}
		sessions = append(sessions, sid)
	}
	rows.Close()
	if len(sessions) == 0 {
		if _, err := sessionInfo(ctx, db, req.ID); err == nil {
			return nil, validation("id", fmt.Sprintf("%s is a session id: read sessions with get-session (pond get-session %s)", req.ID, req.ID))
		}
		return nil, fmt.Errorf("%w: no message has the id %s", ErrNotFound, req.ID)
	}
	sid := sessions[0]
	if req.SessionID != "" {
		sid = ""
		for _, x := range sessions {
			if x == req.SessionID {
				sid = x
			}
		}
		if sid == "" {
			return nil, validation("session_id", fmt.Sprintf("session %s holds no message %s", req.SessionID, req.ID))
		}
	}
	d := &view.MessageDetail{Scope: "message", Before: []view.MessageView{}, After: []view.MessageView{}}
	for _, x := range sessions {
		if x != sid {
			d.AlsoInSessions = append(d.AlsoInSessions, x)
		}
	}
	if d.Session, err = sessionInfo(ctx, db, sid); err != nil {
		return nil, err
	}
	ids, err := messageOrder(ctx, db, sid)
	if err != nil {
		return nil, err
	}
	at := 0
	for i, id := range ids {
		if id == req.ID {
			at = i
		}
	}
	views, err := messageViews(ctx, db, sid, ids[max(0, at-before):min(len(ids), at+after+1)])
	if err != nil {
		return nil, err
	}
	for _, v := range views {
		switch {
		case v.ID == req.ID:
			d.Target = v
		case d.Target.ID == "":
			d.Before = append(d.Before, v)
		default:
			d.After = append(d.After, v)
		}
	}
	parts, err := s.messageParts(ctx, db, sid, req.ID)
	if err != nil {
		return nil, err
	}
	d.TargetParts, d.TargetPartsRemaining = fitParts(parts, view.PageBudgetBytes)
	return d, nil
}

// fitParts keeps parts while their JSON fits budget; a first part too large alone has its
// bodies cut with a marker so that the reader still sees its beginning.
func fitParts(parts []session.Part, budget int) ([]session.Part, int) {
	out := []session.Part{}
	used := 0
	for i, p := range parts {
		b, _ := json.Marshal(p)
		if used+len(b) > budget {
			if i > 0 {
				return out, len(parts) - i
			}
			p = cutPart(p, budget/2)
			b, _ = json.Marshal(p)
		}
		used += len(b)
		out = append(out, p)
	}
	return out, 0
}

// cutPart shortens a part's large bodies to about limit bytes each.
func cutPart(p session.Part, limit int) session.Part {
	cut := func(s string) string {
		if len(s) <= limit {
			return s
		}
		end := limit
		for end > 0 && !utf8Start(s[end]) {
			end--
		}
		return s[:end] + fmt.Sprintf(" [+%d more bytes]", len(s)-end)
	}
	p.Text = cut(p.Text)
	if len(p.Params) > limit {
		p.Params, _ = json.Marshal(cut(string(p.Params)))
	}
	if len(p.Result) > limit {
		p.Result, _ = json.Marshal(cut(string(p.Result)))
	}
	if p.Data != nil && len(p.Data.Bytes) > limit {
		p.Data = &session.FileData{Kind: session.FileString, Value: fmt.Sprintf("[%d bytes of %s not shown]", len(p.Data.Bytes), p.MediaType)}
	}
	p.Options = nil
	return p
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func sessionInfo(ctx context.Context, db querier, id string) (view.SessionInfo, error) {
	var i view.SessionInfo
	var parent sql.NullString
	err := db.QueryRowContext(ctx, `SELECT session_id, source_agent, project, created_at, parent_session_id,
		(SELECT count(*) FROM messages WHERE session_id = s.session_id) FROM sessions s WHERE session_id = ?`, id).
		Scan(&i.ID, &i.SourceAgent, &i.Project, &i.CreatedAt, &parent, &i.Messages)
	if isNoRows(err) {
		return i, ErrNotFound
	}
	if err != nil {
		return i, fmt.Errorf("store: session %s: %w", id, err)
	}
	i.ParentSessionID = parent.String
	return i, nil
}

func childSessions(ctx context.Context, db querier, id string) ([]view.SessionInfo, error) {
	ids, err := childSessionIDs(ctx, db, id)
	if err != nil {
		return nil, err
	}
	var out []view.SessionInfo
	for _, c := range ids {
		i, err := sessionInfo(ctx, db, c)
		if err != nil {
			return nil, err
		}
		out = append(out, i)
	}
	return out, nil
}

// messageOrder lists a session's message ids in reading order, from the mirror's
// (session_id, timestamp, message_id) index alone.
func messageOrder(ctx context.Context, db querier, sid string) ([]string, error) {
	ids, err := sqlite.QueryStrings(ctx, db, `SELECT message_id FROM messages WHERE session_id = ? ORDER BY timestamp, message_id`, sid)
	if err != nil {
		return nil, fmt.Errorf("store: messages of %s: %w", sid, err)
	}
	return ids, nil
}

// messageViews reads the given messages of a session with their parts, in the order given.
func messageViews(ctx context.Context, db querier, sid string, ids []string) ([]view.MessageView, error) {
	if len(ids) == 0 {
		return []view.MessageView{}, nil
	}
	marks := placeholders(len(ids))
	args := []any{sid}
	for _, id := range ids {
		args = append(args, id)
	}
	byID := map[string]*view.MessageView{}
	rows, err := db.QueryContext(ctx, `SELECT message_id, role, timestamp, coalesce(content, '') FROM messages
		WHERE session_id = ? AND message_id IN (`+marks+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: read messages of %s: %w", sid, err)
	}
	for rows.Next() {
		v := &view.MessageView{SessionID: sid}
		if err := rows.Scan(&v.ID, &v.Role, &v.Timestamp, &v.Content); err != nil {
			rows.Close()
			return nil, err
		}
		byID[v.ID] = v
	}
	rows.Close()
	// A tool call or result is summarised from its columns: its body, which the mirror may
	// leave to Lance, is not read for a page.
	rows, err = db.QueryContext(ctx, `SELECT message_id, id, ordinal, type, provenance, tool_name, call_id, is_failure,
		CASE WHEN type IN ('tool_call', 'tool_result') THEN NULL ELSE variant_data END FROM parts
		WHERE session_id = ? AND message_id IN (`+marks+`) ORDER BY message_id, ordinal, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: read parts of %s: %w", sid, err)
	}
	defer rows.Close()
	texts := map[string][]string{}
	for rows.Next() {
		p := session.Part{SessionID: sid}
		var tool, call, variant sql.NullString
		var failed sql.NullBool
		if err := rows.Scan(&p.MessageID, &p.ID, &p.Ordinal, &p.Type, &p.Provenance, &tool, &call, &failed, &variant); err != nil {
			return nil, err
		}
		if err := partFromBody(&p, variant.String, nil); err != nil {
			return nil, err
		}
		if p.Type == session.PartToolCall || p.Type == session.PartToolResult {
			p.Name, p.CallID, p.IsFailure = tool.String, call.String, failed.Bool
		}
		v := byID[p.MessageID]
		if v == nil {
			continue
		}
		if p.Type == session.PartText {
			t := p.Text
			if p.Provenance == session.Injected {
				t = "[injected] " + t
			}
			texts[p.MessageID] = append(texts[p.MessageID], t)
			continue
		}
		v.PartsSummary = append(v.PartsSummary, summarize(p))
	}
	out := make([]view.MessageView, 0, len(ids))
	for _, id := range ids {
		if v := byID[id]; v != nil {
			v.Text = strings.Join(texts[id], "\n\n")
			out = append(out, *v)
		}
	}
	return out, rows.Err()
}

// summarize describes a non-text part in a line.
func summarize(p session.Part) view.PartSummary {
	s := view.PartSummary{Kind: string(p.Type)}
	switch p.Type {
	case session.PartToolCall:
		s.Label, s.CallID = p.Name, p.CallID
	case session.PartToolResult:
		failed := p.IsFailure
		s.Label, s.CallID, s.Failed = p.Name, p.CallID, &failed
	case session.PartReasoning:
		s.Label = clip(p.Text, 120)
	case session.PartFile:
		s.Label = strings.TrimSpace(p.FileName + " " + p.MediaType)
	case session.PartToolApprovalRequest:
		s.CallID = p.ToolCallID
	case session.PartToolApprovalResponse:
		s.CallID = p.ApprovalID
		s.Label = map[bool]string{true: "approved", false: "denied"}[p.Approved]
	}
	return s
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	end := n
	for end > 0 && !utf8Start(s[end]) {
		end--
	}
	return s[:end] + "…"
}

// messageParts reads one message's parts in full, file payloads from Lance.
func (s *Store) messageParts(ctx context.Context, db querier, sid, mid string) ([]session.Part, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, ordinal, type, provenance, variant_data, options FROM parts
		WHERE session_id = ? AND message_id = ? ORDER BY ordinal, id`, sid, mid)
	if err != nil {
		return nil, fmt.Errorf("store: parts of %s/%s: %w", sid, mid, err)
	}
	var parts []session.Part
	hasBytes := false
	for rows.Next() {
		p := session.Part{SessionID: sid, MessageID: mid}
		var variant, opts sql.NullString
		if err := rows.Scan(&p.ID, &p.Ordinal, &p.Type, &p.Provenance, &variant, &opts); err != nil {
			rows.Close()
			return nil, err
		}
		p.Options = optionsFrom(opts)
		if err := partFromBody(&p, variant.String, nil); err != nil {
			rows.Close()
			return nil, err
		}
		hasBytes = hasBytes || (p.Data != nil && p.Data.Kind == session.FileBytes)
		parts = append(parts, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if hasBytes {
		payloads, err := s.filePayloads(ctx, []string{sid})
		if err != nil {
			return nil, err
		}
		for i := range parts {
			if d := parts[i].Data; d != nil && d.Kind == session.FileBytes {
				d.Bytes = payloads[sid+"\x00"+mid+"\x00"+parts[i].ID]
			}
		}
	}
	return parts, nil
}
