package present

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
)

// SearchTextBudget bounds a rendered search result for people (the CLI), shared fairly
// between its sessions.
const SearchTextBudget = 10_000

// Search writes the result as text for people and for agents (the MCP tool's answer): a
// header with the honest totals, then each session with its hits, query terms in **bold**.
// Every session gets an equal share of budget; each shows at least its first hit.
func Search(r *view.SearchResult, budget int) string {
	var b strings.Builder
	hits := 0
	for _, g := range r.Sessions {
		hits += len(g.Matches)
	}
	kind := "matching"
	if r.Mode == view.ModeVector {
		kind = "nearest"
	}
	more := ""
	if r.MatchedTotalIsLowerBound {
		more = "+"
	}
	fmt.Fprintf(&b, "%d%s %s messages (%d searchable in scope), showing %d hits from %d sessions [%s, by %s, %.0f ms]\n",
		r.MatchedTotal, more, kind, r.SearchableInScope, hits, len(r.Sessions), r.Mode, r.SortBy, r.ElapsedMS)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if len(r.Sessions) == 0 {
		fmt.Fprintf(&b, "\nnothing found (%s): %s\n", strings.ReplaceAll(r.Reason, "_", " "), r.Hint)
		return b.String()
	}
	b.WriteString("key: session [rank] best score | matched/total messages | project | agent | session id\n")
	share := (budget - b.Len() - 200) / len(r.Sessions)
	for i, g := range r.Sessions {
		head := fmt.Sprintf("\nsession [%d] best %.2f | %d/%d | %s | %s | %s\n", i+1, g.BestScore, g.MatchedMessageCount,
			g.SessionMessagesCount, g.Project, g.SourceAgent, g.SessionID)
		if b.Len()+len(head)+300 > budget {
			fmt.Fprintf(&b, "\n... %d more sessions past the %d-character budget: --format json lists them all\n", len(r.Sessions)-i, budget)
			break
		}
		start := b.Len()
		b.WriteString(head)
		for j, h := range g.Matches {
			hit := fmt.Sprintf("--- [%d] %.2f | %s | %s | %s", j+1, h.Score, h.Role, shortTime(h.Timestamp), h.MessageID)
			if h.SessionID != g.SessionID {
				hit += " | sub-agent " + h.SessionID
			}
			left := share - (b.Len() - start) - len(hit) - 30
			if j > 0 && left < 200 {
				fmt.Fprintf(&b, "... %d more match(es): pond get-message ID, or pond get-session %s\n", len(g.Matches)-j, g.SessionID)
				break
			}
			// The first hit always shows, at least its start.
			fmt.Fprintf(&b, "%s ---\n%s\n", hit, clipChars(markTerms(h.Text, h.Highlights), max(left, 60)))
		}
	}
	if r.HasMore {
		b.WriteString("\nmore sessions matched: raise --limit or narrow the filters\n")
	}
	return b.String()
}

// markTerms wraps the highlighted byte ranges of text in ** **.
func markTerms(text string, marks [][2]int) string {
	if len(marks) == 0 {
		return text
	}
	var b strings.Builder
	at := 0
	for _, m := range marks {
		if m[0] < at || m[1] > len(text) {
			continue
		}
		b.WriteString(text[at:m[0]])
		b.WriteString("**" + text[m[0]:m[1]] + "**")
		at = m[1]
	}
	b.WriteString(text[at:])
	return b.String()
}

// clipChars cuts s to n characters with a marker saying how much is left out.
func clipChars(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := runeOffset(s, n)
	return s[:cut] + fmt.Sprintf(" [+%d more chars]", utf8.RuneCountInString(s[cut:]))
}

// runeOffset is the byte offset of s's n-th character (len(s) when it has fewer).
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// Bound cuts s to at most limit characters, on a character boundary, with a note saying so:
// what a face with a hard size limit (an MCP answer) shows.
func Bound(s string, limit int) string {
	r := []rune(s)
	if len(r) <= limit {
		return s
	}
	const note = "\n[cut at %d characters: ask for less (a smaller limit, or page on)]\n"
	return string(r[:limit-len(note)-8]) + fmt.Sprintf(note, limit)
}

func shortTime(ts string) string {
	if len(ts) >= 19 {
		return strings.Replace(ts[:19], "T", " ", 1)
	}
	return ts
}

