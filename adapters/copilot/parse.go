package copilot

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/jsonl"
	"github.com/pondhq/pond/session"
)

// eventShape is what the mapping reads of an event: its data, with the texts and lists of the
// events that carry conversation.
var eventShape = &adapters.Shape{Members: map[string]*adapters.Shape{
	"data": {Members: map[string]*adapters.Shape{
		"content": {Text: true}, "reasoningText": {Text: true}, "summaryContent": {Text: true},
		"toolRequests": {}, "attachments": {}, "context": {},
		"result": {Members: map[string]*adapters.Shape{"content": {Text: true}}},
		"error":  {Members: map[string]*adapters.Shape{"message": {Text: true}}},
	}},
}}

// envelopeKeys are the keys of every event (the schema's envelope).
var envelopeKeys = keySet("type", "data", "id", "timestamp", "parentId", "agentId", "ephemeral")

// eventTypes are the event types of the 1.0.102 schema (session-events.schema.json, SessionEvent).
// Others are reported through Emitter.Unknown and kept all the same.
var eventTypes = keySet(
	"abort", "agent.interrupted", "assistant.fusion_phase_activity", "assistant.fusion_phase_completed", "assistant.fusion_phase_failed", "assistant.fusion_phase_started",
	"assistant.idle", "assistant.intent", "assistant.message", "assistant.message_delta", "assistant.message_start", "assistant.reasoning",
	"assistant.reasoning_delta", "assistant.server_tool_progress", "assistant.streaming_delta", "assistant.tool_call_delta", "assistant.turn_end", "assistant.turn_retry",
	"assistant.turn_start", "assistant.usage", "auto_mode_switch.completed", "auto_mode_switch.requested", "capabilities.changed", "command.completed",
	"command.execute", "command.queued", "commands.changed", "elicitation.completed", "elicitation.requested", "exit_plan_mode.completed",
	"exit_plan_mode.requested", "external_tool.completed", "external_tool.requested", "hook.end", "hook.progress", "hook.start",
	"human_response.recorded", "mcp.headers_refresh_completed", "mcp.headers_refresh_required", "mcp.oauth_completed", "mcp.oauth_recovery_completed", "mcp.oauth_required",
	"mcp.prompts.list_changed", "mcp.resources.list_changed", "mcp.tools.list_changed", "mcp_app.tool_call_complete", "model.call_failure", "model.call_final_result",
	"model.call_finished", "model.call_start", "pending_messages.modified", "permission.assentDetected", "permission.carriedForward", "permission.completed",
	"permission.contextualAuthorization", "permission.messageAuthorization", "permission.messageAuthorizationDegraded", "permission.messageAuthorizationRead", "permission.requested", "prompt_cache_break",
	"sampling.completed", "sampling.requested", "sandbox.decision", "session.auto_mode_resolved", "session.auto_tier_recommendation", "session.auto_tier_switch_failed",
	"session.autopilot_objective_changed", "session.autopilot_stopped", "session.background_tasks_changed", "session.binary_asset", "session.canvas.closed", "session.canvas.opened",
	"session.canvas.recorded", "session.canvas.registry_changed", "session.canvas.removed", "session.canvas.unavailable", "session.compaction_complete", "session.compaction_start",
	"session.completion_receipt", "session.context_changed", "session.context_cleared", "session.custom_agents_updated", "session.custom_notification", "session.error",
	"session.extensions.attachments_pushed", "session.extensions_loaded", "session.fusion_change_checkpoint", "session.fusion_commit_started", "session.fusion_completed", "session.fusion_handoff",
	"session.fusion_resolved", "session.fusion_route_failed", "session.fusion_route_started", "session.handoff", "session.idle", "session.indexed_search",
	"session.info", "session.managed_plugin_progress", "session.managed_settings_enforced", "session.managed_settings_resolved", "session.mcp_server_needs_reconnect", "session.mcp_server_removed",
	"session.mcp_server_status_changed", "session.mcp_server_tools_loaded", "session.mcp_servers_loaded", "session.memory_changed", "session.mode_changed", "session.mode_notice_delivered",
	"session.model_change", "session.model_deselected", "session.permission_recovery", "session.permissions_changed", "session.plan_changed", "session.quota_observation",
	"session.remote_steerable_changed", "session.request_body_compression_disabled", "session.resume", "session.schedule_cancelled", "session.schedule_created", "session.schedule_rearmed",
	"session.session_limits_changed", "session.shutdown", "session.skills_loaded", "session.snapshot_rewind", "session.start", "session.task_complete",
	"session.title_changed", "session.todos_changed", "session.tools_updated", "session.truncation", "session.usage_checkpoint", "session.usage_info",
	"session.usage_record", "session.warning", "session.workspace_file_changed", "session_limits_exhausted.completed", "session_limits_exhausted.requested", "skill.context_delivered",
	"skill.context_delivered_ref", "skill.invoked", "skill.invoked_ref", "subagent.completed", "subagent.configured", "subagent.deselected",
	"subagent.failed", "subagent.selected", "subagent.started", "system.message", "system.notification", "tool.execution_complete",
	"tool.execution_partial_result", "tool.execution_progress", "tool.execution_start", "tool.shell_output", "tool.user_requested", "tool_search.activated",
	"ui.ephemeral_query", "user.message", "user_input.completed", "user_input.requested", "workflow.run_settled", "workflow.run_started",
	"workflow.run_updated",
)

