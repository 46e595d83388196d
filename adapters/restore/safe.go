package restore

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Everything an encoder reads from the archive is untrusted: a stored session may come from
// `pond import` of someone else's export or from the ingest route, and a restore writes where
// the stored values say. So every value that becomes part of a path is checked here before it is
// joined: ids and names from a safe character set, relative paths with filepath.IsLocal and
// the same rule for each of their elements (session ids themselves are session.CheckID's).
// resume checks the result once more against the root before it writes a file.

// UnsafeError is a stored value that would take a restore's file outside the agent's folder, or
// is no valid name: the restore is refused and nothing is written.
type UnsafeError struct {
	Session string // the stored session
	Field   string // where the value is stored, e.g. options.source.path
	Value   string
	Reason  string
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("session %s: %s %q cannot be part of a file's path (%s)", e.Session, e.Field, e.Value, e.Reason)
}

// CheckName checks a value that becomes one path element (an id, a file or folder name):
// 1 to 255 bytes of [A-Za-z0-9._-], and not "." or "..". Agents' own names fit (Claude Code's
// folder for a cwd turns everything else into '-').
func CheckName(sessionID, field, value string) error {
	if reason := badName(value); reason != "" {
		return &UnsafeError{Session: sessionID, Field: field, Value: value, Reason: reason}
	}
	return nil
}

// CheckRel checks a relative slash path from the archive: local (filepath.IsLocal: not absolute,
// no "..", no reserved names) and every element a valid name (CheckName).
func CheckRel(sessionID, field, rel string) error {
	if !filepath.IsLocal(filepath.FromSlash(rel)) || path.Clean(rel) != rel {
		return &UnsafeError{Session: sessionID, Field: field, Value: rel, Reason: "not a plain relative path below the agent's folder"}
	}
	for _, el := range strings.Split(rel, "/") {
		if reason := badName(el); reason != "" {
			return &UnsafeError{Session: sessionID, Field: field, Value: rel, Reason: fmt.Sprintf("element %q: %s", el, reason)}
		}
	}
	return nil
}

func badName(s string) string {
	switch {
	case s == "":
		return "empty"
	case len(s) > 255:
		return "longer than a file name may be"
	case s == "." || s == "..":
		return "names a folder itself or its parent"
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Sprintf("holds %q: only letters, digits, '.', '_' and '-' are allowed", c)
		}
	}
	return ""
}
