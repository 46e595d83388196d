package claudecode

import (
	"path"
	"strings"

	"github.com/pondhq/pond/adapters"
)

var _ adapters.SourceExcluder = Adapter{}

// ExcludedSource implements adapters.SourceExcluder: a source's first folder under projects/
// is its session's working directory, every character but ASCII letters and digits written as
// "-" (claudeProjectDir). A glob written the same way (its * and ? kept) that matches the
// folder names an excluded project. Only the folder of the project itself is matched: its
// sub-folders' names cannot be told from siblings with a "-" in their name, so their files are
// read and their rows dropped (the project is in each session's cwd).
func (Adapter) ExcludedSource(root string, src adapters.Source, x *adapters.Exclusions) bool {
	if x.Empty() || !strings.HasPrefix(src.Key, "projects/") {
		return false
	}
	folder, _, ok := strings.Cut(strings.TrimPrefix(src.Key, "projects/"), "/")
	if !ok {
		return false
	}
	for _, g := range x.Globs() {
		if ok, _ := path.Match(encodeGlob(g), folder); ok {
			return true
		}
	}
	return false
}

// encodeGlob writes a project glob as Claude Code names the project's folder, keeping the
// glob's wildcards.
func encodeGlob(g string) string {
	var b strings.Builder
	for _, r := range g {
		switch {
		case r == '*' || r == '?':
			b.WriteRune(r)
		case r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}