// dataKeys are the data keys of the events that carry the conversation, per the 1.0.102 schema;
// others are reported (the schema forbids unlisted keys, so one means the format moved).
var dataKeys = map[string]map[string]bool{
	"session.start": keySet("alreadyInUse", "autoTier", "autoTierManaged", "context", "contextTier", "contextTierManaged",
		"copilotVersion", "detachedFromSpawningParentSessionId", "githubMcpToolConfig", "producer", "providerId", "reasoningEffort",
		"reasoningEffortManaged", "reasoningEffortModel", "reasoningSummary", "remoteSteerable", "selectedModel", "sessionId",
		"sessionLimits", "startTime", "verbosity", "version"),
	"user.message": keySet("agentMode", "attachments", "content", "delivery", "interactionId", "isAutopilotContinuation", "messageId",
		"nativeDocumentPathFallbackPaths", "parentAgentTaskId", "responsesReasoning", "source", "supportedNativeDocumentMimeTypes",
		"transformedContent", "turnId"),
	"assistant.message": keySet("apiCallId", "chunkCount", "chunkIndex", "citations", "clientRequestId", "content", "encryptedContent",
		"fusion", "interactionId", "messageId", "model", "originatingMessageId", "outputTokens", "parentToolCallId", "phase", "providerId",
		"reasoningBlocks", "reasoningOpaque", "reasoningText", "reasoningWireField", "requestId", "rte", "serverTools", "serviceRequestId",
		"toolRequests", "turnId"),
	"tool.execution_complete": keySet("error", "fileEdits", "fusion", "interactionId", "isUserRequested", "mcpMeta", "model",
		"parentToolCallId", "result", "rte", "sandboxed", "shellExecution", "success", "toolCallId", "toolDescription", "toolTelemetry",
		"toolUsage", "turnId"),
}

// markInfo is the infoType of the session.info event a foreign restore writes to say where the
// session came from (its message is the restore mark as JSON).
const markInfo = "pond_restored_from"

