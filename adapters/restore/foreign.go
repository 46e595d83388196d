package restore

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/pondhq/pond/session"
)

// MarkKey is the key under which a foreign restore records where it came from, in the
// target's own session metadata (Claude Code: the note line; Codex: session_meta; Gemini: the
// metadata record; Pi: the header). The target's adapter copies it to
// options.pond.restored_from and links the session to its original (adapters.ApplyRestoreMark).
const MarkKey = "pond_restored_from"

// Mark is the value under MarkKey.
type Mark struct {
	Session string `json:"session"` // the stored session's id
	Agent   string `json:"agent"`   // its source agent
}

// Turn is one message of a foreign reconstruction.
type Turn struct {
	Role  session.Role // user, assistant or tool
	At    time.Time
	ID    string // the stored message id (with a suffix for a message split in several turns)
	Model string
	Items []Item
}

// Item is one piece of a turn.
type Item struct {
	Kind    ItemKind
	Text    string
	CallID  string
	Name    string
	Params  json.RawMessage // a JSON object (or value) of arguments
	IsError bool
}

// ItemKind is what an item is.
type ItemKind int

// Item kinds.
const (
	ItemText   ItemKind = iota // text, in its turn's role
	ItemCall                   // a tool call (in an assistant turn)
	ItemResult                 // a tool call's result (in a tool turn)
)

// Conversation is what a foreign restore carries over.
type Conversation struct {
	Turns   []Turn
	dropped map[string]int // what was left out, by kind
}

func (c *Conversation) drop(what string) { c.dropped[what]++ }

