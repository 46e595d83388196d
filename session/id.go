package session

import "fmt"

// MaxIDBytes bounds a session id. Ids become file names (Codex's rollout-<time>-<id>.jsonl,
// OpenCode's pond-import/<id>.json), which most file systems cap at 255 bytes.
const MaxIDBytes = 200

// CheckID reports whether id may name a session: at most MaxIDBytes, one or more segments
// joined by '/', each of [A-Za-z0-9._-] and starting with a letter or digit. Every agent's own
// ids fit (UUIDs, OpenCode's ses_…, file-name stems, Claude Code's <session>/agent-<id> for a
// sub-agent); what does not is refused at capture, ingest and import alike (the Validator),
// because a session id later becomes part of a file name in a restore and an argument of the
// command that resumes it: no "." or ".." segment, no shell syntax, no leading '/' and no
// leading '-' that a program would read as a flag.
func CheckID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("missing")
	case len(id) > MaxIDBytes:
		return fmt.Errorf("%d bytes, more than the %d a session id may have", len(id), MaxIDBytes)
	}
	start := true // at the start of a segment
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case start && !isAlnum(c):
			return fmt.Errorf("%q: each part of a session id (between '/') starts with a letter or digit", id)
		case c == '/':
			start = true
			continue
		case !isAlnum(c) && c != '.' && c != '_' && c != '-':
			return fmt.Errorf("%q holds %q: a session id is made of letters, digits, '.', '_', '-' and '/'", id, c)
		}
		start = false
	}
	if start {
		return fmt.Errorf("%q ends with '/'", id)
	}
	return nil
}
func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
