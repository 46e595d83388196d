package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// ScopeKey is the experimental client capability under which an MCP client names, at its
// initialize, the part of the archive its session may read (a Scope). The daemon binds it to
// that session: MCP refuses a second initialize, so it can be narrowed only by opening a new
// connection, never widened on this one. The server announces the same key, so a client can
// tell a daemon that enforces scopes from one that would ignore the request.
//
// On a socket that only the user's own processes may open this guards against the model (an
// agent's tool calls that would reach past what its host lets it see), not against the user,
// who can open an unscoped connection at will.
const ScopeKey = "pond/scope"

// CodeForbidden is the JSON-RPC error of a read outside the session's scope.
const CodeForbidden = -32017

// maxTreeDepth bounds the walk up a session's parents when a scope holds a session tree.
const maxTreeDepth = 64

// Scope is what a scoped MCP session may read. Every field set must hold for a session:
// its source agent is SourceAgent or one of its sub-kinds ("openclaw" covers
// "openclaw/subagent"); its project is Project or a folder under it; it is Session, or with
// Tree, Session or a session whose chain of parents reaches Session (what it spawned, down its
// lineage). A scoped session gets no SQL and no archive-wide counts: a statement cannot be
// confined to a scope.
type Scope struct {
	SourceAgent string `json:"source_agent,omitempty"`
	Project     string `json:"project,omitempty"`
	Session     string `json:"session,omitempty"`
	Tree        bool   `json:"tree,omitempty"`
}

func (s *Scope) check() error {
	for k, v := range map[string]string{"source_agent": s.SourceAgent, "project": s.Project, "session": s.Session} {
		if len(v) > 4096 || strings.ContainsAny(v, "\x00\n") {
			return fmt.Errorf("scope %s: not a name", k)
		}
	}
	if s.Tree && s.Session == "" {
		return errors.New("scope: tree needs a session")
	}
	if *s == (Scope{}) {
		return errors.New("scope: empty (connect without " + ScopeKey + " for the whole archive)")
	}
	return nil
}

// String says what the scope holds, for refusals.
func (s *Scope) String() string {
	var parts []string
	if s.SourceAgent != "" {
		parts = append(parts, "agent "+s.SourceAgent)
	}
	if s.Project != "" {
		parts = append(parts, "project "+s.Project)
	}
	switch {
	case s.Tree:
		parts = append(parts, "session "+s.Session+" and the sessions it spawned")
	case s.Session != "":
		parts = append(parts, "session "+s.Session)
	}
	return strings.Join(parts, ", ")
}

