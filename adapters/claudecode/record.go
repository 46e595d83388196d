package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// record is one transcript line: the few envelope fields the mapping needs, its message, and
// the line itself. Fields of an unexpected JSON type read as absent; only a line that is not a
// JSON object is malformed.
type record struct {
	raw []byte

	typ              string
	uuid             string
	sessionID        string
	cwd, version     string
	at               time.Time // zero when missing or unreadable
	isMeta           bool
	isCompactSummary bool
	isAPIError       bool
	logicalParent    string
	requestID        string
	forkedFrom       string          // forkedFrom.sessionId: the session a fork copied this line from
	restoreMark      json.RawMessage // set on the first line of a session Pond restored from another agent
	content          string          // a system line's content
	message          messageHead
	body             content
}

// envelopeJSON are the line's own fields. A value of another JSON type than the field's is a
// decoding error that leaves the field zero, which reads as absent.
type envelopeJSON struct {
	Type              string          `json:"type"`
	UUID              string          `json:"uuid"`
	SessionID         string          `json:"sessionId"`
	Cwd               string          `json:"cwd"`
	Version           string          `json:"version"`
	Timestamp         string          `json:"timestamp"`
	IsMeta            bool            `json:"isMeta"`
	IsCompactSummary  bool            `json:"isCompactSummary"`
	IsAPIErrorMessage bool            `json:"isApiErrorMessage"`
	LogicalParentUUID string          `json:"logicalParentUuid"`
	RequestID         string          `json:"requestId"`
	ForkedFrom        forkedFromJSON  `json:"forkedFrom"`
	RestoreMark       json.RawMessage `json:"pond_restored_from"`
	Content           string          `json:"content"`
}

type forkedFromJSON struct {
	SessionID string `json:"sessionId"`
}

// lineJSON is a line whose message content is a list of content blocks, as assistant lines and
// tool results have it: decoded in one pass, the tool outputs within included.
type lineJSON struct {
	envelopeJSON
	Message struct {
		messageHead
		Content []*blockJSON `json:"content"`
	} `json:"message"`
}

// textLineJSON is a line whose message content is a string, as a prompt's is.
type textLineJSON struct {
	envelopeJSON
	Message struct {
		messageHead
		Content *string `json:"content"`
	} `json:"message"`
}

