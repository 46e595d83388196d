package session

import "fmt"

// MaxIDBytes bounds a session id. Ids become file names (Codex's rollout-<time>-<id>.jsonl,
// OpenCode's pond-import/<id>.json), which most file systems cap at 255 bytes.
const MaxIDBytes = 200

// CheckID reports whether id may name a session: 1 to MaxIDBytes characters of
// [A-Za-z0-9._-], starting with a letter or digit. Every agent's own ids (UUIDs, OpenCode's
// ses_…, file-name stems) fit; what does not is refused at capture, ingest and import alike
// (the Validator), because a session id later becomes a file name in a restore and an argument
// of the command that resumes it: no separator, no "..", no shell syntax, and no leading '-'
// that a program would read as a flag.
func CheckID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("missing")
	case len(id) > MaxIDBytes:
		return fmt.Errorf("%d bytes, more than the %d a session id may have", len(id), MaxIDBytes)
	case !isAlnum(id[0]):
		return fmt.Errorf("%q does not start with a letter or digit", id)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return fmt.Errorf("%q holds %q: a session id is made of letters, digits, '.', '_' and '-'", id, c)
		}
	}
	return nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