// DroppedReason lists what a reconstruction left out.
func (c *Conversation) DroppedReason() string {
	var out []string
	for _, k := range []string{"reasoning part", "file part", "injected context part", "system record"} {
		if n := c.dropped[k]; n > 0 {
			out = append(out, fmt.Sprintf("%d %s(s)", n, k))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "left out " + strings.Join(out, ", ")
}

// Converse extracts the conversation of a transcript: user and assistant text, tool calls and
// their results. Every call gets exactly one result (an interrupted call gets a synthetic error
// result right after the turn that made it), because every provider rejects unpaired calls.
func Converse(t *Transcript) *Conversation {
	c := &Conversation{dropped: map[string]int{}}
	answered := map[string]bool{}
	for _, m := range t.Messages {
		for _, p := range t.Parts[m.ID] {
			if p.Type == session.PartToolResult {
				answered[p.CallID] = true
			}
		}
	}
	called, resulted := map[string]bool{}, map[string]bool{}
	for _, m := range t.Messages {
		if m.Role == session.RoleSystem {
			c.drop("system record")
			continue
		}
		tu := Turn{Role: m.Role, At: m.Timestamp, ID: m.ID, Model: modelOf(m)}
		var missing []Item
		for _, p := range t.Parts[m.ID] {
			switch p.Type {
			case session.PartText:
				if p.Provenance == session.Injected {
					c.drop("injected context part")
					continue
				}
				if strings.TrimSpace(p.Text) != "" {
					tu.Items = append(tu.Items, Item{Kind: ItemText, Text: p.Text})
				}
			case session.PartToolCall:
				if p.CallID == "" || called[p.CallID] {
					continue
				}
				called[p.CallID] = true
				params := p.Params
				if len(params) == 0 {
					params = json.RawMessage(`{}`)
				}
				tu.Items = append(tu.Items, Item{Kind: ItemCall, CallID: p.CallID, Name: p.Name, Params: params})
				if !answered[p.CallID] {
					missing = append(missing, Item{Kind: ItemResult, CallID: p.CallID, Name: p.Name, IsError: true,
						Text: "[no result was recorded for this call: it was interrupted]"})
				}
			case session.PartToolResult:
				if !called[p.CallID] || resulted[p.CallID] {
					// A result without its call (the call was not captured), or a second one
					// for a call (providers take exactly one): keep what it said as text.
					if s := resultText(p.Result); s != "" {
						tu.Items = append(tu.Items, Item{Kind: ItemText, Text: "[tool result] " + s})
					}
					continue
				}
				resulted[p.CallID] = true
				tu.Items = append(tu.Items, Item{Kind: ItemResult, CallID: p.CallID, Name: p.Name, IsError: p.IsFailure, Text: resultText(p.Result)})
			case session.PartReasoning:
				c.drop("reasoning part")
			case session.PartFile:
				c.drop("file part")
			}
		}
		if len(tu.Items) > 0 {
			c.Turns = append(c.Turns, splitTurn(tu)...)
		}
		if len(missing) > 0 {
			c.Turns = append(c.Turns, Turn{Role: session.RoleTool, At: m.Timestamp, ID: m.ID + ":interrupted", Items: missing})
		}
	}
	return c
}

// splitTurn puts each piece of one message where providers expect it: calls in an assistant
// turn, results in a tool turn right after, text in the message's own role (a call recorded in
// a user's message, like pi's !command, becomes an assistant call first). An assistant message
// that goes on after the results of its calls (OpenCode keeps call, result and the answer in one
// message) is cut there, so that the answer follows the results, as it did when it was written.
func splitTurn(t Turn) []Turn {
	sub := func(role session.Role, suffix string, items []Item) Turn {
		r := t
		r.Role, r.Items, r.ID = role, items, t.ID+suffix
		return r
	}
	var out []Turn
	if t.Role == session.RoleAssistant {
		var text, calls, results []Item
		n := 0
		flush := func() {
			suffix := ""
			if n > 0 {
				suffix = fmt.Sprintf(":%d", n)
			}
			if len(text)+len(calls) > 0 {
				out = append(out, sub(session.RoleAssistant, suffix, append(text, calls...)))
			}
			if len(results) > 0 {
				out = append(out, sub(session.RoleTool, ":results"+suffix, results))
			}
			text, calls, results = nil, nil, nil
			n++
		}
		for _, it := range t.Items {
			switch it.Kind {
			case ItemCall:
				calls = append(calls, it)
			case ItemResult:
				results = append(results, it)
			default:
				if len(results) > 0 {
					flush()
				}
				text = append(text, it)
			}
		}
		flush()
		return out
	}
	var calls, results, text []Item
	for _, it := range t.Items {
		switch it.Kind {
		case ItemCall:
			calls = append(calls, it)
		case ItemResult:
			results = append(results, it)
		default:
			text = append(text, it)
		}
	}
	if len(calls) > 0 {
		out = append(out, sub(session.RoleAssistant, ":calls", calls))
	}
	if len(results) > 0 {
		out = append(out, sub(session.RoleTool, ":results", results))
	}
	if len(text) > 0 {
		out = append(out, sub(session.RoleUser, "", text))
	}
	return out
}

// modelOf is the model a stored assistant message names, when the adapter kept it.
func modelOf(m session.Message) string {
	for _, k := range []string{"anthropic", "openai", "google", "model"} {
		var o struct {
			Model string `json:"model"`
		}
		if json.Unmarshal(m.Options[k], &o) == nil && o.Model != "" {
			return o.Model
		}
	}
	return ""
}

// resultText is a tool result as text: a string as it is, text blocks joined, anything else as
// compact JSON.
func resultText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil && len(blocks) > 0 {
		var parts []string
		for _, b := range blocks {
			if b.Text == nil {
				parts = nil
				break
			}
			parts = append(parts, *b.Text)
		}
		if parts != nil {
			return strings.Join(parts, "\n")
		}
	}
	return string(raw)
}

// NoteText is the first note of a foreign restore.
func NoteText(t *Transcript) string {
	return fmt.Sprintf("[Restored by Pond] This conversation continues %s session %s (project %s, started %s). "+
		"Earlier turns were rebuilt from Pond's archive: text, tool calls and tool results are kept; "+
		"reasoning, attachments and the original agent's injected context are not.",
		t.Session.SourceAgent, t.Session.ID, t.Session.Project, t.Session.CreatedAt.UTC().Format(time.RFC3339))
}

// MarkOf is the mark of a foreign restore of t.
func MarkOf(t *Transcript) Mark { return Mark{Session: t.Session.ID, Agent: t.Session.SourceAgent} }

// MarkJSON is MarkOf(t) as JSON.
func MarkJSON(t *Transcript) json.RawMessage {
	b, _ := json.Marshal(MarkOf(t))
	return b
}

// pondNamespace is the UUID namespace of Pond's restored-session ids.
var pondNamespace = [16]byte{0x6f, 0x1d, 0x0b, 0x3c, 0x8a, 0x52, 0x4e, 0x61, 0x9d, 0x0e, 0x57, 0x2a, 0x70, 0x6e, 0x64, 0x01}

// NewUUID is a deterministic name-based UUID (RFC 4122 version 5) of the parts: the same
// restore gets the same id every time, a different one never collides with it.
func NewUUID(parts ...string) string {
	h := sha1.New()
	h.Write(pondNamespace[:])
	h.Write([]byte(strings.Join(parts, "\x00")))
	u := h.Sum(nil)[:16]
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	x := hex.EncodeToString(u)
	return x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// ShortHash is n hex digits of a digest of s.
func ShortHash(s string, n int) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:n]
}

var safeCallID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// AnthropicCallID maps a tool call id onto Anthropic's id syntax.
func AnthropicCallID(id string) string {
	if safeCallID.MatchString(id) {
		return id
	}
	return "toolu_pond_" + ShortHash(id, 20)
}

// ParamsObject is a call's arguments as a JSON object (providers want objects): a non-object
// value is wrapped as {"input": value}.
func ParamsObject(raw json.RawMessage) json.RawMessage {
	var probe map[string]json.RawMessage
	if json.Unmarshal(raw, &probe) == nil && probe != nil {
		return raw
	}
	b, _ := json.Marshal(map[string]json.RawMessage{"input": raw})
	return b
}

// Marshal encodes v without HTML escaping.
func Marshal(v any) []byte {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return []byte(strings.TrimSuffix(b.String(), "\n"))
}

// Stamp is a time as agents write it: UTC, milliseconds.
func Stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