// rawLineJSON is any other line, its message content kept raw.
type rawLineJSON struct {
	envelopeJSON
	Message struct {
		messageHead
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

var errNotObject = errors.New("a JSON value that is not an object")

// unmarshal decodes a line into the line structs with encoding/json's semantics (keys matched
// without regard to case, a value of an unexpected type left zero and reported, invalid UTF-8
// read as U+FFFD) in one pass: go-json-experiment's v1 runs on jsontext, where encoding/json
// validates the whole line before decoding it, which was half of the adapter's time.
func unmarshal(data []byte, v any) error { return jsonv1.Unmarshal(data, v) }

func parseRecord(line []byte) (*record, error) { return parseRecordWith(line, unmarshal) }

// parseRecordWith is parseRecord decoding with unmarshal.
func parseRecordWith(line []byte, unmarshal func([]byte, any) error) (*record, error) {
	if t := bytes.TrimLeft(line, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			return nil, fmt.Errorf("invalid JSON: %w", err)
		}
		return nil, errNotObject
	}
	r := &record{raw: line} // jsonl gives each line a buffer of its own
	var env *envelopeJSON
	if contentKind(line) == '"' {
		var t textLineJSON
		if unmarshal(line, &t) == nil {
			env, r.message, r.body = &t.envelopeJSON, t.Message.messageHead, content{text: t.Message.Content}
		}
	} else {
		var j lineJSON
		if unmarshal(line, &j) == nil && blocksOnly(j.Message.Content) {
			env, r.message, r.body = &j.envelopeJSON, j.Message.messageHead, content{blocks: j.Message.Content}
		}
	}
	if env == nil {
		// Not the shape guessed, or a value of an unexpected type somewhere: read the line again
		// with the content raw, every other odd value read as absent.
		var rj rawLineJSON
		if err := lenient(unmarshal(line, &rj)); err != nil {
			var v json.RawMessage
			if uerr := json.Unmarshal(line, &v); uerr != nil {
				err = uerr // in encoding/json's words, as reported before
			}
			return nil, fmt.Errorf("invalid JSON: %w", err)
		}
		env, r.message, r.body = &rj.envelopeJSON, rj.Message.messageHead, content{raw: rj.Message.Content, isRaw: true}
	}
	r.typ, r.uuid, r.sessionID = env.Type, env.UUID, env.SessionID
	r.cwd, r.version = env.Cwd, env.Version
	r.isMeta, r.isCompactSummary, r.isAPIError = env.IsMeta, env.IsCompactSummary, env.IsAPIErrorMessage
	r.logicalParent, r.requestID = env.LogicalParentUUID, env.RequestID
	r.forkedFrom, r.restoreMark, r.content = env.ForkedFrom.SessionID, env.RestoreMark, env.Content
	if strings.TrimSpace(r.cwd) == "" {
		r.cwd = ""
	}
	if env.Timestamp != "" {
		if t, err := time.Parse(time.RFC3339Nano, env.Timestamp); err == nil && !t.IsZero() {
			r.at = t
		}
	}
	return r, nil
}

// contentKind guesses the first byte of a line's message content from the first "content" key
// in the line (a key: a string value cannot hold an unescaped quote), so that the line is first
// decoded with the struct that most likely fits. A wrong guess only costs a second decoding.
func contentKind(line []byte) byte {
	const key = `"content":`
	i := bytes.Index(line, []byte(key))
	if i < 0 {
		return 0
	}
	rest := bytes.TrimLeft(line[i+len(key):], " \t\r\n")
	if len(rest) == 0 {
		return 0
	}
	return rest[0]
}

// lenient drops the errors that only say a value had an unexpected JSON type: the decoder went
// on, leaving that value zero.
func lenient(err error) error {
	var te *json.UnmarshalTypeError
	var te1 *jsonv1.UnmarshalTypeError // the type unmarshal reports
	if errors.As(err, &te) || errors.As(err, &te1) {
		return nil
	}
	return err
}

// knownTypes are the record types Claude Code writes besides user and assistant; they are kept
// as part-less system messages without being reported as drift.
var knownTypes = map[string]bool{
	"system":                true,
	"summary":               true,
	"file-history-snapshot": true,
	"progress":              true,
	"attachment":            true,
	"queue-operation":       true,
	"custom-title":          true,
	"ai-title":              true,
	"last-prompt":           true,
	"permission-mode":       true,
	"mode":                  true,
	"agent-name":            true,
	"cost-state":            true,
	"atis-latch":            true,
	"pr-link":               true,
	"bridge-session":        true,
	"frame-link":            true,
	"worktree-state":        true,
	"relocated":             true,
	"fork-context-ref":      true, // header of a /fork sub-agent transcript (2.1.117+)
	// 2.1.332 (seen in its genuine fixture, testdata/genuine): the requests it sent, by
	// reference (api-request: params, a base request and how many of its messages it keeps),
	// their shared shape and message blobs by hash, and the tools a turn used.
	"api-request":       true,
	"api-request-shape": true,
	"api-request-blob":  true,
	"tools-used":        true,
}

// harnessPrefixes open text that Claude Code, not the user, put in a user turn: slash-command
// echoes and their output, caveats, reminders, IDE context, hook output, interrupt notices.
var harnessPrefixes = []string{
	"<command-name>",
	"<command-message>",
	"<command-args>",
	"<command-contents>",
	"<local-command-caveat>",
	"<local-command-stdout>",
	"<local-command-stderr>",
	"<system-reminder>",
	"<task-notification>",
	"<bash-stdout>",
	"<bash-stderr>",
	"<ide_opened_file>",
	"<ide_selection>",
	"<user-prompt-submit-hook>",
	"Caveat: The messages below were generated by the user while running local commands",
	"[Request interrupted by user",
}

func harnessText(s string) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	for _, p := range harnessPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// isUUID reports whether s has the shape of a UUID, as Claude Code's session ids do.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