// scopeOf is the scope bound to the request's session, nil when it has none. A scope the
// daemon cannot read fails every call (closed), rather than serving the whole archive.
func scopeOf(ss *mcp.ServerSession) (*Scope, error) {
	if ss == nil {
		return nil, nil
	}
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil {
		return nil, nil
	}
	raw, ok := p.Capabilities.Experimental[ScopeKey]
	if !ok {
		return nil, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, scopeError(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields() // a restriction this daemon does not know must not be dropped
	var s Scope
	if err := dec.Decode(&s); err != nil {
		return nil, scopeError(err)
	}
	if err := s.check(); err != nil {
		return nil, scopeError(err)
	}
	return &s, nil
}

func scopeError(err error) error {
	return wireError(CodeValidation, apitype.CodeValidation, false, fmt.Sprintf("this connection's %s capability is not usable: %v; reconnect with a valid one", ScopeKey, err), nil)
}

// forbidden refuses a read outside the scope.
func forbidden(s *Scope, what string) error {
	return wireError(CodeForbidden, apitype.CodeForbidden, false,
		fmt.Sprintf("%s is outside this connection's scope (%s)", what, s), map[string]any{"scope": s})
}

// judge decides whether sessions are in a scope, looking up parents (once each) for a tree.
type judge struct {
	s       *Scope
	h       *handlers
	ctx     context.Context
	info    map[string]*view.SessionInfo
	decided map[string]bool
}

func (h *handlers) judge(ctx context.Context, s *Scope) *judge {
	return &judge{s: s, h: h, ctx: ctx, info: map[string]*view.SessionInfo{}, decided: map[string]bool{}}
}

// lookup is a session's description, nil when the archive has no such session.
func (j *judge) lookup(id string) (*view.SessionInfo, error) {
	if si, ok := j.info[id]; ok {
		return si, nil
	}
	page, err := j.h.api.GetSession(j.ctx, &apitype.GetSessionRequest{GetSessionRequest: view.GetSessionRequest{ID: id, Limit: 1}})
	var ae *apitype.Error
	switch {
	case errors.As(err, &ae) && ae.Code == apitype.CodeNotFound:
		j.info[id] = nil
		return nil, nil
	case err != nil:
		return nil, err
	}
	si := page.Session
	if si.ID != id { // id named a message, not a session
		j.info[id] = nil
		return nil, nil
	}
	j.info[id] = &si
	return &si, nil
}

// in says whether the session si describes is in the scope.
func (j *judge) in(si *view.SessionInfo) (bool, error) {
	if si == nil {
		return false, nil
	}
	if ok, seen := j.decided[si.ID]; seen {
		return ok, nil
	}
	j.info[si.ID] = si
	ok, err := j.decide(si)
	if err == nil {
		j.decided[si.ID] = ok
	}
	return ok, err
}

func (j *judge) decide(si *view.SessionInfo) (bool, error) {
	s := j.s
	if s.SourceAgent != "" && si.SourceAgent != s.SourceAgent && !strings.HasPrefix(si.SourceAgent, s.SourceAgent+"/") {
		return false, nil
	}
	if s.Project != "" && si.Project != s.Project && !strings.HasPrefix(si.Project, strings.TrimSuffix(s.Project, "/")+"/") {
		return false, nil
	}
	switch {
	case s.Session == "" || si.ID == s.Session:
		return true, nil
	case !s.Tree:
		return false, nil
	}
	seen := map[string]bool{si.ID: true}
	for parent, hops := si.ParentSessionID, 0; parent != "" && hops < maxTreeDepth && !seen[parent]; hops++ {
		if parent == s.Session {
			return true, nil
		}
		seen[parent] = true
		p, err := j.lookup(parent)
		if err != nil || p == nil {
			return false, err
		}
		parent = p.ParentSessionID
	}
	return false, nil
}

// inID says whether the session named id is in the scope (false when there is none).
func (j *judge) inID(id string) (bool, error) {
	si, err := j.lookup(id)
	if err != nil {
		return false, err
	}
	return j.in(si)
}

// clampSearch narrows a search's filters to the scope, or refuses filters that reach past it.
func (j *judge) clampSearch(f *view.SearchFilters) error {
	s := j.s
	if s.SourceAgent != "" {
		switch a := f.SourceAgent; {
		case a == "":
			f.SourceAgent = s.SourceAgent
		case a != s.SourceAgent && !strings.HasPrefix(a, s.SourceAgent+"/"):
			return forbidden(s, "source_agent "+a)
		}
	}
	if s.Project != "" && f.Project == "" {
		// A substring narrows the search to the project and its folders; what else it lets
		// through (a path that merely contains it) filterSearch drops.
		f.Project = view.ProjectFilter(s.Project)
	}
	switch {
	case f.SessionID != "":
		ok, err := j.inID(f.SessionID)
		if err != nil {
			return mapError(err)
		}
		if !ok {
			return forbidden(s, "session "+f.SessionID)
		}
	case s.Session != "" && !s.Tree:
		f.SessionID = s.Session
	}
	return nil
}

// filterSearch keeps the hits of sessions in the scope, at most limit sessions of them. A hit
// whose group session is outside the scope (a sub-agent's, grouped under a root the scope does
// not hold) is listed under its own session. The counts are those of what is kept: the
// archive's own would tell about sessions outside the scope.
func (j *judge) filterSearch(res *view.SearchResult, limit int) error {
	var kept []view.SessionHits
	index := map[string]int{}
	hits := 0
	for _, g := range res.Sessions {
		groupIn, err := j.inID(g.SessionID)
		if err != nil {
			return err
		}
		for _, h := range g.Matches {
			ok, err := j.inID(h.SessionID)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			key := g.SessionID
			if !groupIn {
				key = h.SessionID
			}
			i, seen := index[key]
			if !seen {
				ng := g
				ng.Matches = nil
				if !groupIn {
					si := j.info[key]
					ng = view.SessionHits{SessionID: si.ID, Project: si.Project, SourceAgent: si.SourceAgent, CreatedAt: si.CreatedAt,
						SessionMessagesCount: si.Messages, BestScore: h.Score}
				}
				ng.MatchedMessageCount = 0
				i = len(kept)
				index[key] = i
				kept = append(kept, ng)
			}
			kept[i].Matches = append(kept[i].Matches, h)
			kept[i].MatchedMessageCount++
			hits++
		}
	}
	res.HasMore = len(kept) > limit || (res.HasMore && len(kept) >= limit)
	if len(kept) > limit {
		kept = kept[:limit]
	}
	res.Sessions = kept
	res.MatchedTotal, res.MatchedTotalIsLowerBound, res.SearchableInScope = hits, res.HasMore, 0
	if len(kept) == 0 && res.Reason == "" {
		res.Reason, res.Hint = "no_match", "try other words"
	}
	if len(kept) == 0 {
		res.Hint += " (searched within this connection's scope: " + j.s.String() + ")"
	}
	return nil
}

// unscoped refuses what only a session without a scope may do.
func unscoped(ss *mcp.ServerSession, what string) error {
	s, err := scopeOf(ss)
	if err != nil || s == nil {
		return err
	}
	return forbidden(s, what)
}
