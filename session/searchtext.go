package session

import "strings"

// SearchText is what full-text and semantic search see of a message: the conversational text
// parts of user and assistant messages, plus the names and media types of their files.
// Reasoning, tool calls and results, approvals, injected context, and system and tool messages
// are stored but not searched (search would drown in tool output); SQL reaches them.
func SearchText(m *Message, parts []Part) string {
	if m.Role != RoleUser && m.Role != RoleAssistant {
		return ""
	}
	var b strings.Builder
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	for i := range parts {
		p := &parts[i]
		if p.Provenance != Conversational || p.MessageID != m.ID {
			continue
		}
		switch p.Type {
		case PartText:
			add(p.Text)
		case PartFile:
			add(strings.TrimSpace(p.FileName + " " + p.MediaType))
		}
	}
	return b.String()
}
