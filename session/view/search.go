package view

import (
	"encoding/json"
	"errors"
)

// Search modes.
const (
	ModeFTS    = "fts"
	ModeVector = "vector"
	ModeHybrid = "hybrid"
)

// Sort orders.
const (
	SortRelevance = "relevance"
	SortRecency   = "recency"
)

// Bounds of a search.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 200
	// MatchesPerSession bounds the hits a search returns per session (its best ones;
	// matched_message_count still counts them all), unless the search is scoped to one session,
	// where every hit is returned: a common word can match all 10,000 messages of a session,
	// and their snippets made the answer megabytes long.
	MatchesPerSession = 5
)

// SearchRequest is one search. Filters narrow the messages searched; all are optional.
type SearchRequest struct {
	Query   string        `json:"query"`
	Mode    string        `json:"mode,omitempty"`    // fts (default), vector, hybrid
	SortBy  string        `json:"sort_by,omitempty"` // relevance (default), recency
	Filters SearchFilters `json:"filters"`
	Limit   int           `json:"limit,omitempty"` // sessions; default 10, clamped to 1..200
}

// SearchFilters narrow a search.
type SearchFilters struct {
	// Project matches the session's project (its working directory): a case-insensitive
	// substring, "re:<regexp>", or "lit:<path>" for exactly that path.
	Project ProjectFilter `json:"project,omitempty"`
	// SessionID searches one session (and lets sub-agent sessions in).
	SessionID string `json:"session_id,omitempty"`
	// SourceAgent is an agent name, which also matches its sub-kinds ("claude-code" matches
	// "claude-code/subagent"), or a sub-kind, which lets sub-agent sessions in.
	SourceAgent string `json:"source_agent,omitempty"`
	// FromDate and ToDate are inclusive UTC days, YYYY-MM-DD.
	FromDate string `json:"from_date,omitempty"`
	ToDate   string `json:"to_date,omitempty"`
	// Role keeps messages of one role (user, assistant).
	Role string `json:"role,omitempty"`
}

// ProjectFilter is the project filter: a substring, "re:<regexp>" or "lit:<path>". In JSON it
// is that string, or the original system's object {"contains": s} or {"regex": s}.
type ProjectFilter string

// UnmarshalJSON accepts the string and both object forms.
func (p *ProjectFilter) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*p = ProjectFilter(s)
		return nil
	}
	var o struct {
		Contains *string `json:"contains"`
		Regex    *string `json:"regex"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return errors.New(`project: want a string, {"contains": "…"} or {"regex": "…"}`)
	}
	switch {
	case o.Contains != nil && o.Regex == nil:
		*p = ProjectFilter(*o.Contains)
	case o.Regex != nil && o.Contains == nil:
		*p = ProjectFilter("re:" + *o.Regex)
	default:
		return errors.New(`project: give exactly one of contains or regex`)
	}
	return nil
}

// SearchResult lists the sessions with hits, best first.
type SearchResult struct {
	Query    string        `json:"query"`
	Mode     string        `json:"mode"` // the mode that ran (vector falls back to fts, see Notes)
	SortBy   string        `json:"sort_by"`
	Sessions []SessionHits `json:"sessions"`
	// MatchedTotal counts the messages that match in scope; past 10,000 counting stops and
	// MatchedTotalIsLowerBound is set. In vector mode every embedded message is a neighbour,
	// so it is the number of candidates considered.
	MatchedTotal             int  `json:"matched_total"`
	MatchedTotalIsLowerBound bool `json:"matched_total_is_lower_bound,omitempty"`
	// SearchableInScope counts the messages search could see under the filters.
	SearchableInScope int  `json:"searchable_in_scope"`
	HasMore           bool `json:"has_more"`
	// Reason says why nothing came back: "store_empty", "filters_excluded_everything" or
	// "no_match"; Hint suggests what to try instead.
	Reason string `json:"reason,omitempty"`
	Hint   string `json:"hint,omitempty"`
	// Notes tell about fallbacks and defaults that shaped the result.
	Notes     []string `json:"notes,omitempty"`
	ElapsedMS float64  `json:"elapsed_ms"`
}

// SessionHits is one session's hits. Hits in its sub-agent sessions are grouped here too, under
// the root session.
type SessionHits struct {
	SessionID            string  `json:"session_id"`
	Project              string  `json:"project"`
	SourceAgent          string  `json:"source_agent"`
	CreatedAt            string  `json:"created_at"`
	SessionMessagesCount int     `json:"session_messages_count"`
	MatchedMessageCount  int     `json:"matched_message_count"`
	BestScore            float64 `json:"best_score"`
	Matches              []Hit   `json:"matches"` // newest first; the best MatchesPerSession unless the search names the session
}

// Hit is one matching message with a window of its searchable text.
type Hit struct {
	SessionID string  `json:"session_id"` // differs from the group's for a sub-agent's message
	MessageID string  `json:"message_id"`
	Role      string  `json:"role"`
	Timestamp string  `json:"timestamp"`
	Score     float64 `json:"score"` // in [0,1], 1 the best of this search
	Text      string  `json:"text"`
	// Highlights are byte ranges [start, end) of query terms within Text.
	Highlights [][2]int `json:"highlights,omitempty"`
}