func keySet(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// unknownKeys are the keys of m that known lacks, sorted; nil in the usual case of none.
func unknownKeys(m adapters.Members, known map[string]bool) []string {
	var out []string
	for k := range m {
		if !known[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// holdBack bounds the leading session.start and session.info events held back before the
// session is emitted (a foreign restore's mark is a session.info right after the start).
const holdBack = 8

// Read implements adapters.Adapter.
func (Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	if src.Skip != "" {
		// Listed by Scan, not read (the sync engine passes such a source over; so does this).
		return adapters.Cursor{Stamp: src.Stamp}, nil
	}
	p := &parser{src: src, out: out, lay: classify(src.Key), emitted: map[string]bool{}}
	st, ok := decodeState(cur.State)
	if !ok || st.Session.ID != p.lay.sessionID() {
		cur = adapters.Cursor{} // a state that does not fit this file: start over
	}
	jf, err := jsonl.Open(src.Path, cur, env.Limits)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("copilot-cli: read %s: %w", src.Key, err)
	}
	defer jf.Close()
	if jf.Resumed() {
		p.sess, p.agents, p.last, p.open, p.tools, p.seen = st.Session, st.Agents, st.Last, st.Open, st.Tools, st.Seen
	}
	jf.Checkpoints(out, func() (json.RawMessage, bool) {
		if p.sess == nil {
			return nil, false // events held back until the session is known
		}
		st, err := p.state()
		return st, err == nil
	})
	next, err := jf.Lines(ctx, p.line, out.Malformed)
	if err != nil {
		return adapters.Cursor{}, fmt.Errorf("copilot-cli: read %s: %w", src.Key, err)
	}
	if p.sess == nil {
		if len(p.pending) == 0 {
			return adapters.Cursor{Stamp: src.Stamp}, nil // nothing written yet
		}
		if err := p.start(); err != nil {
			return adapters.Cursor{}, fmt.Errorf("copilot-cli: read %s: %w", src.Key, err)
		}
	}
	next.Stamp = src.Stamp
	if next.State, err = p.state(); err != nil {
		return adapters.Cursor{}, fmt.Errorf("copilot-cli: read %s: %w", src.Key, err)
	}
	return next, nil
}

// parser turns one source's lines into events.
type parser struct {
	src adapters.Source
	out adapters.Emitter
	lay layout

	sess    *session.Session   // nil until known
	agents  []*session.Session // the sub-agent sessions met, most recently met last
	emitted map[string]bool    // sessions emitted in this read
	pending []event            // held back until the session is known

	last  time.Time // the previous event's time
	open  []*openMessage
	tools toolNames
	seen  adapters.SeenIDs
}

// event is one line of a source.
type event struct {
	n   *adapters.Node
	raw []byte
	no  int
}

func (p *parser) state() (json.RawMessage, error) {
	return json.Marshal(cursorState{V: stateVersion, Session: p.sess, Agents: p.agents, Last: p.last, Open: p.open, Tools: p.tools, Seen: p.seen})
}

func (p *parser) at(no int) adapters.Location { return adapters.Location{Path: p.src.Path, Line: no} }

func (p *parser) unknown(no int, what string) { p.out.Unknown(p.at(no), what) }

func (p *parser) line(raw []byte, no int) error {
	n, err := adapters.ReadObject(raw, eventShape)
	if err != nil {
		p.out.Malformed(p.at(no), fmt.Errorf("malformed event: %w", err))
		return nil
	}
	e := event{n: n, raw: raw, no: no}
	if p.sess != nil {
		return p.event(e)
	}
	p.pending = append(p.pending, e)
	switch n.Object().Str("type") {
	case "session.start", "session.info":
		if len(p.pending) < holdBack {
			return nil
		}
	}
	return p.start()
}

// start settles the session from the events held back, emits it, then those events.
func (p *parser) start() error {
	s := &session.Session{ID: p.lay.sessionID(), SourceAgent: Name}
	src := []adapters.Field{{Key: "path", Value: adapters.OptString(p.src.Key)}}
	if s.ID != p.lay.name {
		src = append(src, adapters.Field{Key: "name", Value: adapters.OptString(p.lay.name)})
	}
	var mark json.RawMessage
	for i, e := range p.pending {
		r := e.n.Object()
		d := e.n.Kid("data")
		switch r.Str("type") {
		case "session.start":
			if i > 0 {
				continue // the first start says how the session began
			}
			data := d.Object()
			s.Project = d.Kid("context").Object().Str("cwd")
			s.CreatedAt = data.Time("startTime")
			src = append(src,
				adapters.Field{Key: "version", Value: adapters.OptString(data.Str("copilotVersion"))},
				adapters.Field{Key: "producer", Value: adapters.OptString(data.Str("producer"))})
			if id := data.Str("sessionId"); id != "" && id != p.lay.name {
				src = append(src, adapters.Field{Key: "line_session_id", Value: adapters.OptString(id)})
			}
			if parent := data.Str("detachedFromSpawningParentSessionId"); parent != "" && parent != s.ID && session.CheckID(parent) == nil {
				// A detached run that continues its parent's context.
				s.ParentSessionID = parent
				src = append(src, adapters.Field{Key: "parent_from", Value: adapters.OptString("detachedFromSpawningParentSessionId")})
			}
		case "session.info":
			if data := d.Object(); data.Str("infoType") == markInfo && mark == nil {
				mark = json.RawMessage(data.Str("message"))
			}
		}
	}
	if s.CreatedAt.IsZero() {
		s.CreatedAt = p.pending[0].n.Object().Time("timestamp")
	}
	if s.CreatedAt.IsZero() {
		// No event says when: the epoch, not the file's time, which a restore changes.
		s.CreatedAt = time.Unix(0, 0).UTC()
	}
	if strings.TrimSpace(s.Project) == "" {
		s.Project = "unknown" // no session.start says where it ran
	}
	s.Options = session.Options{"source": adapters.Object(src...)}
	if json.Valid(mark) {
		if parent := markParent(mark); parent != "" && parent != s.ID && s.ParentSessionID == "" {
			s.ParentSessionID = parent // a sub-agent a foreign restore rebuilt as a session of its own
		}
		adapters.ApplyRestoreMark(s, mark)
	}
	p.sess, p.last = s, s.CreatedAt
	pending := p.pending
	p.pending = nil
	if err := p.emitSession(s); err != nil {
		return err
	}
	for _, e := range pending {
		if err := p.event(e); err != nil {
			return err
		}
	}
	return nil
}

// emitSession emits s once per read, before anything of it.
func (p *parser) emitSession(s *session.Session) error {
	if p.emitted[s.ID] {
		return nil
	}
	p.emitted[s.ID] = true
	c := *s
	c.Options = c.Options.Clone()
	return p.out.Event(session.Event{Session: &c})
}

// sessionFor is the session an event belongs to: the file's, or the sub-agent's its agentId
// names, made from this event when it is the agent's first.
func (p *parser) sessionFor(agentID string, e event, t time.Time) (*session.Session, error) {
	if err := p.emitSession(p.sess); err != nil {
		return nil, err
	}
	if agentID == "" {
		return p.sess, nil
	}
	id := subagentID(p.sess.ID, agentID)
	for i, s := range p.agents {
		if s.ID == id {
			if i != len(p.agents)-1 {
				p.agents = append(slices.Delete(p.agents, i, i+1), s)
			}
			return s, p.emitSession(s)
		}
	}
	s := &session.Session{ID: id, ParentSessionID: p.sess.ID, SourceAgent: SubagentAgent, Project: p.sess.Project, CreatedAt: t}
	src := []adapters.Field{{Key: "agent_id", Value: adapters.OptString(agentID)}}
	if e.n.Object().Str("type") == "subagent.started" {
		d := e.n.Kid("data").Object()
		src = append(src,
			adapters.Field{Key: "agent_name", Value: adapters.OptString(d.Str("agentName"))},
			adapters.Field{Key: "agent_display_name", Value: adapters.OptString(d.Str("agentDisplayName"))},
			adapters.Field{Key: "tool_call_id", Value: adapters.OptString(d.Str("toolCallId"))},
			// A sub-agent another one launched: its task id. Every sub-agent is a child of the
			// file's session all the same (a restore takes a session with its direct children).
			adapters.Field{Key: "parent_agent", Value: adapters.OptString(d.Str("parentId"))})
	}
	s.Options = session.Options{"source": adapters.Object(src...)}
	p.agents = append(p.agents, s)
	if len(p.agents) > agentsCap {
		p.agents = p.agents[1:]
	}
	return s, p.emitSession(s)
}

// event maps one event once the session is known.
func (p *parser) event(e event) error {
	r := e.n.Object()
	no := e.no
	for _, k := range unknownKeys(r, envelopeKeys) {
		p.unknown(no, fmt.Sprintf("event key %q", k))
	}
	typ := r.Str("type")
	if !eventTypes[typ] {
		p.unknown(no, fmt.Sprintf("event type %q", typ))
	}
	d := e.n.Kid("data")
	data := d.Object()
	if known := dataKeys[typ]; known != nil {
		for _, k := range unknownKeys(data, known) {
			p.unknown(no, fmt.Sprintf("%s key %q", typ, k))
		}
	}
	t := r.Time("timestamp")
	if t.IsZero() {
		t = p.last
	} else {
		p.last = t
	}
	s, err := p.sessionFor(r.Str("agentId"), e, t)
	if err != nil {
		return err
	}
	id := r.Str("id")
	if id == "" {
		id = adapters.RecordID(e.raw)
	}
	id = p.seen.Next(id)
	source := adapters.Object(adapters.Field{Key: "line", Value: json.RawMessage(strconv.Itoa(no))}, adapters.Field{Key: "record", Value: e.raw})
	m := &session.Message{SessionID: s.ID, ID: id, Role: session.RoleSystem, Timestamp: t}
	var parts []session.Part
	prov := session.Conversational
	switch typ {
	case "user.message":
		m.Role = session.RoleUser
		if src := data.Str("source"); strings.HasPrefix(src, "skill-") {
			prov = session.Injected // a skill's hidden injection, not typed by the user
		}
		if v, _ := data.Bool("isAutopilotContinuation"); v {
			prov = session.Injected
		}
		parts = p.textPart(parts, session.PartText, d.Str("content"))
		parts = p.attachments(parts, d.Kid("attachments"), no)
	case "assistant.message":
		return p.assistant(s, m, e, source)
	case "assistant.reasoning":
		m.Role = session.RoleAssistant
		parts = p.textPart(parts, session.PartReasoning, d.Str("content"))
	case "tool.execution_start":
		p.tools.add(data.Str("toolCallId"), data.Str("toolName"))
	case "tool.user_requested":
		// A tool the user ran by hand (!command): the call is theirs.
		m.Role = session.RoleUser
		p.tools.add(data.Str("toolCallId"), data.Str("toolName"))
		parts = append(parts, session.Part{Type: session.PartToolCall, CallID: data.Str("toolCallId"), Name: data.Str("toolName"),
			Params: adapters.Value(data["arguments"])})
	case "tool.execution_complete":
		m.Role = session.RoleTool
		ok, _ := data.Bool("success")
		parts = append(parts, session.Part{Type: session.PartToolResult, CallID: data.Str("toolCallId"),
			Name: p.tools.take(data.Str("toolCallId")), IsFailure: !ok, Result: resultOf(d)})
	case "system.notification":
		// Runtime notices the model is handed as a user turn (<system_notification>…).
		m.Role, prov = session.RoleUser, session.Injected
		parts = p.textPart(parts, session.PartText, d.Str("content"))
	case "session.compaction_complete":
		// The summary that stands for the history before it from here on.
		if d.Str("summaryContent") != "" {
			m.Role, prov = session.RoleUser, session.Injected
			parts = p.textPart(parts, session.PartText, d.Str("summaryContent"))
		}
	}
	m.Options = session.Options{"source": source}
	if err := p.out.Event(session.Event{Message: m}); err != nil {
		return err
	}
	return p.emitParts(s.ID, id, 0, parts, prov)
}

// textPart adds a part of text, unless it is blank.
func (p *parser) textPart(parts []session.Part, typ session.PartType, text string) []session.Part {
	if strings.TrimSpace(text) == "" {
		return parts
	}
	return append(parts, session.Part{Type: typ, Text: text})
}

// attachments adds the attachments that carry their bytes (blobs) as file parts; the others
// (files, folders, selections, GitHub references) name where the content is, kept in the record.
func (p *parser) attachments(parts []session.Part, list *adapters.Node, no int) []session.Part {
	for _, a := range list.List() {
		m := a.Object()
		if m == nil {
			p.unknown(no, "attachment that is not an object")
			continue
		}
		if m.Str("type") != "blob" || !m.Has("data") {
			continue
		}
		fd := &session.FileData{Kind: session.FileBytes}
		if b, err := base64.StdEncoding.DecodeString(m.Str("data")); err == nil {
			fd.Bytes = b
		} else {
			fd.Kind, fd.Value = session.FileString, m.Str("data")
		}
		parts = append(parts, session.Part{Type: session.PartFile, MediaType: m.Str("mimeType"), FileName: m.Str("displayName"), Data: fd})
	}
	return parts
}

// assistant maps an assistant.message: reasoning, text and tool calls. The chunks of one model
// call (one apiCallId, chunkIndex of chunkCount) make one message, the first chunk's.
func (p *parser) assistant(s *session.Session, m *session.Message, e event, source json.RawMessage) error {
	d := e.n.Kid("data")
	data := d.Object()
	m.Role = session.RoleAssistant
	var parts []session.Part
	parts = p.textPart(parts, session.PartReasoning, d.Str("reasoningText"))
	parts = p.textPart(parts, session.PartText, d.Str("content"))
	for _, tr := range d.Kid("toolRequests").List() {
		c := tr.Object()
		if c == nil {
			p.unknown(e.no, "tool request that is not an object")
			continue
		}
		p.tools.add(c.Str("toolCallId"), c.Str("name"))
		parts = append(parts, session.Part{Type: session.PartToolCall, CallID: c.Str("toolCallId"), Name: c.Str("name"), Params: adapters.Value(c["arguments"])})
	}
	api := data.Str("apiCallId")
	chunk, chunked := data.Int("chunkIndex")
	count, _ := data.Int("chunkCount")
	chunked = chunked && api != "" && count > 1
	last := !chunked || chunk >= count-1

	if o := p.openOf(s.ID); o != nil && chunked && o.API == api && chunk > o.Chunk {
		o.Chunk = chunk
		if last {
			p.closeOpen(s.ID)
		}
		if len(parts) > 0 {
			if !o.emitted {
				// A resumed read: the message comes again before the parts it gains.
				o.emitted = true
				if err := p.out.Event(session.Event{Message: &session.Message{SessionID: s.ID, ID: o.ID, Role: session.RoleAssistant, Timestamp: o.At}}); err != nil {
					return err
				}
			}
			parts[0].Options = session.Options{"source": source}
			next := o.Next
			o.Next += len(parts)
			return p.emitParts(s.ID, o.ID, next, parts, session.Conversational)
		}
		// A chunk that adds nothing stands alone (its record kept on a message of its own).
	} else if chunked {
		p.closeOpen(s.ID)
		if !last {
			p.open = append(p.open, &openMessage{Session: s.ID, ID: m.ID, API: api, Chunk: chunk, At: m.Timestamp, Next: len(parts), emitted: true})
			if len(p.open) > openCap {
				p.open = p.open[1:]
			}
		}
	}
	m.Options = session.Options{"source": source}
	if model := data.Str("model"); model != "" {
		m.Options["model"] = adapters.Object(adapters.Field{Key: "model", Value: adapters.String(model)})
	}
	if err := p.out.Event(session.Event{Message: m}); err != nil {
		return err
	}
	return p.emitParts(s.ID, m.ID, 0, parts, session.Conversational)
}

// openOf is the open chunked message of a session; nil when none.
func (p *parser) openOf(sid string) *openMessage {
	for _, o := range p.open {
		if o.Session == sid {
			return o
		}
	}
	return nil
}

func (p *parser) closeOpen(sid string) {
	p.open = slices.DeleteFunc(p.open, func(o *openMessage) bool { return o.Session == sid })
}

func (p *parser) emitParts(sid, msgID string, ordinal int, parts []session.Part, prov session.Provenance) error {
	for i := range parts {
		pt := parts[i]
		pt.SessionID, pt.MessageID, pt.Ordinal = sid, msgID, ordinal+i
		pt.ID = fmt.Sprintf("%s:%d", msgID, ordinal+i)
		if pt.Provenance == "" {
			pt.Provenance = prov
		}
		if err := p.out.Event(session.Event{Part: &pt}); err != nil {
			return err
		}
	}
	return nil
}

// resultOf is a tool.execution_complete's result: the text the model was sent (result.content,
// else the error's message) when there is one, else the result or error as written.
func resultOf(d *adapters.Node) json.RawMessage {
	res, fail := d.Kid("result"), d.Kid("error")
	switch {
	case res.Object().IsStr("content"):
		return res.Object()["content"]
	case fail.Object().IsStr("message"):
		return fail.Object()["message"]
	case res != nil:
		return adapters.Value(res.Raw)
	case fail != nil:
		return adapters.Value(fail.Raw)
	}
	return nil
}