// Page writes a session page as a transcript: each message's text and one line per tool call,
// result and other part, then where the next pages are.
func Page(p *view.SessionPage) string {
	var b strings.Builder
	s := p.Session
	last := p.FirstIndex + len(p.Messages) - 1
	fmt.Fprintf(&b, "session %s | %s | %s | created %s, messages %d-%d of %d\n", s.ID, s.SourceAgent, s.Project,
		shortTime(s.CreatedAt), p.FirstIndex, last, s.Messages)
	if s.ParentSessionID != "" {
		fmt.Fprintf(&b, "parent session: %s\n", s.ParentSessionID)
	}
	if p.ResolvedFromMessageID != "" {
		fmt.Fprintf(&b, "(%s is a message id: this page starts at it)\n", p.ResolvedFromMessageID)
	}
	if p.BeforeRemaining > 0 && len(p.Messages) > 0 {
		fmt.Fprintf(&b, "... %d earlier: pond get-session %s --before %s\n", p.BeforeRemaining, s.ID, p.Messages[0].ID)
	}
	for i, m := range p.Messages {
		renderView(&b, fmt.Sprintf("[%d]", p.FirstIndex+i), m)
	}
	if p.AfterRemaining > 0 && len(p.Messages) > 0 {
		fmt.Fprintf(&b, "... %d later: pond get-session %s --after %s\n", p.AfterRemaining, s.ID, p.Messages[len(p.Messages)-1].ID)
	}
	if len(p.Subagents) > 0 {
		fmt.Fprintf(&b, "subagents (%d) - pass an id to pond get-session:\n", len(p.Subagents))
		for _, c := range p.Subagents {
			fmt.Fprintf(&b, "  %s | %s | %d messages\n", c.ID, c.SourceAgent, c.Messages)
		}
	}
	return b.String()
}

func renderView(b *strings.Builder, label string, m view.MessageView) {
	fmt.Fprintf(b, "--- %s %s | %s | %s ---\n", label, m.Role, shortTime(m.Timestamp), m.ID)
	if m.Content != "" {
		b.WriteString(m.Content + "\n")
	}
	if m.Text != "" {
		b.WriteString(m.Text + "\n")
	}
	for _, p := range m.PartsSummary {
		switch p.Kind {
		case string(session.PartToolCall):
			fmt.Fprintf(b, "  -> %s [%s]\n", p.Label, p.CallID)
		case string(session.PartToolResult):
			status := "ok"
			if p.Failed != nil && *p.Failed {
				status = "failed"
			}
			fmt.Fprintf(b, "  <- %s [%s] (%s)\n", p.Label, p.CallID, status)
		default:
			fmt.Fprintf(b, "  [%s] %s\n", p.Kind, p.Label)
		}
	}
}

// Message writes the message with its parts in full between its neighbours; the target is
// marked with ">".
func Message(d *view.MessageDetail) string {
	var b strings.Builder
	s := d.Session
	fmt.Fprintf(&b, "session %s | %s | %s\n", s.ID, s.SourceAgent, s.Project)
	for _, m := range d.Before {
		renderView(&b, "", m)
	}
	t := d.Target
	fmt.Fprintf(&b, "> --- %s | %s | %s ---\n", t.Role, shortTime(t.Timestamp), t.ID)
	if t.Content != "" {
		b.WriteString(t.Content + "\n")
	}
	for _, p := range d.TargetParts {
		tag := string(p.Type)
		if p.Provenance == session.Injected {
			tag += ", injected"
		}
		switch p.Type {
		case session.PartText, session.PartReasoning:
			fmt.Fprintf(&b, "[%s]\n%s\n", tag, p.Text)
		case session.PartToolCall:
			fmt.Fprintf(&b, "[%s %s %s]\n%s\n", tag, p.Name, p.CallID, p.Params)
		case session.PartToolResult:
			status := "ok"
			if p.IsFailure {
				status = "failed"
			}
			fmt.Fprintf(&b, "[%s %s %s %s]\n%s\n", tag, p.Name, p.CallID, status, p.Result)
		case session.PartFile:
			size := ""
			if p.Data != nil {
				switch p.Data.Kind {
				case session.FileBytes:
					size = fmt.Sprintf("%d bytes", len(p.Data.Bytes))
				default:
					size = p.Data.Value
				}
			}
			fmt.Fprintf(&b, "[%s %s %s] %s\n", tag, p.FileName, p.MediaType, size)
		case session.PartToolApprovalRequest:
			fmt.Fprintf(&b, "[%s %s for %s]\n", tag, p.ApprovalID, p.ToolCallID)
		case session.PartToolApprovalResponse:
			fmt.Fprintf(&b, "[%s %s approved=%v] %s\n", tag, p.ApprovalID, p.Approved, p.Reason)
		}
	}
	if d.TargetPartsRemaining > 0 {
		fmt.Fprintf(&b, "... %d more parts past the %d-byte budget: read them with pond sql on parts\n", d.TargetPartsRemaining, view.PageBudgetBytes)
	}
	for _, m := range d.After {
		renderView(&b, "", m)
	}
	if len(d.AlsoInSessions) > 0 {
		fmt.Fprintf(&b, "also in sessions (forks): %s — pass --session to read one\n", strings.Join(d.AlsoInSessions, ", "))
	}
	return b.String()
}
